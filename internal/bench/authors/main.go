// Command authors measures what a plugin author's language choice costs
// the host and prints a markdown section for BENCHMARKS.md: the size of
// the Go and AssemblyScript examples and their load time (validate,
// instrument, compile, instantiate, describe), cold (an empty compilation
// cache) and cached (a new engine over a warm cache folder).
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"runtime"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/capability"
	"github.com/wasmwright/wasmwright/internal/bench/benchflag"
	"github.com/wasmwright/wasmwright/internal/bench/measure"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
	"github.com/wasmwright/wasmwright/sandbox"
)

func main() {
	n := flag.Int("n", 7, "loads per measurement")
	benchflag.Unused()
	flag.Parse()
	fmt.Println("## Plugin authors: Go and AssemblyScript")
	fmt.Println()
	fmt.Printf("`go -C internal/bench run ./authors` (%s, %d CPUs, %s). Medians of %d loads of each example as the tests build it; a load validates, instruments, compiles, instantiates and runs `describe`. Cold: an empty compilation cache folder each time; cached: a new engine over a cache folder a first load filled.\n\n",
		runtime.Version(), runtime.NumCPU(), time.Now().UTC().Format("2006-01-02"), *n)
	fmt.Println("| plugin | language | .wasm size | load, cold | load, cached |")
	fmt.Println("|---|---|---|---|---|")
	for _, ex := range []struct{ dir, lang string }{{"examples/extract_links", "Go"}, {"examples/page_title", "AssemblyScript"}} {
		wasm := measure.Must(wasmbuild.Bytes(ex.dir))
		cold := measure.Median(*n, func() {
			dir := measure.Must(os.MkdirTemp("", "ww-bench-authors-"))
			defer os.RemoveAll(dir)
			load(dir, wasm)
		})
		warm := measure.Must(os.MkdirTemp("", "ww-bench-authors-"))
		load(warm, wasm)
		cached := measure.Median(*n, func() { load(warm, wasm) })
		os.RemoveAll(warm)
		fmt.Printf("| %s | %s | %s | %s | %s |\n", ex.dir, ex.lang, size(len(wasm)), measure.D(cold), measure.D(cached))
	}
}

// load loads wasm in a new engine over the cache folder dir, then retires it.
func load(dir string, wasm []byte) {
	var funcs []sandbox.HostFunc
	for _, hf := range capability.HostFuncs() {
		if hf[0] != abi.ImportHostTake && hf[0] != abi.ImportLog {
			funcs = append(funcs, sandbox.HostFunc{Name: hf[0], Fn: func(context.Context, string, []byte) ([]byte, error) { return []byte(`{}`), nil }})
		}
	}
	e := measure.Must(sandbox.NewEngine(sandbox.Config{CacheDir: dir, HostFuncs: funcs, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	p := measure.Must(e.Load(context.Background(), "bench", wasm, ""))
	p.Retire(context.Background())
	e.Close(context.Background())
}

func size(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
}
