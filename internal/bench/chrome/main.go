// Command chrome measures what a site's repeated chrome costs an agent
// that reads several pages of one site: the shared corpus's pages of one
// site (nytimes-1..5, yahoo-1..4, ...) are served on loopback under one
// origin and navigated in turn through the real host (default
// personality: detect, compact, mask). Each navigate's snapshot, as the
// agent receives it (the site's chrome read on the page before collapsed
// to a line), is weighed against the same page's whole snapshot
// (browser_snapshot with snapshot "full", right after).
//
//	go -C internal/bench run ./chrome [-corpus ../shared/corpus]
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"sort"
	"strings"

	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/internal/bench/benchflag"
	"github.com/wasmwright/wasmwright/internal/bench/sut"
)

func main() {
	pagesOf := benchflag.Pages()
	min := flag.Int("min", 2, "sites with at least this many pages")
	flag.Parse()
	dir := pagesOf()
	sites := groups(dir, *min)
	fmt.Println("## A site's chrome once: several pages of one site (bytes)")
	fmt.Println()
	if len(sites) == 0 {
		fmt.Printf("Skipped: no corpus pages at %s.\n", dir)
		return
	}
	h, _, err := sut.DefaultHost()
	if err != nil {
		fail(err)
	}
	defer h.Close(context.Background())
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()

	fmt.Printf("The shared corpus's pages of one site (%d sites with %d or more pages), served on loopback under one origin, navigated in turn through the real host (`host.New`, default personality: detect, compact, mask; headless Chromium), one session per site. *as received* is the navigate's snapshot as the agent gets it (what the page shares with the one before, but for refs, collapsed to a line); *whole* is `browser_snapshot` with `snapshot: \"full\"` right after. The first page of each site has nothing before it.\n\n", len(sites), *min)
	fmt.Println("| site | page | whole (bytes) | as received (bytes) | ratio | lines collapsed |")
	fmt.Println("|---|---|---:|---:|---:|---:|")
	var sumWhole, sumGot, sumWholeLater, sumGotLater int
	collapsedRE := regexp.MustCompile(`\((\d+) lines as on the previous page`)
	for _, s := range sites {
		for i, f := range s.files {
			sess := "chrome-" + s.name
			got, err := snap(h, sess, "browser_navigate", map[string]any{"url": srv.URL + "/" + f})
			if err != nil {
				fmt.Printf("| %s | %s | - | - | - | failed: %v |\n", s.name, f, err)
				continue
			}
			whole, err := snap(h, sess, "browser_snapshot", map[string]any{"snapshot": "full"})
			if err != nil {
				fmt.Printf("| %s | %s | - | - | - | failed: %v |\n", s.name, f, err)
				continue
			}
			n := 0
			for _, m := range collapsedRE.FindAllStringSubmatch(got, -1) {
				var k int
				fmt.Sscan(m[1], &k)
				n += k
			}
			fmt.Printf("| %s | %s | %d | %d | %.2f | %d |\n", s.name, strings.TrimSuffix(f, ".html"), len(whole), len(got), float64(len(got))/float64(max(1, len(whole))), n)
			sumWhole += len(whole)
			sumGot += len(got)
			if i > 0 {
				sumWholeLater += len(whole)
				sumGotLater += len(got)
			}
		}
		h.Call(context.Background(), host.Request{Session: "chrome-" + s.name, Tool: "browser_close", Args: json.RawMessage(`{}`)})
	}
	fmt.Println()
	fmt.Printf("Every page: %d -> %d bytes (%.2f). Pages after a site's first: %d -> %d bytes (**%.2f**).\n", sumWhole, sumGot, float64(sumGot)/float64(max(1, sumWhole)), sumWholeLater, sumGotLater, float64(sumGotLater)/float64(max(1, sumWholeLater)))
}

type site struct {
	name  string
	files []string
}

// groups finds the corpus pages named SITE-N.html, by site, in order.
func groups(dir string, min int) []site {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	re := regexp.MustCompile(`^(.+)-(\d+)\.html$`)
	by := map[string][]string{}
	for _, e := range ents {
		if m := re.FindStringSubmatch(e.Name()); m != nil {
			by[m[1]] = append(by[m[1]], e.Name())
		}
	}
	var out []site
	for name, files := range by {
		if len(files) >= min {
			sort.Strings(files)
			out = append(out, site{name, files})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// snap calls a tool and returns the snapshot text it gave (whole or as
// collapsed; a diff counts too).
func snap(h *host.Host, sess, tool string, args map[string]any) (string, error) {
	b, _ := json.Marshal(args)
	res, err := h.Call(context.Background(), host.Request{Session: sess, Tool: tool, Args: b})
	if err != nil {
		return "", err
	}
	if res.Snapshot != "" {
		return res.Snapshot, nil
	}
	return res.SnapshotDiff, nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "chrome:", err)
	os.Exit(1)
}
