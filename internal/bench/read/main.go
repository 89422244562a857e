// Command read measures browser_read on the shared corpus of saved pages,
// against two references. It drives the host's browser service through a
// host with the browser plugin (the browser_read tool) over the pages
// served on loopback; the egress policy refuses every other host.
//
//	go -C internal/bench run ./read [-corpus ../shared/corpus] [-v] [-tsv out.tsv] [-before earlier.tsv]
//
// The page's visible text (document.body.innerText, what a person sees):
// recall is the share of the words the page shows that browser_read
// returns, precision the share of returned words the page shows (below
// 100% means hidden text came through). browser_read leaves navigation,
// forms, comments and boilerplate out on purpose, so its recall of the
// whole page is below 100% by design.
//
// Readability's expected output, an independent reference: the corpus's
// pages from mozilla/readability's test-pages carry, in that repository,
// the article Readability.js extracts from them (expected.html). The
// bench reads them from $WASMWRIGHT_READABILITY_PAGES, else from
// ../shared/readability/test/test-pages beside the repository root (a
// checkout of mozilla/readability): <page>/expected.html. They are not
// in this repository and not on CI; absent, that part says so and is
// skipped. Recall is the share of the expected text's words browser_read
// returns, precision the share of its words the expected text holds, both
// over words (lower-cased, as multisets), per page and over all pages.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"golang.org/x/net/html"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/internal/bench/benchflag"
	"github.com/wasmwright/wasmwright/internal/bench/measure"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

// visibleJS is the first reference: the page's whole visible text.
const visibleJS = `() => {
	window.__wwRef = document.body ? document.body.innerText : "";
	return window.__wwRef.length;
}`

// chunk is what one evaluate reads of a reference text: its result is
// capped (64 KiB of JSON), so long texts come in pieces.
const chunk = 15000

// ReadabilityEnv names the folder of Readability's expected outputs.
const ReadabilityEnv = "WASMWRIGHT_READABILITY_PAGES"

// pageResult is what one page measured.
type pageResult struct {
	name, root               string
	visRecall, visPrecision  float64
	ratio, ms                float64
	hasRef                   bool
	refWords, gotWords, both int // words of the expected text, of the read text, and of both
}

func main() {
	pagesOf := benchflag.Pages()
	verbose := flag.Bool("v", false, "list per-page figures on stderr")
	tsv := flag.String("tsv", "", "write the per-page figures against Readability to this file (tab-separated)")
	before := flag.String("before", "", "a -tsv file of an earlier run: print the per-page table with both runs")
	flag.Parse()
	fmt.Println("## browser_read: recall of the page's visible text and of Readability's expected output")
	fmt.Println()
	dir := pagesOf()
	files, _ := filepath.Glob(filepath.Join(dir, "*.html"))
	if len(files) == 0 {
		fmt.Printf("Skipped: no corpus pages at %s.\n", dir)
		return
	}
	sort.Strings(files)
	plugins := benchflag.PluginsDir()
	if _, err := os.Stat(filepath.Join(plugins, "browser.wasm")); err != nil {
		fmt.Print("Skipped: build/plugins/browser.wasm is missing (make plugins).\n")
		return
	}
	refDir := readabilityDir()
	results, failed := measureAll(dir, files, plugins, refDir, *verbose)
	printVisible(results, failed)
	printReadability(results, refDir, *before)
	if *tsv != "" {
		measure.Must(writeTSV(*tsv, results))
	}
}

// readabilityDir is the folder of Readability's expected outputs, or ""
// when there is none.
func readabilityDir() string {
	d := os.Getenv(ReadabilityEnv)
	if d == "" {
		d = filepath.Join(wasmbuild.Root(), "..", "shared", "readability", "test", "test-pages")
	}
	if st, err := os.Stat(d); err == nil && st.IsDir() {
		return d
	}
	return ""
}

// measureAll reads every page through a host of its own and measures it.
func measureAll(dir string, files []string, plugins, refDir string, verbose bool) ([]pageResult, int) {
	srv := httptest.NewServer(http.StripPrefix("/pages/", http.FileServer(http.Dir(dir))))
	defer srv.Close()
	tmp := measure.Must(os.MkdirTemp("", "ww-bench-read-"))
	defer os.RemoveAll(tmp)
	// Only the loopback site is allowed: every other host a saved page
	// names is refused at once by the egress proxy.
	cfg := measure.Must(host.ParseConfig(fmt.Sprintf(`[host]
plugins_dir = %q
default_personality = "bench"
call_timeout = "60s"
[browser]
headed = "false"
navigation_timeout = "15s"
read_max_bytes = 16777216
[plugins.browser]
[personalities.bench]
plugins = ["browser"]
tools = ["*"]
grants = ["browser.read", "browser.act", "browser.eval"]
network = { allowed_hosts = [%q] }
`, plugins, strings.TrimPrefix(srv.URL, "http://")), "bench.toml", tmp))
	ctx := context.Background()
	h := measure.Must(host.New(ctx, cfg, host.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}))
	defer h.Close(ctx)
	// Each page gets a session of its own, closed after it: a page that
	// opens a dialog blocks only itself.
	var session string
	call := func(tool string, args any) (*abi.Result, error) {
		raw, _ := json.Marshal(args)
		return h.Call(ctx, host.Request{Session: session, Tool: tool, Args: raw})
	}
	var out []pageResult
	failed := 0
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".html")
		if session != "" {
			call("browser_close", map[string]any{})
		}
		session = name
		r, err := measurePage(call, srv.URL+"/pages/"+name+".html", name, refDir)
		if err != nil {
			failed++
			if verbose {
				fmt.Fprintf(os.Stderr, "%-50s %v\n", name, err)
			}
			continue
		}
		if verbose {
			ref := "no expected output"
			if r.hasRef {
				ref = fmt.Sprintf("readability recall %5.1f%% precision %5.1f%%", 100*share(r.both, r.refWords), 100*share(r.both, r.gotWords))
			}
			fmt.Fprintf(os.Stderr, "%-50s %-8s visible recall %5.1f%% precision %5.1f%%  %s\n", name, r.root, 100*r.visRecall, 100*r.visPrecision, ref)
		}
		out = append(out, r)
	}
	return out, failed
}

// measurePage navigates to one page, reads it, and compares the text with
// the page's visible text and with Readability's expected output.
func measurePage(call func(string, any) (*abi.Result, error), url, name, refDir string) (pageResult, error) {
	r := pageResult{name: name}
	if _, err := call("browser_navigate", map[string]any{"url": url, "snapshot": "none"}); err != nil && abi.AsError(err).Code != abi.CodeNavTimeout {
		return r, fmt.Errorf("navigate: %w", err)
	}
	page, err := reference(call)
	if err != nil {
		return r, fmt.Errorf("evaluate: %w", err)
	}
	t0 := time.Now()
	rr, err := call("browser_read", map[string]any{})
	if err != nil {
		return r, fmt.Errorf("read: %w", err)
	}
	r.ms = float64(time.Since(t0).Microseconds()) / 1000
	var info struct{ Root string }
	json.Unmarshal(rr.Data, &info)
	r.root = info.Root
	text := rr.Text
	if strings.HasPrefix(text, "The page shows no readable text") {
		text = ""
	}
	vis, got := words(page), words(text)
	r.visRecall, r.visPrecision = share(overlap(got, vis), size(vis)), share(overlap(got, vis), size(got))
	r.ratio = float64(len(text)) / float64(max(1, len(page)))
	if refDir != "" {
		if b, err := os.ReadFile(filepath.Join(refDir, name, "expected.html")); err == nil {
			ref := words(htmlText(string(b)))
			r.hasRef, r.refWords, r.gotWords, r.both = true, size(ref), size(got), overlap(got, ref)
		}
	}
	return r, nil
}

// printVisible prints the figures against the page's visible text.
func printVisible(results []pageResult, failed int) {
	roots := map[string]int{}
	var recall, precision, ratio, ms []float64
	for _, r := range results {
		roots[r.root]++
		recall, precision = append(recall, r.visRecall), append(precision, r.visPrecision)
		ratio, ms = append(ratio, r.ratio), append(ms, r.ms)
	}
	var named []string
	for k, n := range roots {
		named = append(named, fmt.Sprintf("%s %d", k, n))
	}
	sort.Strings(named)
	fmt.Printf("%d corpus pages read (%d failed to load or read); the element read (root): %s.\n\n", len(results), failed, strings.Join(named, ", "))
	fmt.Println("Against the page's visible text (document.body.innerText):")
	fmt.Println()
	fmt.Println("| measure | median | mean | 10th percentile |")
	fmt.Println("|---|---|---|---|")
	row("recall of the page's visible words", recall, "%", 100)
	row("precision (returned words the page shows)", precision, "%", 100)
	row("size of the text / size of the visible text", ratio, "%", 100)
	row("time per browser_read (ms)", ms, "", 1)
	fmt.Println()
}

// printReadability prints the figures against Readability's expected
// output, and the per-page table (with an earlier run's, when given).
func printReadability(results []pageResult, refDir, before string) {
	if refDir == "" {
		fmt.Printf("Against Readability's expected output: skipped, no expected outputs (set %s to the test/test-pages folder of a checkout of mozilla/readability, or clone it at ../shared/readability).\n", ReadabilityEnv)
		return
	}
	var recall, precision, f1 []float64
	var refWords, gotWords, both, low int
	for _, r := range results {
		if !r.hasRef {
			continue
		}
		rc, p := share(r.both, r.refWords), share(r.both, r.gotWords)
		recall, precision = append(recall, rc), append(precision, p)
		f1 = append(f1, 2*rc*p/max(rc+p, 1e-9))
		refWords, gotWords, both = refWords+r.refWords, gotWords+r.gotWords, both+r.both
		if rc < 0.5 {
			low++
		}
	}
	fmt.Printf("Against Readability's expected output (mozilla/readability test-pages, expected.html), %d pages; words as multisets:\n\n", len(recall))
	fmt.Println("| measure | all words | median | mean | 10th percentile |")
	fmt.Println("|---|---|---|---|---|")
	fmt.Printf("| recall of the expected words | %.1f%% | %.1f%% | %.1f%% | %.1f%% |\n", 100*share(both, refWords), 100*measure.Pct(recall, 0.5), 100*measure.Mean(recall), 100*measure.Pct(recall, 0.1))
	fmt.Printf("| precision (returned words the expected text holds) | %.1f%% | %.1f%% | %.1f%% | %.1f%% |\n", 100*share(both, gotWords), 100*measure.Pct(precision, 0.5), 100*measure.Mean(precision), 100*measure.Pct(precision, 0.1))
	fmt.Printf("| F1 | | %.1f%% | %.1f%% | %.1f%% |\n", 100*measure.Pct(f1, 0.5), 100*measure.Mean(f1), 100*measure.Pct(f1, 0.1))
	fmt.Printf("\nPages with recall below 50%%: %d of %d.\n", low, len(recall))
	if before != "" {
		printPerPage(results, measure.Must(readTSV(before)))
	}
}

// printPerPage prints recall and precision per page, an earlier run's
// beside this one's.
func printPerPage(results []pageResult, earlier map[string][2]float64) {
	fmt.Println()
	fmt.Println("| page | recall before | precision before | recall after | precision after |")
	fmt.Println("|---|---|---|---|---|")
	cell := func(v float64, ok bool) string {
		if !ok {
			return "-"
		}
		return fmt.Sprintf("%.1f%%", 100*v)
	}
	for _, r := range results {
		if !r.hasRef {
			continue
		}
		b, ok := earlier[r.name]
		fmt.Printf("| %s | %s | %s | %.1f%% | %.1f%% |\n", r.name, cell(b[0], ok), cell(b[1], ok), 100*share(r.both, r.refWords), 100*share(r.both, r.gotWords))
	}
}

// writeTSV writes page, recall and precision against Readability's
// expected output, a page per line.
func writeTSV(path string, results []pageResult) (int, error) {
	var b strings.Builder
	for _, r := range results {
		if r.hasRef {
			fmt.Fprintf(&b, "%s\t%.4f\t%.4f\n", r.name, share(r.both, r.refWords), share(r.both, r.gotWords))
		}
	}
	return b.Len(), os.WriteFile(path, []byte(b.String()), 0o644)
}

// readTSV reads writeTSV's file.
func readTSV(path string) (map[string][2]float64, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string][2]float64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		p := strings.Split(sc.Text(), "\t")
		if len(p) != 3 {
			continue
		}
		r, _ := strconv.ParseFloat(p[1], 64)
		pr, _ := strconv.ParseFloat(p[2], 64)
		out[p[0]] = [2]float64{r, pr}
	}
	return out, sc.Err()
}

func row(name string, v []float64, unit string, scale float64) {
	fmt.Printf("| %s | %.1f%s | %.1f%s | %.1f%s |\n", name, scale*measure.Pct(v, 0.5), unit, scale*measure.Mean(v), unit, scale*measure.Pct(v, 0.1), unit)
}

// reference reads the page's visible text.
func reference(call func(string, any) (*abi.Result, error)) (string, error) {
	var n int
	ev, err := call("browser_evaluate", map[string]any{"expression": visibleJS})
	if err == nil {
		err = json.Unmarshal(ev.Data, &n)
	}
	var b strings.Builder
	for i := 0; err == nil && i < n; i += chunk {
		var part string
		if ev, err = call("browser_evaluate", map[string]any{"expression": fmt.Sprintf("() => window.__wwRef.slice(%d, %d)", i, i+chunk)}); err == nil {
			err = json.Unmarshal(ev.Data, &part)
		}
		b.WriteString(part)
	}
	return b.String(), err
}

// htmlText is the text of an HTML fragment (Readability's output): its
// text nodes, a space between each.
func htmlText(s string) string {
	doc, err := html.Parse(strings.NewReader(s))
	if err != nil {
		return ""
	}
	var b strings.Builder
	var walk func(n *html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && (n.Data == "script" || n.Data == "style") {
			return
		}
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			b.WriteByte(' ')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(doc)
	return b.String()
}

func share(part, whole int) float64 {
	if whole == 0 {
		return 0
	}
	return float64(part) / float64(whole)
}

// words is the multiset of a text's lower-cased words.
func words(s string) map[string]int {
	m := map[string]int{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsNumber(r) }) {
		m[w]++
	}
	return m
}

func size(m map[string]int) (n int) {
	for _, c := range m {
		n += c
	}
	return n
}

// overlap counts the words of a found in b, as multisets.
func overlap(a, b map[string]int) int {
	n := 0
	for w, c := range a {
		n += min(c, b[w])
	}
	return n
}
