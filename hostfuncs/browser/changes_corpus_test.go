package browser

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/internal/corpus"
)

// TestWatchOnCorpusPages runs the benchmark's typing steps on real pages
// of the shared corpus (the first ones by name, as internal/bench/browser
// takes them): type into the first text field, press Tab, press Shift.
// Every answer, patched or snapshot, must equal a new snapshot taken
// right after; it logs how each was answered (kept, patched, or snapshot
// and the watcher's reason), so what still costs a snapshot on real pages
// can be told.
func TestWatchOnCorpusPages(t *testing.T) {
	dir := corpus.Need(t, "pages")
	files, _ := filepath.Glob(filepath.Join(dir, "*.html"))
	sort.Strings(files)
	files = files[:min(len(files), 20)]
	s := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer s.Close()
	field := regexp.MustCompile(`- (?:textbox|searchbox) "[^"\n]*"[^\n]*?\[ref=([a-z0-9]+)\]`)
	var report strings.Builder
	for _, f := range files {
		name := filepath.Base(f)
		c := caller(t.Name() + "-" + name)
		r, err := call[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: s.URL + "/" + name})
		if err != nil {
			// A saved page that does not load is not what this tests.
			t.Logf("%s left out: %v", name, err)
			continue
		}
		m := field.FindStringSubmatch(r.Snapshot)
		if m == nil {
			continue
		}
		// The page's own timers change it too (aktualne.html appends an
		// ad-blocker bait and removes it 300 ms later): each step starts on
		// a page that has been still for a while, so a difference below is
		// the step's answer missing a change, not the page moving on after
		// the answer. A change the watcher missed before the step still
		// shows: the kept snapshot would hold what the page no longer has.
		for _, step := range []abi.BrowserActRequest{
			{Action: abi.ActType, Ref: m[1], Text: "wasmwright"},
			{Action: abi.ActPress, Key: "Tab"},
			{Action: abi.ActPress, Key: "Shift"},
		} {
			pageStill(t, c)
			skipped, patched, before := snapshotsSkipped.Load(), snapshotsPatched.Load(), watchFallbacks.counts()
			t0 := time.Now()
			a, err := call[abi.BrowserActResponse](t, svc, c, abi.HostBrowserAct, step)
			took := time.Since(t0)
			if err != nil {
				t.Logf("%s %s%s: %v", name, step.Action, step.Key, err)
				break
			}
			how := "kept"
			switch {
			case snapshotsSkipped.Load() == skipped:
				how = "snapshot: " + strings.Join(newReasons(before, watchFallbacks.counts()), ", ")
			case snapshotsPatched.Load() > patched:
				how = "patched"
			}
			fmt.Fprintf(&report, "%-40s %-6s %-6s %6d ms  %s\n", name, step.Action, step.Key, took.Milliseconds(), how)
			if a.Navigated || a.Snapshot == "" {
				break
			}
			if kept, fresh := freshSnapshot(t, c); kept != fresh {
				t.Errorf("%s, %s %s (%s): the answer differs from a new snapshot:\n%s\n---\n%s", name, step.Action, step.Key, how, kept, fresh)
			}
		}
	}
	t.Logf("how each action was answered:\n%s", report.String())
}

// newReasons are the reasons counted in after more often than in before.
func newReasons(before, after map[string]int64) []string {
	var out []string
	for k := range maps.Keys(after) {
		if after[k] > before[k] {
			out = append(out, k)
		}
	}
	sort.Strings(out)
	return out
}

// pageStill waits (at most 5 s) until c's page has gone 500 ms without a
// DOM change, evaluating straight on the page so the host's kept snapshot
// and watcher are left as they are.
func pageStill(t *testing.T, c *hostfuncs.Caller) {
	t.Helper()
	ss, tb, err := svc.sessions.pageTab(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.mu.Unlock()
	_, err = tb.page.Evaluate(`() => new Promise(done => {
		const end = Date.now() + 5000;
		let timer;
		const o = new MutationObserver(() => { clearTimeout(timer); arm(); });
		const arm = () => { timer = setTimeout(() => { o.disconnect(); done(); }, Math.max(0, Math.min(500, end - Date.now()))); };
		o.observe(document, { subtree: true, childList: true, attributes: true, characterData: true });
		arm();
	})`)
	if err != nil {
		t.Fatalf("waiting for the page to be still: %v", err)
	}
}
