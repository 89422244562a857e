package blockdetect_test

import (
	"syscall"
	"time"
)

// processCPU runs f and returns the processor time the process spent
// meanwhile (all its threads: the sandbox's work and its garbage
// collection): unlike wall time, it does not grow when other processes
// share the machine.
func processCPU(f func()) time.Duration {
	var a, b syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &a)
	f()
	syscall.Getrusage(syscall.RUSAGE_SELF, &b)
	return time.Duration(b.Utime.Nano()+b.Stime.Nano()-a.Utime.Nano()-a.Stime.Nano()) * time.Nanosecond
}
