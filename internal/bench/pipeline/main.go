// Command pipeline benchmarks the result-hook plugins (blockdetect,
// snapcompact, secretmask) on the shared corpus, through the sandbox.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	corpusdir "github.com/wasmwright/wasmwright/internal/corpus"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

func main() {
	corpus := flag.String("corpus", corpusdir.Dir(), "the shared corpus (pages/, walls/); default ../shared/corpus beside the repository, or $WASMWRIGHT_CORPUS")
	cache := flag.String("cache", filepath.Join(wasmbuild.Root(), "build", "snapshots"), "cache of rendered pages")
	only := flag.String("only", "", "run only these sections, comma-separated: detect, cost, compact, mask")
	costCalls := flag.Int("cost-calls", 5, "detect calls per page for the cost section (the median is kept)")
	secrets := flag.Int("secrets", 300, "generated secrets for the masking run")
	verbose := flag.Bool("v", false, "list per-page figures")
	largest := flag.Int("largest", 0, "render and measure only the N largest corpus pages (0: all; for a quick cost run)")
	flag.Parse()
	logf := func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) }
	if _, err := os.Stat(filepath.Join(*corpus, "pages")); err != nil {
		fmt.Printf("## Result-hook pipeline benchmark\n\nSkipped: no corpus at %s (pass -corpus DIR holding pages/ and walls/).\n", *corpus)
		return
	}
	pages, walls, err := loadCorpus(*corpus)
	if err != nil {
		logf("corpus: %v", err)
		os.Exit(1)
	}
	htmlOnly := pages // the cost section reads every page's HTML, rendered or not
	if *largest > 0 {
		pages = largestDocs(pages, *largest)
	}
	if !runs(*only, "detect") {
		walls = nil // only the detect section reads them
	}
	all := append(append([]doc{}, pages...), walls...)
	rs, err := renderAll(all, *cache, logf)
	if err != nil {
		logf("render: %v", err)
		os.Exit(1)
	}
	h, err := loadHooks()
	if err != nil {
		logf("plugins: %v", err)
		os.Exit(1)
	}
	defer h.close()
	var pageR, wallR []rendered
	for i, r := range rs {
		if i < len(pages) {
			pageR = append(pageR, r)
		} else {
			wallR = append(wallR, r)
		}
	}
	fmt.Println("## Result-hook pipeline benchmark")
	fmt.Println()
	if runs(*only, "detect") {
		detectSection(h, pageR, wallR, walls, *verbose)
	}
	if runs(*only, "cost") {
		costSection(h, pageR, pages, htmlOnly, *costCalls, logf)
	}
	if runs(*only, "compact") {
		compactSection(h, pageR, *verbose)
		compactTimeSection(h, *cache)
	}
	if runs(*only, "mask") {
		maskSection(h, *secrets)
		maskPages(h, pageR)
	}
	latencySection(h)
}

// loadCorpus lists corpus/pages/*.html and corpus/walls/*.html with meta.
func loadCorpus(dir string) (pages, walls []doc, err error) {
	ps, _ := filepath.Glob(filepath.Join(dir, "pages", "*.html"))
	sort.Strings(ps)
	for _, p := range ps {
		pages = append(pages, doc{Name: strings.TrimSuffix(filepath.Base(p), ".html"), Path: p, Kind: "pages"})
	}
	ws, _ := filepath.Glob(filepath.Join(dir, "walls", "*.html"))
	sort.Strings(ws)
	for _, p := range ws {
		d := doc{Name: strings.TrimSuffix(filepath.Base(p), ".html"), Path: p, Kind: "walls"}
		var meta struct {
			Vendor  string            `json:"vendor"`
			Kind    string            `json:"kind"`
			Status  int               `json:"status"`
			Headers map[string]string `json:"headers"`
		}
		b, err := os.ReadFile(strings.TrimSuffix(p, ".html") + ".meta.json")
		if err == nil {
			if err := json.Unmarshal(b, &meta); err != nil {
				return nil, nil, fmt.Errorf("%s: %v", p, err)
			}
		}
		d.Vendor, d.WallKnd, d.Status, d.Headers = meta.Vendor, meta.Kind, meta.Status, meta.Headers
		walls = append(walls, d)
	}
	return pages, walls, nil
}

// runs says whether -only (a comma-separated list, empty for all) names
// section.
func runs(only, section string) bool {
	return only == "" || slices.Contains(strings.Split(only, ","), section)
}

// largestDocs keeps the n largest docs, largest first.
func largestDocs(docs []doc, n int) []doc {
	size := func(d doc) int64 {
		fi, err := os.Stat(d.Path)
		if err != nil {
			return 0
		}
		return fi.Size()
	}
	out := append([]doc(nil), docs...)
	sort.Slice(out, func(i, j int) bool { return size(out[i]) > size(out[j]) })
	return out[:min(n, len(out))]
}
