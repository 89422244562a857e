// Command busynav navigates the largest normal pages of the shared corpus
// while busy loops saturate every core, as `make test-busy` does (two per
// core), through the real host with the default personality (the embedded
// default config: its detector, compactor and masker on, fail_closed), and
// counts what each navigation gave: the page, plugin_failed, bot_wall or
// another error. A page is never to be withheld because the machine is
// slow (issue 23): the goal is every page returned.
//
//	go -C internal/bench run ./busynav [-n 10] [-rounds 1] [-loops 2*CPUs]
//
// It prints a markdown section and exits 1 when a page was not returned.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/internal/bench/benchflag"
	"github.com/wasmwright/wasmwright/internal/bench/measure"
	"github.com/wasmwright/wasmwright/internal/bench/sut"
	corpusdir "github.com/wasmwright/wasmwright/internal/corpus"
)

// outcome is one navigation: which page, how long, what it gave.
type outcome struct {
	page   string
	size   int64
	took   time.Duration
	result string // "page", or the abi code
	msg    string
}

func main() {
	pagesOf := benchflag.Pages()
	n := flag.Int("n", 10, "how many of the largest pages")
	rounds := flag.Int("rounds", 1, "navigations of each page")
	loops := flag.Int("loops", 2*runtime.NumCPU(), "busy loops running meanwhile (make test-busy runs two per core)")
	flag.Parse()
	dir := pagesOf()
	pages, err := corpusdir.Largest(dir, *n)
	if err != nil || len(pages) == 0 {
		fmt.Printf("## Busy-load navigation of the largest corpus pages\n\nSkipped: no corpus pages at %s (%v).\n", dir, err)
		return
	}
	h, cfg, err := sut.DefaultHost()
	if err != nil {
		fmt.Fprintln(os.Stderr, "busynav:", err)
		os.Exit(1)
	}
	defer h.Close(context.Background())
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	// One navigation first, to a small page, outside the measure: the
	// driver, Chromium and the plugins start (as a quiet machine's first
	// call would).
	warm, _ := json.Marshal(map[string]string{"url": srv.URL + "/" + filepath.Base(pages[len(pages)-1])})
	h.Call(context.Background(), host.Request{Session: "busynav", Tool: "browser_navigate", Args: warm})
	stop := busy(*loops)
	load0 := loadAvg()
	t0 := time.Now()
	var outs []outcome
	for r := 0; r < *rounds; r++ {
		for _, p := range pages {
			outs = append(outs, navigate(h, srv.URL, p))
			o := outs[len(outs)-1]
			fmt.Fprintf(os.Stderr, "busynav %s (%d KB): %s in %s, load %s\n", o.page, o.size/1024, o.result, measure.D(o.took), loadAvg())
		}
	}
	took := time.Since(t0)
	load1 := loadAvg()
	stop()
	if !print(outs, cfg, *loops, *rounds, load0, load1, took) {
		os.Exit(1)
	}
}

func navigate(h *host.Host, base, path string) outcome {
	o := outcome{page: strings.TrimSuffix(filepath.Base(path), ".html")}
	if fi, err := os.Stat(path); err == nil {
		o.size = fi.Size()
	}
	args, _ := json.Marshal(map[string]string{"url": base + "/" + filepath.Base(path)})
	t0 := time.Now()
	res, err := h.Call(context.Background(), host.Request{Session: "busynav", Tool: "browser_navigate", Args: args})
	o.took = time.Since(t0)
	var e *abi.Error
	switch {
	case err == nil && res != nil && res.Page != nil:
		o.result = "page"
	case errors.As(err, &e):
		o.result, o.msg = string(e.Code), e.Message
	default:
		o.result, o.msg = "no page", fmt.Sprint(err)
	}
	return o
}

// busy starts n processes that each spin until stop is called or this
// program is gone (each checks its parent is alive), as make test-busy's
// loops do.
func busy(n int) (stop func()) {
	var cmds []*exec.Cmd
	script := "while kill -0 " + strconv.Itoa(os.Getpid()) + " 2>/dev/null; do :; done"
	for range n {
		c := exec.Command("sh", "-c", script)
		if c.Start() == nil {
			cmds = append(cmds, c)
		}
	}
	return func() {
		for _, c := range cmds {
			c.Process.Kill()
			c.Wait()
		}
	}
}

func loadAvg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return f[0]
}
