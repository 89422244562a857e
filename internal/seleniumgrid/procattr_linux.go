package seleniumgrid

import "syscall"

// serverAttr puts a server in a process group of its own, killed with the
// process that started it: a test or benchmark killed midway (a timeout,
// ^C) no longer leaves the grid's Java servers running.
func serverAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
