package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/pprof"
	"runtime"
	"time"
)

// startPprof serves Go's profiling endpoints (/debug/pprof/) on addr, a
// loopback address, for `serve --pprof`: off unless asked for. It also
// turns on the mutex and block profiles, which cost a little on every
// contended lock and so stay off otherwise. The listener lives as long as
// the process.
func startPprof(addr string, stderr io.Writer) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--pprof %s: %w", addr, err)
	}
	if !loopbackListener(ln) {
		ln.Close()
		return fmt.Errorf("--pprof %s: profiles show what the process holds; listen on a loopback address (127.0.0.1:PORT)", addr)
	}
	runtime.SetMutexProfileFraction(5)
	runtime.SetBlockProfileRate(int(100 * time.Microsecond))
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	go srv.Serve(ln)
	fmt.Fprintf(stderr, "wasmwright: profiling endpoints at http://%s/debug/pprof/\n", ln.Addr())
	return nil
}
