//go:build !linux

package seleniumgrid

import "syscall"

// serverAttr puts a server in a process group of its own.
func serverAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }
