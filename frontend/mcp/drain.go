package mcp

import (
	"context"
	"fmt"
	"net/http"
	"sync"

	"github.com/wasmwright/wasmwright/abi"
)

// Draining: a host that is being stopped (SIGTERM from its orchestrator)
// first stops taking work, then lets the work it took finish. Drain turns
// new MCP sessions away (503 with Retry-After: a load balancer's retry or
// the client's reaches another replica) and refuses new calls on open
// sessions, while the calls in flight run to their end; Serve's shutdown
// (its context done) then closes the sessions and their browsers.

// RetryAfter is the Retry-After hint, in seconds, of a new session turned
// away while draining: about the time a load balancer takes to see the
// replica unready and route elsewhere.
const RetryAfter = "5"

// flight counts the calls in flight and tells a drain when none is left.
type flight struct {
	mu   sync.Mutex
	n    int
	idle chan struct{} // closed when n reaches 0 while a drain waits
}

func (f *flight) begin() {
	f.mu.Lock()
	f.n++
	f.mu.Unlock()
}

func (f *flight) end() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n--; f.n == 0 && f.idle != nil {
		close(f.idle)
		f.idle = nil
	}
}

// wait returns once no call is in flight, or with ctx's error and how
// many still are.
func (f *flight) wait(ctx context.Context) (int, error) {
	f.mu.Lock()
	if f.n == 0 {
		f.mu.Unlock()
		return 0, nil
	}
	if f.idle == nil {
		f.idle = make(chan struct{})
	}
	idle := f.idle
	f.mu.Unlock()
	select {
	case <-idle:
		return 0, nil
	case <-ctx.Done():
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.n, ctx.Err()
	}
}

// Drain stops taking work (new sessions get 503, new calls not_available)
// and waits until the calls in flight have ended, or ctx is done: then it
// says how many still run (Serve's shutdown cancels them).
// A call's answer travels on the POST that carried it after the call
// returns: the drain also waits for the POST requests in flight to be
// answered, or shutting the sessions down could cut an answer off.
func (s *Server) Drain(ctx context.Context) error {
	s.StopTaking()
	if n, err := s.calls.wait(ctx); err != nil {
		return fmt.Errorf("mcp: drain: %d calls still in flight: %w", n, err)
	}
	if n, err := s.posts.wait(ctx); err != nil {
		return fmt.Errorf("mcp: drain: %d answers still being written: %w", n, err)
	}
	return nil
}

// StopTaking is Drain's first step alone: from its return new sessions
// get 503 and new calls not_available.
func (s *Server) StopTaking() { s.draining.Store(true) }

// Draining reports whether Drain was called.
func (s *Server) Draining() bool { return s.draining.Load() }

// OpenSessions is how many MCP sessions are open (the metrics' gauge).
func (s *Server) OpenSessions() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.watched)
}

// refuseNewSession answers a request that would open a session while the
// server drains; it reports whether it did.
func (s *Server) refuseNewSession(w http.ResponseWriter, r *http.Request) bool {
	if !s.draining.Load() || r.Header.Get("Mcp-Session-Id") != "" {
		return false
	}
	w.Header().Set("Retry-After", RetryAfter)
	refuse(w, http.NewResponseController(w), http.StatusServiceUnavailable,
		"503 service unavailable: this wasmwright server is shutting down and takes no new sessions: retry in "+RetryAfter+" s (another replica, or this one restarted, will take it)")
	return true
}

// drainingError is the answer to a call on an open session while the
// server drains.
func drainingError() *abi.Error {
	return abi.Errorf(abi.CodeNotAvailable, "wasmwright is shutting down and takes no new calls: open a new MCP session (another replica, or this one restarted, takes it) and repeat the call there")
}
