//go:build linux

package browser

import (
	"syscall"
	"time"
	"unsafe"
)

// waitExit blocks until process pid, a child of this process, exits, and
// reports true. It waits with waitid(WEXITED|WNOWAIT), which does not reap
// the child: playwright-go's own Wait still gets its status.
func waitExit(pid int) bool {
	const (
		pPID    = 1
		wExited = 0x4
		wNoWait = 0x1000000
	)
	var info [128]byte // siginfo_t
	for {
		_, _, errno := syscall.Syscall6(syscall.SYS_WAITID, pPID, uintptr(pid), uintptr(unsafe.Pointer(&info[0])), wExited|wNoWait, 0, 0)
		switch errno {
		case 0, syscall.ECHILD:
			// Exited (or already reaped by playwright-go: gone either way).
			return true
		case syscall.EINTR:
			continue
		}
		// waitid is not usable here: fall back to looking.
		return pollExit(pid)
	}
}

// pollExit checks every half second whether pid is still there.
func pollExit(pid int) bool {
	for syscall.Kill(pid, 0) == nil {
		time.Sleep(500 * time.Millisecond)
	}
	return true
}
