package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wasmwright/wasmwright/frontend/mcp"
	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/host/metrics"
)

// fleet is what serve offers the platform that runs it: Prometheus
// metrics, liveness and readiness on a listener of their own
// (serve.metrics_addr, --metrics-addr), and the drain on SIGTERM:
// readiness turns 503 first, new sessions are turned away, calls in flight
// finish within serve.drain_timeout, then serve stops as before (sessions
// and browsers closed, profiles flushed) and exits 0.
type fleet struct {
	metrics *metrics.Metrics
	stderr  io.Writer

	mu      sync.Mutex
	h       *host.Host
	served  []string // the personalities serve serves: readiness asks for theirs
	srv     *mcp.Server
	timeout time.Duration

	draining atomic.Bool
}

func newFleet(stderr io.Writer) *fleet {
	return &fleet{metrics: metrics.New(), stderr: stderr, timeout: host.DefaultDrainTimeout}
}

// serving records what serve runs once it runs it: readiness and the
// drain need them.
func (f *fleet) serving(h *host.Host, srv *mcp.Server, served []string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.h, f.srv, f.served, f.timeout = h, srv, served, h.Config().Serve.Drain()
	f.metrics.OpenSessions(srv.OpenSessions)
}

// drain is stopOnSignal's first step: unready, then no new work, then the
// calls in flight get up to the drain timeout to end.
func (f *fleet) drain() {
	f.draining.Store(true)
	f.mu.Lock()
	srv, timeout := f.srv, f.timeout
	f.mu.Unlock()
	if srv == nil {
		return
	}
	srv.StopTaking()
	fmt.Fprintf(f.stderr, "wasmwright: draining: /readyz answers 503, new sessions 503 (Retry-After), new calls not_available; calls in flight have up to %v (serve.drain_timeout)\n", timeout)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	t0 := time.Now()
	if err := srv.Drain(ctx); err != nil {
		fmt.Fprintf(f.stderr, "wasmwright: drained for %v (serve.drain_timeout): %v; cancelling them\n", timeout, err)
		return
	}
	fmt.Fprintf(f.stderr, "wasmwright: drained: no call in flight (%v)\n", time.Since(t0).Round(time.Millisecond))
}

// ready is /readyz's answer: nil when serve takes sessions.
func (f *fleet) ready(ctx context.Context) error {
	if f.draining.Load() {
		return errors.New("draining: this server is shutting down")
	}
	f.mu.Lock()
	h, served := f.h, f.served
	f.mu.Unlock()
	if h == nil {
		return errors.New("starting")
	}
	return h.Ready(ctx, served...)
}

// handler serves /metrics, /healthz and /readyz.
func (f *fleet) handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", f.metrics.Handler())
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
		defer cancel()
		if err := f.ready(ctx); err != nil {
			http.Error(w, "not ready: "+err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ready")
	})
	return mux
}

// start starts the metrics listener on addr, else the config's
// serve.metrics_addr, if either is set; stop closes it. The listener
// outlives serve's context: /readyz answers 503 while serve drains and
// stops, until serve returns.
func (f *fleet) start(h *host.Host, addr string, allowRemote bool) (stop func(), err error) {
	cfg := h.Config()
	if addr == "" {
		addr = cfg.Serve.MetricsAddr
	}
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := f.listen(ctx, addr, allowRemote || cfg.Serve.AllowRemote, h.Logger()); err != nil {
		cancel()
		return nil, err
	}
	return cancel, nil
}

// listen starts the metrics listener on addr, guarded as serve's own
// (loopback unless allowRemote); it stops when ctx is done and done is
// closed. An empty addr starts nothing.
func (f *fleet) listen(ctx context.Context, addr string, allowRemote bool, log *slog.Logger) (done <-chan struct{}, err error) {
	if addr == "" {
		return nil, nil
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("metrics address %s (serve.metrics_addr, --metrics-addr): %w", addr, err)
	}
	if !loopbackListener(ln) && !allowRemote {
		ln.Close()
		return nil, fmt.Errorf("refusing to serve metrics on %s: it is not a loopback address; listen on 127.0.0.1, or set serve.allow_remote = true (--allow-remote) where the network keeps it to the scraper", ln.Addr())
	}
	srv := &http.Server{Handler: f.handler(), ReadHeaderTimeout: 5 * time.Second, WriteTimeout: 30 * time.Second, IdleTimeout: 60 * time.Second,
		ErrorLog: slog.NewLogLogger(log.Handler(), slog.LevelDebug)}
	fmt.Fprintf(f.stderr, "wasmwright: metrics at http://%s/metrics, liveness /healthz, readiness /readyz\n", ln.Addr())
	c := make(chan struct{})
	go func() {
		defer close(c)
		srv.Serve(ln)
	}()
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		srv.Shutdown(sctx)
	}()
	return c, nil
}
