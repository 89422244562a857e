package main

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/internal/testkit"
)

func TestPprofLoopbackOnly(t *testing.T) {
	// A free loopback port, then the listener on it.
	addr := testkit.FreeAddr(t)
	var out strings.Builder
	if err := startPprof(addr, &out); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "http://"+addr+"/debug/pprof/") {
		t.Fatalf("stderr: %q", out.String())
	}
	resp, err := http.Get("http://" + addr + "/debug/pprof/mutex?debug=1")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), "mutex") {
		t.Fatalf("mutex profile: %d %.200s", resp.StatusCode, b)
	}
	if err := startPprof("0.0.0.0:0", io.Discard); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("a non-loopback address: %v", err)
	}
}

func TestServePprofFlagOffByDefault(t *testing.T) {
	f := serveCmd(&globals{}).Flags().Lookup("pprof")
	if f == nil || f.DefValue != "" {
		t.Fatalf("--pprof flag: %+v", f)
	}
}
