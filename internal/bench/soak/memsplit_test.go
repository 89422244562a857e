package main

import (
	"math"
	"strings"
	"testing"
	"time"
)

// An excerpt of serve's smaps: the binary, the Go heap's arena (no nr),
// two plugin memories (MAP_NORESERVE: nr), compiled code (anonymous,
// executable) and a file mapping.
const smapsExcerpt = `00400000-00d5d000 r-xp 00000000 08:01 123 /work/build/wasmwright
Rss:               12532 kB
VmFlags: rd ex mr mw me
24c881800000-24c889400000 rw-p 00000000 00:00 0
Rss:              104448 kB
VmFlags: rd wr mr mw me ac
7fc5b0000000-7fc5d0000000 rw-p 00000000 00:00 0
Size:             524288 kB
Rss:                3072 kB
VmFlags: rd wr mr mw me nr
7fc5e8000000-7fc618000000 rw-p 00000000 00:00 0
Rss:               17408 kB
VmFlags: rd wr mr mw me nr
7fc6d5e09000-7fc6d6e09000 r-xp 00000000 00:00 0
Rss:               16384 kB
VmFlags: rd ex mr mw me ac
7fc6ec269000-7fc6ec369000 rw-p 00000000 08:01 77 /tmp/cache/file
Rss:                1024 kB
VmFlags: rd wr mr mw me nr
`

func TestSplitSmaps(t *testing.T) {
	p := splitSmaps(strings.NewReader(smapsExcerpt))
	want := memParts{pluginMB: 20, pluginReservedMB: 512 + 768, codeMB: 16}
	if p != want {
		t.Fatalf("got %+v, want %+v", p, want)
	}
}

func TestNextGC(t *testing.T) {
	text := "heap profile: 1: 2 [3: 4] @ heap/1048576\n# runtime.MemStats\n# Alloc = 1\n# NextGC = 94371840\n# LastGC = 5\n"
	if got := nextGC(strings.NewReader(text)); got != 90 {
		t.Fatalf("NextGC 94371840 bytes: got %v MB, want 90", got)
	}
	if got := nextGC(strings.NewReader("no stats\n")); !math.IsNaN(got) {
		t.Fatalf("no NextGC line: got %v, want NaN", got)
	}
}

// tenMinutes is a soak's samples every 5 s for ten minutes, serve's RSS
// outside the plugins' memories given by rss(minutes), with a sawtooth of
// ±9 MB (a collected heap).
func tenMinutes(rss func(min float64) float64) *report {
	r := &report{t: newTally(), worked: 10 * time.Minute}
	for i := range 121 {
		at := time.Duration(i) * 5 * time.Second
		r.samples = append(r.samples, sample{at: at, rssMB: rss(at.Minutes()) + 3*float64(i%7-3), heapGoalMB: 90})
	}
	return r
}

// A heap that rises to its level in three minutes and holds is not judged
// growing: fitted from the first minute (as before), its line rose about
// 3 MB a minute, beyond its noise.
func TestSettledHeapIsNotGrowth(t *testing.T) {
	r := tenMinutes(func(m float64) float64 { return 150 + 20*min(m, 3) })
	if g := r.growing(); len(g) != 0 {
		t.Fatalf("a heap that settled at 3 minutes read as growing: %v (window from %s)", g, r.steady()[0].at)
	}
}

// Growth that goes on after the warm-up is still found.
func TestGrowthAfterWarmUpIsFound(t *testing.T) {
	r := tenMinutes(func(m float64) float64 { return 150 + 4*m })
	g := r.growing()
	if len(g) != 1 || g[0] != "serve RSS outside plugin memories" {
		t.Fatalf("4 MB a minute for ten minutes: growing %v, want serve RSS outside plugin memories", g)
	}
}
