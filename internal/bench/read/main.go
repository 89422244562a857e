// Command read measures browser_read on the shared corpus of saved pages:
// how much of each page's visible text (document.body.innerText, what a
// person sees) the readable text keeps, and how much of the readable
// text is visible text at all. It drives the host's browser service
// through a host with the browser plugin (the browser_read tool) over the
// pages served on loopback; the egress policy refuses every other host.
//
//	go run ./internal/bench/read [-corpus ../shared/corpus] [-v]
//
// Recall is over words (lower-cased, as a multiset): of the words the
// page shows, the share browser_read returns. Main recall is the same
// against the visible text of the element browser_read read (main,
// article or body): what it dropped inside the content (navigation,
// forms, controls). Precision is the share of returned words that the
// page shows; below 100% means hidden text came through. browser_read
// leaves navigation, forms and the page's header and footer out on
// purpose, so its recall of the whole page is below 100% by design.
package main

import (
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
	"strings"
	"time"
	"unicode"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/internal/bench/measure"
	corpusdir "github.com/wasmwright/wasmwright/internal/corpus"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

// visibleJS is the reference: the page's whole visible text, and that of
// the element browser_read reads.
const visibleJS = `() => {
	const main = document.querySelector("main, [role=main]");
	let root = main && main.innerText.trim() ? main : null;
	if (!root) {
		for (const a of document.querySelectorAll("article")) if (!root || a.innerText.length > root.innerText.length) root = a;
		if (root && !root.innerText.trim()) root = null;
	}
	window.__wwRef = {page: document.body ? document.body.innerText : "", root: (root || document.body || {innerText: ""}).innerText};
	return {page: window.__wwRef.page.length, root: window.__wwRef.root.length};
}`

// chunk is what one evaluate reads of a reference text: its result is
// capped (64 KiB of JSON), so long texts come in pieces.
const chunk = 15000

func main() {
	corpus := flag.String("corpus", corpusdir.Dir(), "the shared corpus (its pages/ folder is read)")
	verbose := flag.Bool("v", false, "list per-page figures")
	flag.Parse()
	fmt.Println("## browser_read: recall of the page's visible text")
	fmt.Println()
	dir := filepath.Join(*corpus, "pages")
	files, _ := filepath.Glob(filepath.Join(dir, "*.html"))
	if len(files) == 0 {
		fmt.Printf("Skipped: no corpus pages at %s.\n", dir)
		return
	}
	sort.Strings(files)
	plugins := filepath.Join(wasmbuild.Root(), "build", "plugins")
	if _, err := os.Stat(filepath.Join(plugins, "browser.wasm")); err != nil {
		fmt.Print("Skipped: build/plugins/browser.wasm is missing (make plugins).\n")
		return
	}
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
	var recall, mainRecall, precision, ratio, ms []float64
	roots := map[string]int{}
	failed := 0
	fail := func(name, what string, err error) {
		failed++
		if *verbose {
			fmt.Fprintf(os.Stderr, "%-50s %s: %v\n", name, what, err)
		}
	}
	for _, f := range files {
		name := filepath.Base(f)
		if session != "" {
			call("browser_close", map[string]any{})
		}
		session = name
		if _, err := call("browser_navigate", map[string]any{"url": srv.URL + "/pages/" + name, "snapshot": "none"}); err != nil && abi.AsError(err).Code != abi.CodeNavTimeout {
			fail(name, "navigate", err)
			continue
		}
		ref, err := reference(call)
		if err != nil {
			fail(name, "evaluate", err)
			continue
		}
		t0 := time.Now()
		rr, err := call("browser_read", map[string]any{})
		if err != nil {
			fail(name, "read", err)
			continue
		}
		ms = append(ms, float64(time.Since(t0).Microseconds())/1000)
		var info struct{ Root string }
		json.Unmarshal(rr.Data, &info)
		text := rr.Text
		if strings.HasPrefix(text, "The page shows no readable text") {
			text = ""
		}
		page, root, got := words(ref.Page), words(ref.Root), words(text)
		if size(page) == 0 {
			continue
		}
		roots[info.Root]++
		r, mr, p := overlap(got, page)/float64(size(page)), overlap(got, root)/float64(max(1, size(root))), overlap(got, page)/float64(max(1, size(got)))
		recall, mainRecall, precision = append(recall, r), append(mainRecall, mr), append(precision, p)
		ratio = append(ratio, float64(len(text))/float64(max(1, len(ref.Page))))
		if *verbose {
			fmt.Fprintf(os.Stderr, "%-50s %-7s recall %5.1f%% main %5.1f%% precision %5.1f%% bytes %d/%d\n", name, info.Root, 100*r, 100*mr, 100*p, len(text), len(ref.Page))
		}
	}
	fmt.Printf("%d corpus pages read (%d failed to load or read); read from main: %d, article: %d, body: %d.\n\n", len(recall), failed, roots["main"], roots["article"], roots["body"])
	fmt.Println("| measure | median | mean | 10th percentile |")
	fmt.Println("|---|---|---|---|")
	row := func(name string, v []float64, unit string, scale float64) {
		fmt.Printf("| %s | %.1f%s | %.1f%s | %.1f%s |\n", name, scale*quantile(v, 0.5), unit, scale*mean(v), unit, scale*quantile(v, 0.1), unit)
	}
	row("recall of the page's visible words", recall, "%", 100)
	row("recall of the read element's visible words", mainRecall, "%", 100)
	row("precision (returned words the page shows)", precision, "%", 100)
	row("size of the text / size of the visible text", ratio, "%", 100)
	row("time per browser_read (ms)", ms, "", 1)
}

// reference reads the page's visible text and the read element's.
func reference(call func(string, any) (*abi.Result, error)) (ref struct{ Page, Root string }, err error) {
	var n struct{ Page, Root int }
	ev, err := call("browser_evaluate", map[string]any{"expression": visibleJS})
	if err == nil {
		err = json.Unmarshal(ev.Data, &n)
	}
	for _, f := range []struct {
		key  string
		n    int
		into *string
	}{{"page", n.Page, &ref.Page}, {"root", n.Root, &ref.Root}} {
		var b strings.Builder
		for i := 0; err == nil && i < f.n; i += chunk {
			var part string
			if ev, err = call("browser_evaluate", map[string]any{"expression": fmt.Sprintf("() => window.__wwRef.%s.slice(%d, %d)", f.key, i, i+chunk)}); err == nil {
				err = json.Unmarshal(ev.Data, &part)
			}
			b.WriteString(part)
		}
		*f.into = b.String()
	}
	return ref, err
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
func overlap(a, b map[string]int) float64 {
	n := 0
	for w, c := range a {
		n += min(c, b[w])
	}
	return float64(n)
}

func quantile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[int(q*float64(len(s)-1))]
}

func mean(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	t := 0.0
	for _, x := range v {
		t += x
	}
	return t / float64(len(v))
}
