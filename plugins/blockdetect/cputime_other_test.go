//go:build !linux

package blockdetect_test

import "time"

// processCPU is wall time where the thread's processor time is not read.
func processCPU(f func()) time.Duration {
	t0 := time.Now()
	f()
	return time.Since(t0)
}
