package host

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/corpus"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

// largestPages are the n largest pages of the shared corpus's pages folder.
func largestPages(t *testing.T, n int) []string {
	out, err := corpus.Largest(corpus.Need(t, "pages"), n)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

var (
	markupRe = regexp.MustCompile(`(?is)<(script|style)\b.*?</(script|style)>|<[^>]*>`)
	elemRe   = regexp.MustCompile(`(?s)<(a|button|h[1-6]|p|li|img|input|td)\b([^>]*)>([^<]{0,200})`)
	hrefRe   = regexp.MustCompile(`href="([^"]*)"`)
)

// pageResult is a navigation result for a saved page, as the browser tool
// would give it without a browser: the HTML, its text with the markup
// dropped, and a snapshot in the aria format with a line per element a
// snapshot would show (links with their URL), nested.
func pageResult(url, html string) *abi.Result {
	roles := map[string]string{"a": "link", "button": "button", "p": "paragraph", "li": "listitem", "img": "img", "input": "textbox", "td": "cell"}
	var snap strings.Builder
	for n, m := range elemRe.FindAllStringSubmatch(html, -1) {
		role := roles[m[1]]
		if role == "" {
			role = "heading"
		}
		indent := strings.Repeat("  ", n%6)
		fmt.Fprintf(&snap, "%s- %s %q [ref=e%d]\n", indent, role, strings.Join(strings.Fields(m[3]), " "), n+1)
		if h := hrefRe.FindStringSubmatch(m[2]); h != nil && role == "link" {
			fmt.Fprintf(&snap, "%s  - /url: %s\n", indent, h[1])
		}
	}
	text := strings.Join(strings.Fields(markupRe.ReplaceAllString(html, " ")), " ")
	return &abi.Result{Source: url, Snapshot: snap.String(), Page: &abi.Page{URL: url, Status: 200, Title: filepath.Base(url), HTML: html, Text: text}}
}

// spin keeps n OS threads busy until the returned stop is called: a machine
// slower than any test asserts on, made on purpose.
func spin(n int) (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			x := 0
			for !done.Load() {
				x++
			}
			_ = x
		}()
	}
	return func() { done.Store(true); wg.Wait() }
}

// Issue 23: the largest normal pages of the corpus pass the default
// personality's hooks (detect, compact, mask; the session holds a secret,
// so the masker runs) with the default limits while four threads spin on a
// machine already busy: a hook's work budget does not depend on how fast
// the machine is. Nothing here asserts a duration.
func TestLargePagesPassTheHooksUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the first-party hooks on ten pages of up to 1.6 MB")
	}
	pages := largestPages(t, 10)
	if os.Getenv("WASMWRIGHT_PLUGINS_DIR") == "" {
		t.Setenv("WASMWRIGHT_PLUGINS_DIR", filepath.Join(wasmbuild.Root(), "build", "plugins"))
	}
	cfg, err := LoadConfig("")
	if err != nil {
		t.Fatal(err)
	}
	cfg.Host.CacheDir = testCache
	cfg.Host.WatchPlugins = false
	h, err := New(context.Background(), cfg, Options{NoBrowser: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close(context.Background())
	p, err := h.roster.get(cfg.Host.DefaultPersonality)
	if err != nil {
		t.Fatal(err)
	}
	for _, role := range abi.HookRoles() {
		linked := p.hooks[role] != nil
		if role == abi.HookDetect { // a chain (host/detectors.go)
			linked = len(p.detectors) > 0 && p.chainErr == nil
			for _, d := range p.detectors {
				linked = linked && d != nil
			}
		}
		if !linked {
			t.Fatalf("the default personality has no %s hook linked: %v", role, p.problems)
		}
	}
	h.secrets.Add(p.name, "s1", "hunter2-on-no-page")
	stop := spin(4)
	defer stop()
	for _, path := range pages {
		html, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		url := "https://corpus.test/" + filepath.Base(path)
		args, _ := json.Marshal(map[string]string{"url": url})
		req := Request{Personality: p.name, Session: "s1", Tool: "browser_navigate", Args: args}
		res, err := h.pipeline(context.Background(), p, req, pageResult(url, string(html)), nil)
		if err != nil || res == nil || res.Page == nil {
			t.Errorf("%s (%d bytes): the page must be returned, got %v", filepath.Base(path), len(html), err)
			continue
		}
		for _, w := range res.Warnings {
			if strings.Contains(w, "failed") {
				t.Errorf("%s: %s", filepath.Base(path), w)
			}
		}
	}
}
