// Command pluginmem measures the host's memory while plugins allocate
// through Extism's kernel at once (issue 33, "memory across concurrent
// calls"): -n concurrent calls of sandbox/testdata/kernelalloc at
// -memory-mb, each touching -kernel-mb MiB of kernel blocks, held together
// in a host function (until all are in, or none came in for a second: a
// budget may admit fewer) and then released, for -rounds bursts. It prints
// the process's RSS before the first burst, its peak over each burst
// (VmHWM, reset before it through /proc/self/clear_refs) and what stays
// after it returned (VmRSS after a GC and FreeOSMemory), with the
// instances alive then.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
	"github.com/wasmwright/wasmwright/sandbox"
)

func main() {
	n := flag.Int("n", 7, "concurrent calls")
	memMB := flag.Int("memory-mb", 128, "memory_mb of each instance")
	kernelMB := flag.Int("kernel-mb", 110, "MiB each call allocates through the kernel")
	ownMB := flag.Int("own-mb", 0, "MiB each call allocates in its own memory")
	budgetMB := flag.Int("budget-mb", 0, "host-wide budget (max_plugin_memory_mb); 0: the default")
	rounds := flag.Int("rounds", 2, "bursts")
	flag.Parse()

	var in atomic.Int64
	entered := make(chan struct{}, 1024)
	var gate sync.Mutex
	release := make(chan struct{})
	hold := func(ctx context.Context, _ string, _ []byte) ([]byte, error) {
		in.Add(1)
		defer in.Add(-1)
		entered <- struct{}{}
		gate.Lock()
		r := release
		gate.Unlock()
		select {
		case <-r:
		case <-ctx.Done():
		}
		return []byte(`{}`), nil
	}
	cache, err := os.MkdirTemp("", "ww-bench-pluginmem-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(cache)
	cfg := sandbox.Config{CacheDir: cache, MemoryPages: uint32(*memMB * 16), Timeout: 5 * time.Minute,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), HostFuncs: []sandbox.HostFunc{{Name: abi.HostInfo, Fn: hold}}}
	setBudget(&cfg, *budgetMB)
	eng, err := sandbox.NewEngine(cfg)
	if err != nil {
		log.Fatal(err)
	}
	wasm, err := wasmbuild.Bytes("sandbox/testdata/kernelalloc")
	if err != nil {
		log.Fatal(err)
	}
	p, err := eng.Load(context.Background(), "kernelalloc", wasm, "")
	if err != nil {
		log.Fatal(err)
	}
	settle()
	fmt.Printf("calls %d at once, memory_mb %d, each %d MiB of its own and %d MiB through the kernel, budget %s\n", *n, *memMB, *ownMB, *kernelMB, budgetName(*budgetMB))
	fmt.Printf("RSS before: %d MB\n", status("VmRSS")>>10)
	for r := 1; r <= *rounds; r++ {
		resetPeak()
		var wg sync.WaitGroup
		var failed atomic.Int64
		var firstErr atomic.Value
		for i := 0; i < *n; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				args := fmt.Sprintf(`{"own_mb":%d,"kernel_mb":%d}`, *ownMB, *kernelMB)
				frame, _ := abi.Frame(abi.CallHeader{Tool: "hold", Session: "s"}, []byte(args))
				if _, err := p.Call(context.Background(), abi.OpCall, frame); err != nil {
					failed.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
				}
			}()
		}
		done := make(chan struct{})
		go func() { wg.Wait(); close(done) }()
		// Release the held calls once all are in, or none came in for a
		// second; keep releasing the later ones as they come.
		got, maxIn := 0, int64(0)
		for got < *n {
			select {
			case <-entered:
				got++
				maxIn = max(maxIn, in.Load())
				continue
			case <-done:
			case <-time.After(time.Second):
			}
			gate.Lock()
			close(release)
			release = make(chan struct{})
			gate.Unlock()
			if isDone(done) {
				break
			}
		}
		gate.Lock()
		close(release)
		release = make(chan struct{})
		gate.Unlock()
		<-done
		peak := status("VmHWM")
		settle()
		fmt.Printf("round %d: failed %d of %d%s; at most %d held at once; peak RSS %d MB; kept RSS %d MB; instances alive after: %d\n",
			r, failed.Load(), *n, errText(firstErr.Load()), maxIn, peak>>10, status("VmRSS")>>10, p.Instances())
	}
}

func isDone(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

func errText(v any) string {
	if v == nil {
		return ""
	}
	s := v.(string)
	if len(s) > 160 {
		s = s[:160] + "..."
	}
	return " (" + s + ")"
}

func budgetName(mb int) string {
	if mb == 0 {
		return "default"
	}
	return fmt.Sprintf("%d MiB", mb)
}

// settle gives the Go heap's garbage back, so RSS shows what is held.
func settle() {
	runtime.GC()
	debug.FreeOSMemory()
}

// resetPeak resets VmHWM to the current RSS (Linux 4.0+).
func resetPeak() {
	if err := os.WriteFile("/proc/self/clear_refs", []byte("5"), 0); err != nil {
		log.Printf("peak not reset: %v", err)
	}
}

// status reads a kB field of /proc/self/status.
func status(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		log.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, field+":"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), &kb)
			return kb
		}
	}
	return 0
}
