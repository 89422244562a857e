package blockdetect_test

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
)

// Synthetic pages for the cost figures, each grown to about n bytes.
// "article" is an ordinary page (text and links): reading stops once it
// holds more than any wall. The others hold little visible text however
// long they are, so the whole document is read and scanned: the worst
// case, and the one that shows whether the cost stays linear.
var benchShapes = []struct {
	name string
	make func(n int) string
}{
	{"article", func(n int) string {
		return grow(`<!DOCTYPE html><html><head><title>News</title><script src="/_Incapsula_Resource?SWJIYLWA=1"></script></head><body>`,
			`<p>The council voted on Tuesday to extend the river path north of the old mill, <a href="/more">read more</a>.</p>`+"\n", n,
			`<script src="/cdn-cgi/l/chk_captcha_v3?render=x"></script></body></html>`)
	}},
	{"app-shell-script", func(n int) string {
		// one huge inline bundle, full of '<', quotes and "</" that are not tags
		return grow(`<!DOCTYPE html><html><head><title>App</title><script>`,
			`function f(a,b){if(a<b&&b>0){return "<div class='x'>"+a+"</"+"div>"}var s='</scr'+'ipt>';return s}`+"\n", n,
			`</script></head><body><div id="root"></div></body></html>`)
	}},
	{"markup-soup", func(n int) string {
		// many elements, next to no text: the built haystack is the document
		return grow(`<html><head><title>Grid</title></head><body>`,
			`<div class="cell" data-id="42" style="display:flex"><span class="icon"></span><img src="/i.png" alt=""></div>`+"\n", n,
			`</body></html>`)
	}},
	{"wall-after-filler", func(n int) string {
		return grow(`<html><head><title>Loading</title></head><body><!-- `,
			"padding so the marker sits far into the document. ", n,
			` --><script>window._cf_chl_opt={cType: 'managed'}</script></body></html>`)
	}},
	{"hostile-angles", func(n int) string {
		// unclosed tags, lone angles and nested hidden elements
		return grow(`<html><body>`, `<div hidden><a <b < <!x </ <div style="display:none"> `, n, `</body></html>`)
	}},
}

func grow(head, unit string, n int, tail string) string {
	var b strings.Builder
	b.WriteString(head)
	for b.Len()+len(tail) < n {
		b.WriteString(unit)
	}
	b.WriteString(tail)
	return b.String()
}

var benchSizes = []int{100 << 10, 1 << 20, 5 << 20}

func sizeName(n int) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%dMB", n>>20)
	}
	return fmt.Sprintf("%dKB", n>>10)
}

// detectDoc runs the hook on doc as the host sends it (a raw frame, status
// 200, no rendered text): the cost an agent waits for, sandbox included.
func detectDoc(tb testing.TB, doc string) {
	req := nav(abi.Page{URL: "https://bench.test/", Status: 200, HTML: doc}, false)
	in, err := abi.EncodeHookRequest(&req, true)
	if err != nil {
		tb.Fatal(err)
	}
	callHook(tb, plugin(tb), in)
}

// BenchmarkDetect is the detector's cost through the sandbox, per shape
// and size; MB/s is document bytes per second.
func BenchmarkDetect(b *testing.B) {
	for _, s := range benchShapes {
		for _, n := range benchSizes {
			doc := s.make(n)
			b.Run(s.name+"/"+sizeName(n), func(b *testing.B) {
				b.SetBytes(int64(len(doc)))
				for i := 0; i < b.N; i++ {
					detectDoc(b, doc)
				}
			})
		}
	}
}

// BenchmarkDetectCorpus runs the largest pages of the shared corpus.
func BenchmarkDetectCorpus(b *testing.B) {
	dir := os.Getenv("WASMWRIGHT_CORPUS")
	if dir == "" {
		dir = filepath.Join("..", "..", "..", "shared", "corpus")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "pages", "*.html"))
	if len(files) == 0 {
		b.Skip("the shared corpus is absent")
	}
	sort.Slice(files, func(i, j int) bool { return fileSize(files[i]) > fileSize(files[j]) })
	for _, f := range files[:5] {
		doc := string(must(os.ReadFile(f)))
		b.Run(strings.TrimSuffix(filepath.Base(f), ".html"), func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			for i := 0; i < b.N; i++ {
				detectDoc(b, doc)
			}
		})
	}
}

func fileSize(f string) int64 {
	st, err := os.Stat(f)
	if err != nil {
		return 0
	}
	return st.Size()
}

// TestCostIsLinear: for every shape, a 5 MB page costs about five times a
// 1 MB one, not the 25 times of a quadratic reading. It counts the test
// process's processor time (the sandbox runs the plugin on the calling
// goroutine; nothing else of this package runs meanwhile), which a busy
// machine disturbs less than wall time; still, a shape fails only if it
// measures past 12 three times.
func TestCostIsLinear(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test")
	}
	// the module built, compiled and warm before anything is timed
	detectDoc(t, benchShapes[0].make(1<<10))
	// the processor time of 5 runs (the clock ticks in milliseconds)
	best := func(doc string) time.Duration {
		d := processCPU(func() {
			for i := 0; i < 5; i++ {
				detectDoc(t, doc)
			}
		})
		return max(d, time.Millisecond)
	}
	for _, s := range benchShapes {
		small, large := s.make(1<<20), s.make(5<<20)
		var ratios []string
		for try := 0; ; try++ {
			a, b := best(small), best(large)
			ratio := float64(b) / float64(a)
			ratios = append(ratios, fmt.Sprintf("%v vs %v: %.1f", a, b, ratio))
			if ratio <= 12 || b < 20*time.Millisecond {
				break
			}
			if try == 2 {
				t.Errorf("%s: 5 MB against 1 MB, three times past 12 (%s): not linear", s.name, strings.Join(ratios, "; "))
				break
			}
		}
		t.Logf("%s: 1 MB vs 5 MB %s", s.name, strings.Join(ratios, "; "))
	}
}
