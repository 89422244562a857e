// Package spans times the steps of a call, for finding where its time
// goes: with WASMWRIGHT_SPANS naming a file ({pid} in it: the process's
// id), each span's end appends a line
// "name<TAB>microseconds" to it (internal/bench's ./spans sums them).
// Unset, a span costs one branch. It is a measuring aid, not a metric:
// nothing reads it back in the product.
package spans

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

var (
	mu  sync.Mutex
	out *os.File
)

func init() {
	if p := os.Getenv("WASMWRIGHT_SPANS"); p != "" {
		// {pid} in the name gives each process its file: two servers of
		// one benchmark run (today's and an older build) kept apart.
		p = strings.ReplaceAll(p, "{pid}", strconv.Itoa(os.Getpid()))
		if f, err := os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
			out = f
		}
	}
}

// On reports whether spans are written.
func On() bool { return out != nil }

func nop() {}

// Start begins the span name; the function it returns ends it.
func Start(name string) func() {
	if out == nil {
		return nop
	}
	t0 := time.Now()
	return func() { write(name, time.Since(t0)) }
}

// Mark writes a line with no duration (a call's boundary, say).
func Mark(name string) {
	if out != nil {
		write(name, 0)
	}
}

func write(name string, d time.Duration) {
	mu.Lock()
	defer mu.Unlock()
	fmt.Fprintf(out, "%s\t%d\n", name, d.Microseconds())
}
