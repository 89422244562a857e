package sandbox

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/testkit"
)

// echoNative is the misbehave plugin's echo tool in native Go: the peer
// the sandboxed call is compared with.
func echoNative(in []byte) []byte {
	var h abi.CallHeader
	args, _ := abi.Unframe(in, &h)
	out := make([]byte, 0, len(args)+9)
	out = append(out, `{"data":`...)
	out = append(out, args...)
	return append(out, '}')
}

func payload(n int) []byte {
	return []byte(`{"text":"` + strings.Repeat("a", n-11) + `"}`)
}

// BenchmarkRoundTrip measures one tool call through the sandbox (deadline
// and memory limit on) against the same logic in native Go.
func BenchmarkRoundTrip(b *testing.B) {
	for _, size := range []int{1 << 10, 100 << 10} {
		in, _ := abi.Frame(abi.CallHeader{Tool: "echo"}, payload(size))
		name := fmt.Sprintf("%dKB", size>>10)
		b.Run("native/"+name, func(b *testing.B) {
			b.SetBytes(int64(size))
			for i := 0; i < b.N; i++ {
				echoNative(in)
			}
		})
		for _, mode := range []struct {
			name   string
			extism bool
		}{{"fast", false}, {"extism-kernel", true}} {
			b.Run(mode.name+"/"+name, func(b *testing.B) {
				e := engine(b, Config{ExtismABIOnly: mode.extism, Timeout: 10 * time.Second, MemoryPages: 2048})
				p := load(b, e, "sandbox/testdata/misbehave")
				ctx := context.Background()
				if _, err := p.Call(ctx, abi.OpCall, in); err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(size))
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if _, err := p.Call(ctx, abi.OpCall, in); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkColdStart measures load (compile or cache hit) plus the first
// call, with a warm on-disk cache and without one.
func BenchmarkColdStart(b *testing.B) {
	wasm := build(b, "examples/extract_links")
	in, _ := abi.Frame(abi.CallHeader{Tool: "extract_links"}, []byte(`{"html":"<a href=/x>x</a>"}`))
	for _, warm := range []bool{false, true} {
		b.Run(map[bool]string{false: "no-cache", true: "warm-cache"}[warm], func(b *testing.B) {
			dir := b.TempDir()
			if warm {
				e := engine(b, Config{CacheDir: dir})
				p, err := e.Load(context.Background(), "x", wasm, "")
				if err != nil {
					b.Fatal(err)
				}
				p.Retire(context.Background())
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				cdir := dir
				if !warm {
					b.StopTimer()
					cdir = b.TempDir()
					b.StartTimer()
				}
				e := engine(b, Config{CacheDir: cdir, HostFuncs: stubEvents()})
				p, err := e.Load(context.Background(), "x", wasm, "")
				if err != nil {
					b.Fatal(err)
				}
				if _, err := p.Call(context.Background(), abi.OpCall, in); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				p.Retire(context.Background())
				b.StartTimer()
			}
		})
	}
}

// BenchmarkIdleInstanceMemory reports the Go heap held per idle instance.
func BenchmarkIdleInstanceMemory(b *testing.B) {
	const n = 16
	e := engine(b, Config{PoolSize: n})
	p := load(b, e, "examples/extract_links")
	for i := 0; i < b.N; i++ {
		held, err := testkit.HeapHeld(func() error { return p.Warm(context.Background(), n) })
		if err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(held)/n/(1<<20), "MiB/instance")
		b.StopTimer()
		p.closeIdle()
		b.StartTimer()
	}
}

func stubEvents() []HostFunc {
	return []HostFunc{{Name: abi.HostEventsEmit, Fn: func(context.Context, string, []byte) ([]byte, error) { return []byte(`{}`), nil }}}
}
