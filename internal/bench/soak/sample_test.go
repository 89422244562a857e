package main

import (
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// samples of one measure over ten minutes, every 5 s: base + rise per
// minute, plus a sawtooth of the given amplitude (what a GC'd heap does).
func series(base, perMin, saw float64) []sample {
	var ss []sample
	for i := range 120 {
		at := time.Duration(i) * 5 * time.Second
		v := base + perMin*at.Minutes() + saw*float64(i%6-3)
		ss = append(ss, sample{at: at, rssMB: v})
	}
	return ss
}

func TestFitLineFindsTheSlope(t *testing.T) {
	f := fitLine(series(300, 4, 0), func(s sample) float64 { return s.rssMB })
	if math.Abs(f.slope-4) > 1e-9 || f.resid > 1e-9 || f.n != 120 {
		t.Fatalf("a clean line of 4 MB/min: got %+v", f)
	}
	if !f.grows(10 * time.Minute) {
		t.Fatal("40 MB over ten minutes with no scatter is growth")
	}
}

func TestNoiseIsNotGrowth(t *testing.T) {
	// A flat sawtooth of ±30 MB: no growth, whatever the fit's slope.
	f := fitLine(series(300, 0, 10), func(s sample) float64 { return s.rssMB })
	if f.grows(10 * time.Minute) {
		t.Fatalf("a flat sawtooth read as growth: %+v", f)
	}
	// A slow rise well inside the scatter is not growth beyond noise either.
	f = fitLine(series(300, 0.5, 10), func(s sample) float64 { return s.rssMB })
	if f.grows(10 * time.Minute) {
		t.Fatalf("5 MB over ten minutes inside ±30 MB of scatter read as growth: %+v", f)
	}
	// A rise of 20 MB a minute is growth, sawtooth or not.
	f = fitLine(series(300, 20, 10), func(s sample) float64 { return s.rssMB })
	if !f.grows(10 * time.Minute) {
		t.Fatalf("200 MB over ten minutes read as noise: %+v", f)
	}
}

func TestFitLineSkipsMissingValues(t *testing.T) {
	ss := series(100, 1, 0)
	ss[3].rssMB = math.NaN()
	if f := fitLine(ss, func(s sample) float64 { return s.rssMB }); f.n != 119 || math.Abs(f.slope-1) > 1e-9 {
		t.Fatalf("a missing sample: %+v", f)
	}
	if f := fitLine(ss[:2], func(s sample) float64 { return s.rssMB }); f.grows(time.Minute) {
		t.Fatal("two samples are no line")
	}
}

// goroutines and heapGoal read serve's pprof text; NaN when it does not
// answer.
func TestPprofReads(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path + "?" + r.URL.RawQuery {
		case "/debug/pprof/goroutine?debug=1":
			fmt.Fprint(w, "goroutine profile: total 42\n1 @ 0x1\n")
		case "/debug/pprof/heap?debug=1":
			fmt.Fprint(w, "heap profile: 1: 2 [3: 4] @ heap/1048576\n# runtime.MemStats\n# NextGC = 8388608\n")
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	if n := goroutines(addr); n != 42 {
		t.Errorf("goroutines = %v, want 42", n)
	}
	if mb := heapGoal(addr); mb != 8 {
		t.Errorf("heapGoal = %v MB, want 8", mb)
	}
	srv.Close()
	if n, mb := goroutines(addr), heapGoal(addr); !math.IsNaN(n) || !math.IsNaN(mb) {
		t.Errorf("a closed endpoint gave %v goroutines and %v MB, want NaN", n, mb)
	}
}
