// Command kernel measures the plugin kernel (issue: the plugin kernel) and
// prints a markdown section for BENCHMARKS.md: the cost of one plugin call
// for 1 KB and 100 KB inputs against the same logic in native Go, through
// the fast path and through the Extism kernel; cold start with a warm
// compilation cache and without; memory per idle instance.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/wasmwright/wasmwright/internal/bench/measure"
	"github.com/wasmwright/wasmwright/internal/testkit"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
	"github.com/wasmwright/wasmwright/sandbox"
)

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

func main() {
	iters := flag.Int("n", 400, "calls per measurement")
	flag.Parse()
	misbehave := measure.Must(wasmbuild.Bytes("sandbox/testdata/misbehave"))
	links := measure.Must(wasmbuild.Bytes("examples/extract_links"))
	cache := measure.Must(os.MkdirTemp("", "ww-bench-cache-"))
	defer os.RemoveAll(cache)

	fmt.Println("## Plugin kernel")
	fmt.Println()
	fmt.Printf("`go -C internal/bench run ./kernel` (%s, %d CPUs, %s). Medians of %d calls; deadline (60 s) and memory limit (128 MiB) on. The plugin is `sandbox/testdata/misbehave`'s `echo` tool (frame in, `{\"data\":<args>}` out); the native peer runs the same Go code in-process.\n\n",
		runtime.Version(), runtime.NumCPU(), time.Now().UTC().Format("2006-01-02"), *iters)
	fmt.Println("Columns: the shipped path (`ww_call` fast path, deadlines by fuel at function entries, loop headers and bulk operations); the fast path with wazero's close-on-context-done at loop headers instead of loop fuel (function entries and bulk operations still charged); the Extism kernel path (no fast path; loops as in the previous column). `echo` moves the bytes; `validate` also scans them (`json.Valid` inside the plugin).")
	fmt.Println()
	fmt.Println("| call | native Go | **wasmwright** | ratio | fast path, close-on-ctx-done | ratio | Extism kernel path | ratio |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	pf := measure.Must(engine(cache, false, false).Load(context.Background(), "misbehave", misbehave, ""))
	pc := measure.Must(engine(cache, false, true).Load(context.Background(), "misbehave", misbehave, ""))
	ps := measure.Must(engine(cache, true, true).Load(context.Background(), "misbehave", misbehave, ""))
	for _, c := range []struct {
		tool   string
		size   int
		native func([]byte)
	}{
		{"echo", 1 << 10, func(in []byte) { echoNative(in) }},
		{"echo", 100 << 10, func(in []byte) { echoNative(in) }},
		{"validate", 100 << 10, func(in []byte) { validateNative(in) }},
	} {
		in := measure.Must(abi.Frame(abi.CallHeader{Tool: c.tool}, []byte(`{"text":"`+strings.Repeat("a", c.size-11)+`"}`)))
		nat := measure.Median(*iters*10, func() { c.native(in) })
		f := measure.Median(*iters, func() { call(pf, in) })
		n := *iters
		if c.size > 10<<10 {
			n = max(*iters/10, 20)
		}
		cc := measure.Median(n, func() { call(pc, in) })
		s := measure.Median(n, func() { call(ps, in) })
		fmt.Printf("| %s %d KB | %s | **%s** | %.1fx | %s | %.1fx | %s | %.1fx |\n", c.tool, c.size>>10, measure.D(nat), measure.D(f), measure.Ratio(f, nat), measure.D(cc), measure.Ratio(cc, nat), measure.D(s), measure.Ratio(s, nat))
	}
	fmt.Println()

	// Cold start: host start (config, compile or cache hit, describe, link)
	// to the first tool call served.
	plugins := measure.Must(os.MkdirTemp("", "ww-bench-plugins-"))
	defer os.RemoveAll(plugins)
	os.WriteFile(filepath.Join(plugins, "extract_links.wasm"), links, 0o644)
	if err := wasmbuild.Pin(plugins); err != nil {
		log.Fatal(err)
	}
	cold := func(cacheDir string) time.Duration {
		t0 := time.Now()
		cfg := measure.Must(host.ParseConfig(fmt.Sprintf(`
[host]
plugins_dir = %q
cache_dir = %q
[plugins.extract_links]
[personalities.p]
plugins = ["extract_links"]
tools = ["*"]
grants = ["events"]
`, plugins, cacheDir), "bench", plugins))
		h := measure.Must(host.New(context.Background(), cfg, host.Options{NoBrowser: true, Logger: quiet}))
		if _, err := h.Call(context.Background(), host.Request{Personality: "p", Tool: "extract_links", Args: json.RawMessage(`{"html":"<a href=/x>x</a>"}`)}); err != nil {
			log.Fatal(err)
		}
		el := time.Since(t0)
		h.Close(context.Background())
		return el
	}
	var noCache, warm []time.Duration
	warmDir := measure.Must(os.MkdirTemp("", "ww-bench-warm-"))
	defer os.RemoveAll(warmDir)
	cold(warmDir)
	for i := 0; i < 5; i++ {
		dir := measure.Must(os.MkdirTemp("", "ww-bench-nocache-"))
		noCache = append(noCache, cold(dir))
		os.RemoveAll(dir)
		warm = append(warm, cold(warmDir))
	}
	fmt.Println("| cold start: host start to first call served (extract_links) | median of 5 |")
	fmt.Println("|---|---|")
	fmt.Printf("| no compilation cache | %s |\n| warm compilation cache | %s (%.0fx faster) |\n\n", measure.D(measure.Med(noCache)), measure.D(measure.Med(warm)), measure.Ratio(measure.Med(noCache), measure.Med(warm)))

	// Memory per idle instance: Go heap and stacks held, linear memory
	// included (wazero keeps it in Go-managed memory).
	pl := measure.Must(engine(cache, false, false).Load(context.Background(), "extract_links", links, ""))
	const n = 16
	held, err := testkit.HeapHeld(func() error { return pl.Warm(context.Background(), n) })
	if err != nil {
		log.Fatal(err)
	}
	per := float64(held) / n / (1 << 20)
	fmt.Printf("Memory per idle instance (extract_links, %d instances, after its first call): %.1f MiB of Go heap.\n\n", n, per)
}

func engine(cache string, extismOnly, noFuel bool) *sandbox.Engine {
	return measure.Must(sandbox.NewEngine(sandbox.Config{CacheDir: cache, ExtismABIOnly: extismOnly, NoLoopFuel: noFuel, PoolSize: 32, Logger: quiet, HostFuncs: []sandbox.HostFunc{
		{Name: abi.HostEventsEmit, Fn: func(context.Context, string, []byte) ([]byte, error) { return []byte(`{}`), nil }},
		{Name: abi.HostInfo, Fn: func(context.Context, string, []byte) ([]byte, error) { return []byte(`{}`), nil }},
		{Name: abi.HostSecretsMaskValues, Fn: func(context.Context, string, []byte) ([]byte, error) { return []byte(`{}`), nil }},
		{Name: abi.HostNetworkFetch, Fn: func(context.Context, string, []byte) ([]byte, error) { return []byte(`{}`), nil }},
	}}))
}

func call(p *sandbox.Plugin, in []byte) {
	if _, err := p.Call(context.Background(), abi.OpCall, in); err != nil {
		log.Fatal(err)
	}
}

func echoNative(in []byte) []byte {
	var h abi.CallHeader
	args, _ := abi.Unframe(in, &h)
	out := make([]byte, 0, len(args)+9)
	out = append(out, `{"data":`...)
	out = append(out, args...)
	return append(out, '}')
}

func validateNative(in []byte) bool {
	var h abi.CallHeader
	args, _ := abi.Unframe(in, &h)
	return json.Valid(args)
}
