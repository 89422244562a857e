package main

import (
	"runtime"
	"syscall"
	"time"
)

// threadCPU runs f on one locked OS thread and returns the processor time
// that thread spent: unlike wall time, it does not grow when other
// processes share the machine.
func threadCPU(f func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const rusageThread = 1 // RUSAGE_THREAD
	var a, b syscall.Rusage
	syscall.Getrusage(rusageThread, &a)
	f()
	syscall.Getrusage(rusageThread, &b)
	return time.Duration(b.Utime.Nano()+b.Stime.Nano()-a.Utime.Nano()-a.Stime.Nano()) * time.Nanosecond
}
