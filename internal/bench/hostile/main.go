// Command hostile measures how the sandbox holds up against plugins that
// try to outlive their deadline, and prints a markdown section for
// BENCHMARKS.md: (a) the latency of a cheap call, and of a full GC, while 4
// hostile plugins spin, against the same when idle; (b) for each hostile
// class, how long after its deadline the call's error arrives. The hostile
// modules are the hand-built ones in sandbox/testdata/hostile (see
// sandbox/hostile_test.go); the cheap call is sandbox/testdata/misbehave's
// echo with 1 KB.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/wasmwright/wasmwright/internal/bench/benchflag"
	"github.com/wasmwright/wasmwright/internal/bench/measure"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
	"github.com/wasmwright/wasmwright/sandbox"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func main() {
	benchflag.Unused()
	iters := flag.Int("n", 200, "cheap calls per measurement")
	deadline := flag.Duration("deadline", time.Second, "call deadline for the lateness measurements")
	only := flag.String("spinners", "", "comma-separated hostile modules to spin in (a); default loop,calltree,memfill,simd")
	skipB := flag.Bool("skip-lateness", false, "measure (a) only")
	flag.Parse()
	cache := measure.Must(os.MkdirTemp("", "ww-bench-hostile-"))
	defer os.RemoveAll(cache)
	ctx := context.Background()

	fmt.Println("## Hostile plugins")
	fmt.Println()
	fmt.Printf("`go -C internal/bench run ./hostile` (%s, %d CPUs, %s). Hostile modules: `sandbox/testdata/hostile` (hand-built: a plain loop, a SIMD loop, a tree of 2^64 calls with no loop, unbounded recursion, a loop of 120 MiB `memory.fill`); the sleep is a Go plugin's `time.Sleep(30 s)`. Deadlines are enforced by fuel (function entries, loop headers, bulk operations) and by the sleep hook.\n\n",
		runtime.Version(), runtime.NumCPU(), time.Now().UTC().Format("2006-01-02"))

	// (a) A cheap call and a GC while 4 hostile plugins spin.
	e := engine(cache, 60*time.Second)
	good := measure.Must(e.Load(ctx, "misbehave", measure.Must(wasmbuild.Bytes("sandbox/testdata/misbehave")), ""))
	in := measure.Must(abi.Frame(abi.CallHeader{Tool: "echo"}, []byte(`{"text":"`+strings.Repeat("a", 1013)+`"}`)))
	cheap := func() {
		if _, err := good.Call(ctx, abi.OpCall, in); err != nil {
			log.Fatal(err)
		}
	}
	// runtime.GC's wall time, and its stop-the-world pauses: the freeze
	// every goroutine of the host would feel.
	var pauses []time.Duration
	gc := func() {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		before := ms.NumGC
		runtime.GC()
		runtime.ReadMemStats(&ms)
		for n := before + 1; n <= ms.NumGC; n++ {
			pauses = append(pauses, time.Duration(ms.PauseNs[(n+255)%256]))
		}
	}
	idleCall, idleGC := measure.Median(*iters, cheap), measure.Median(20, gc)
	idlePause := maxOf(pauses)
	pauses = nil
	spinners := []string{"loop", "calltree", "memfill", "simd"}
	if *only != "" {
		spinners = strings.Split(*only, ",")
	}
	actx, stop := context.WithCancel(ctx)
	var wg, started sync.WaitGroup
	for _, name := range spinners {
		p := measure.Must(e.Load(ctx, name, hostile(name), ""))
		x := measure.Must(abi.Frame(abi.CallHeader{Tool: "x"}, []byte(`{}`)))
		wg.Add(1)
		started.Add(1)
		go func() {
			defer wg.Done()
			started.Done()
			// Each call spins until its 60 s deadline or stop().
			for actx.Err() == nil {
				p.Call(actx, abi.OpCall, x)
			}
		}()
	}
	started.Wait()
	attackCall, attackGC := measure.Median(*iters, cheap), measure.Median(20, gc)
	attackPause := maxOf(pauses)
	stop()
	wg.Wait()
	fmt.Printf("| while 4 hostile plugins spin (%s) | idle | under attack | ratio |\n|---|---|---|---|\n", strings.Join(spinners, ", "))
	fmt.Printf("| cheap call (echo 1 KB), median of %d | %s | %s | %.1fx |\n", *iters, measure.D(idleCall), measure.D(attackCall), measure.Ratio(attackCall, idleCall))
	fmt.Printf("| `runtime.GC()` stop-the-world pause, longest of 20 GCs | %s | %s | %.1fx |\n", measure.D(idlePause), measure.D(attackPause), measure.Ratio(attackPause, idlePause))
	fmt.Printf("| `runtime.GC()` wall time, median of 20 | %s | %s | %.1fx |\n\n", measure.D(idleGC), measure.D(attackGC), measure.Ratio(attackGC, idleGC))
	fmt.Printf("The spinners hold both CPUs until their 60 s deadline; the Go scheduler takes a CPU back from one at its next fuel tick. `runtime.GC()` itself sweeps with a `Gosched` per span, so with more spinning goroutines than CPUs its wall time is mostly waiting for a turn, while the world stops only for the pauses above.\n\n")

	if *skipB {
		return
	}
	// (b) Time from the deadline to the call's error, per class.
	fmt.Printf("Deadline %s; each class run 3 times, median shown. \"Late by\" is the time from the deadline to the error reaching the caller.\n\n", *deadline)
	fmt.Println("| hostile class | error | late by |")
	fmt.Println("|---|---|---|")
	de := engine(cache, *deadline)
	nap := measure.Must(de.Load(ctx, "misbehave", measure.Must(wasmbuild.Bytes("sandbox/testdata/misbehave")), ""))
	classes := []struct {
		name, label string
		p           *sandbox.Plugin
		in          []byte
	}{
		{"loop", "loop (`br 0` forever)", nil, nil},
		{"simd", "SIMD loop", nil, nil},
		{"calltree", "2^64 call tree, no loop", nil, nil},
		{"recursion", "unbounded recursion", nil, nil},
		{"memfill", "loop of 120 MiB memory.fill", nil, nil},
		{"memcopy", "loop of 120 MiB memory.copy", nil, nil},
		{"sleep", "Go `time.Sleep(30 s)` (WASI poll_oneoff)", nap, measure.Must(abi.Frame(abi.CallHeader{Tool: "nap"}, []byte(`{"ms":30000}`)))},
	}
	for _, c := range classes {
		p, call := c.p, c.in
		if p == nil {
			p = measure.Must(de.Load(ctx, c.name, hostile(c.name), ""))
			call = measure.Must(abi.Frame(abi.CallHeader{Tool: "x"}, []byte(`{}`)))
		}
		var lates []time.Duration
		var code abi.Code
		for i := 0; i < 3; i++ {
			t0 := time.Now()
			_, err := p.Call(ctx, abi.OpCall, call)
			lates = append(lates, time.Since(t0)-*deadline)
			code = abi.AsError(err).Code
			if err == nil {
				code = "none (succeeded)"
			}
		}
		late := measure.Med(lates)
		ls := measure.D(late)
		if late < 0 {
			ls = fmt.Sprintf("stopped %s before the deadline", measure.D(-late))
		}
		fmt.Printf("| %s | `%s` | %s |\n", c.label, code, ls)
	}
	fmt.Println()
}

func hostile(name string) []byte {
	return measure.Must(os.ReadFile(filepath.Join(wasmbuild.Root(), "sandbox", "testdata", "hostile", name+".wasm")))
}

func engine(cache string, timeout time.Duration) *sandbox.Engine {
	return measure.Must(sandbox.NewEngine(sandbox.Config{CacheDir: cache, Timeout: timeout, PoolSize: 8, Logger: quiet, HostFuncs: []sandbox.HostFunc{
		{Name: abi.HostEventsEmit, Fn: func(context.Context, string, []byte) ([]byte, error) { return []byte(`{}`), nil }},
		{Name: abi.HostInfo, Fn: func(context.Context, string, []byte) ([]byte, error) { return []byte(`{}`), nil }},
	}}))
}

func maxOf(ds []time.Duration) time.Duration {
	var m time.Duration
	for _, x := range ds {
		m = max(m, x)
	}
	return m
}
