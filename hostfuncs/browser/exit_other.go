//go:build unix && !linux

package browser

import (
	"syscall"
	"time"
)

// waitExit blocks until process pid exits (checked every half second; a
// zombie counts as alive until playwright-go reaps it) and reports true.
func waitExit(pid int) bool {
	for syscall.Kill(pid, 0) == nil {
		time.Sleep(500 * time.Millisecond)
	}
	return true
}
