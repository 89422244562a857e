package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// shutdownDeadline is the context key of the time by which a stopping serve
// must be done.
type shutdownDeadline struct{}

type atomicTime struct {
	mu sync.Mutex
	t  time.Time
}

func (a *atomicTime) get() time.Time {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.t
}

// stopOnSignal returns a context that SIGINT or SIGTERM cancels once drain
// (fleet.drain, bounded by serve.drain_timeout) has returned. From then
// serve has shutdownBudget to finish, after which (or at a
// second signal) the process exits whatever is still running: a call or a
// browser that does not stop must not keep it alive. The context carries
// the deadline (shutdownDeadline) for the host's close. stop releases the
// signals once serve has returned.
func stopOnSignal(parent context.Context, stderr io.Writer, drain func()) (context.Context, func()) {
	dl := &atomicTime{}
	ctx, cancel := context.WithCancel(context.WithValue(parent, shutdownDeadline{}, dl))
	sigc := make(chan os.Signal, 2)
	signal.Notify(sigc, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		var sig os.Signal
		select {
		case sig = <-sigc:
		case <-done:
			return
		}
		// First the drain (fleet.drain): unready, no new sessions, the
		// calls in flight finish within serve.drain_timeout. A second
		// signal still exits at once.
		fmt.Fprintf(stderr, "wasmwright: %v: stopping (a second signal exits at once)\n", sig)
		drained := make(chan struct{})
		go func() {
			defer close(drained)
			drain()
		}()
		select {
		case <-drained:
		case <-sigc:
			fmt.Fprintln(stderr, "wasmwright: second signal: exiting now")
			os.Exit(130)
		case <-done:
			return
		}
		dl.mu.Lock()
		dl.t = time.Now().Add(shutdownBudget)
		dl.mu.Unlock()
		fmt.Fprintf(stderr, "wasmwright: %v: closing sessions and browsers; calls still in flight are cancelled\n", sig)
		cancel()
		hard := time.NewTimer(shutdownBudget + time.Second)
		defer hard.Stop()
		select {
		case <-sigc:
			fmt.Fprintln(stderr, "wasmwright: second signal: exiting now")
			os.Exit(130)
		case <-hard.C:
			fmt.Fprintf(stderr, "wasmwright: still stopping after %v: exiting now\n", shutdownBudget+time.Second)
			os.Exit(1)
		case <-done:
		}
	}()
	return ctx, func() {
		close(done)
		signal.Stop(sigc)
		cancel()
	}
}
