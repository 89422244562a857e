package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"time"

	"github.com/wasmwright/wasmwright/internal/bench/mcpclient"
	"github.com/wasmwright/wasmwright/internal/bench/measure"
	corpusdir "github.com/wasmwright/wasmwright/internal/corpus"
)

// -parts-calls N: the same sessions, after their memory is read, navigate
// to N corpus pages (every len/N-th, so large pages are among them) and
// snapshot each, so a change to the memory is seen beside what it does to
// the calls, sample by sample in the same run.

// callPages serves the corpus and returns n of its pages' URLs (none when
// n is 0 or the corpus is missing) and the server's Close.
func callPages(n int) ([]string, func()) {
	dir := filepath.Join(corpusdir.Dir(), "pages")
	pages, err := corpusdir.Pages(dir)
	if n == 0 || err != nil || len(pages) == 0 {
		return nil, func() {}
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	var urls []string
	for i := 0; i < n && i*len(pages)/n < len(pages); i++ {
		urls = append(urls, srv.URL+"/"+pages[i*len(pages)/n])
	}
	return urls, srv.Close
}

// callTimes is one system's navigate and snapshot times (ms).
type callTimes map[string][]float64

// timeCalls navigates to each URL and snapshots it, timing each call.
func (s partsSystem) timeCalls(c *mcpclient.Client, urls []string, into callTimes) {
	for _, u := range urls {
		t0 := time.Now()
		if err := s.navigateSnapshot(c, u, func() { into["navigate"] = append(into["navigate"], ms(time.Since(t0))); t0 = time.Now() }); err != nil {
			continue
		}
		into["snapshot"] = append(into["snapshot"], ms(time.Since(t0)))
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// printCalls prints each system's median call times.
func printCalls(systems []partsSystem, times map[string]callTimes) {
	if len(times) == 0 {
		return
	}
	fmt.Println("### navigate and snapshot of corpus pages in the same sessions (median ms, n)")
	fmt.Println()
	fmt.Println("| system | navigate | snapshot | n |")
	fmt.Println("|---|---:|---:|---:|")
	for _, s := range systems {
		t := times[s.name]
		fmt.Printf("| %s | %.1f | %.1f | %d |\n", s.name, measure.Med(t["navigate"]), measure.Med(t["snapshot"]), len(t["snapshot"]))
	}
	fmt.Println()
}
