// Command gatecost measures what judging every document costs (the
// browser's gate, hostfuncs/browser/gate.go): on the largest pages of the
// shared corpus, through the real host with the default personality (its
// detector on), the median of a navigate and of an action after it (Tab
// with the default diff answer), and how many judgements each made. Run
// it on two builds (this one and the main before the gate) to get the
// gate's share of a navigate and of an action:
//
//	go -C internal/bench run ./gatecost [-n 5] [-rounds 5]
//
// It prints one markdown table row per page.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/internal/bench/benchflag"
	"github.com/wasmwright/wasmwright/internal/bench/measure"
	"github.com/wasmwright/wasmwright/internal/bench/sut"
	corpusdir "github.com/wasmwright/wasmwright/internal/corpus"
)

func main() {
	pagesOf := benchflag.Pages()
	n := flag.Int("n", 5, "how many of the largest pages")
	rounds := flag.Int("rounds", 5, "navigations of each page (the median is reported)")
	flag.Parse()
	dir := pagesOf()
	pages, err := corpusdir.Largest(dir, *n)
	if err != nil || len(pages) == 0 {
		fmt.Fprintf(os.Stderr, "gatecost: no corpus pages at %s (%v)\n", dir, err)
		os.Exit(1)
	}
	h, _, err := sut.DefaultHost()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gatecost:", err)
		os.Exit(1)
	}
	defer h.Close(context.Background())
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	call := func(tool string, args any) (time.Duration, error) {
		b, _ := json.Marshal(args)
		t0 := time.Now()
		_, err := h.Call(context.Background(), host.Request{Session: "gatecost", Tool: tool, Args: b})
		return time.Since(t0), err
	}
	call("browser_navigate", map[string]string{"url": srv.URL + "/" + filepath.Base(pages[len(pages)-1])})
	fmt.Println("| page | KB | navigate (median) | Tab after it, default answer (median) | failures |")
	fmt.Println("|---|---:|---:|---:|---:|")
	for _, p := range pages {
		fi, _ := os.Stat(p)
		var navs, tabs []time.Duration
		fails := 0
		for range *rounds {
			d, err := call("browser_navigate", map[string]string{"url": srv.URL + "/" + filepath.Base(p)})
			if err != nil {
				fails++
				fmt.Fprintln(os.Stderr, "gatecost:", filepath.Base(p), err)
				continue
			}
			navs = append(navs, d)
			if d, err = call("browser_press", map[string]string{"key": "Tab"}); err == nil {
				tabs = append(tabs, d)
			} else {
				fails++
			}
		}
		fmt.Printf("| %s | %d | %s | %s | %d |\n", strings.TrimSuffix(filepath.Base(p), ".html"), fi.Size()/1024, measure.D(measure.Med(navs)), measure.D(measure.Med(tabs)), fails)
	}
}
