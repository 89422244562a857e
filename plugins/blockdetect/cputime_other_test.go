//go:build !linux

package main

import "time"

// threadCPU is wall time where the thread's processor time is not read.
func threadCPU(f func()) time.Duration {
	t0 := time.Now()
	f()
	return time.Since(t0)
}
