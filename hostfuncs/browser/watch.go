package browser

import (
	"encoding/json"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	pw "github.com/mxschmitt/playwright-go"
	"github.com/wasmwright/wasmwright/internal/spans"
)

// The host's side of the change watcher (changesJS): asking each frame's
// watcher, the snapshot kept for a tab's document, and the counts of what
// still costs a snapshot.

// keptSnapshot is a tab's latest whole-page snapshot (aria's result), the
// document it is of and the page's URL then (a script may change the URL
// of a document without an event the watcher sees).
type keptSnapshot struct {
	doc       int64
	url, snap string
	// fields is what redact learned of the text fields with a value in
	// this document, by ref: plain (true) or secret (false). A snapshot
	// answered from this one (unchanged or patched) carries it over: the
	// watcher saw no mutation meanwhile, so no field's tag, type,
	// autocomplete, name or id (all that secretFieldFn reads) changed.
	// Never written once stored (redactKept stores a new keptSnapshot).
	fields map[string]bool
	// carried: answered from the snapshot kept before (unchanged or
	// patched), the watchers having seen no mutation since the check
	// before it: no field's attributes changed in this call.
	carried bool
}

// watchAnswer is a check's answer (changesJS): Changed is the class of
// reason the page may have changed, Detail what it was; with neither, the
// page is unchanged but for the focus, moved to the element of ref Focus
// (when set), and Values, text fields' new values, unless one of Sheets,
// the stylesheets the watcher could not read, has rules (it loaded).
type watchAnswer struct {
	Changed string `json:"changed"`
	Detail  string `json:"detail"`
	Focus   string `json:"focus"`
	// Unseen: no focus style applies to the newly focused element or
	// what holds it: when the kept snapshot has no line of Focus (the
	// visibility judge left it out), it still shows nowhere, and the
	// [active] mark is only taken off (moveActive).
	Unseen bool          `json:"unseen"`
	Values []valueChange `json:"values"`
	Sheets []string      `json:"sheets"`
	// Title is the document's title when the watcher answered.
	Title *string `json:"title"`
}

// checkedTitle is a title a check read (watchAnswer.Title), and the
// count of the tab's checks when it did (tab.checks).
type checkedTitle struct {
	check int64
	title string
}

// titleChecked is the title the main frame's watcher read at a check
// after the tab's check count was since: the page's title as of that
// check, which an action's answer takes instead of asking for it again.
func titleChecked(t *tab, since int64) (func() string, bool) {
	c := t.checkedTitle.Load()
	if c == nil || c.check <= since {
		return nil, false
	}
	return func() string { return c.title }, true
}

// valueChange is a text field's value changed: the field's ref, and the
// text its line showed (Was) and shows now (Now), as Playwright renders
// a text field's value (whitespace folded, none when it equals the name).
type valueChange struct {
	Ref string `json:"ref"`
	Was string `json:"was"`
	Now string `json:"now"`
}

// changedSince asks the page's watchers what changed since their previous
// check, which this one ends: the main frame's, and each frame's at once
// (every frame's document is in the snapshot, and each has its own
// watcher). A frame answers for the page only when nothing in it changed,
// not even its focus or a value: a change there is a change. Any failure
// is a change.
func changedSince(t *tab, wait time.Duration) watchAnswer {
	defer spans.Start("b.changedSince")()
	watchChecks.Add(1)
	t.checks.Add(1)
	main := t.page.MainFrame()
	frames := t.page.Frames()
	answers := make([]watchAnswer, len(frames))
	var wg sync.WaitGroup
	for i, f := range frames {
		if f == main {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = checkFrame(f, wait)
		}()
	}
	a := checkFrame(main, wait)
	if a.Title != nil {
		t.checkedTitle.Store(&checkedTitle{check: t.checks.Load(), title: *a.Title})
	}
	wg.Wait()
	for i, f := range frames {
		switch b := answers[i]; {
		case f == main:
		case b.Changed != "":
			return watchAnswer{Changed: "frame: " + b.Changed, Detail: capString(f.URL(), 200) + ": " + b.Detail}
		case b.Focus != "" || len(b.Values) > 0 || len(b.Sheets) > 0:
			return watchAnswer{Changed: "frame: focus or value", Detail: capString(f.URL(), 200)}
		}
	}
	return a
}

// checkFrame asks one frame's watcher.
func checkFrame(f pw.Frame, wait time.Duration) watchAnswer {
	text, err := f.Locator(changeEngine + "=check").TextContent(pw.LocatorTextContentOptions{Timeout: pw.Float(float64(wait.Milliseconds()))})
	var a watchAnswer
	if err == nil {
		err = json.Unmarshal([]byte(text), &a)
	}
	if err != nil {
		return watchAnswer{Changed: "check failed", Detail: err.Error()}
	}
	return a
}

// unchangedSnapshot is the snapshot of document doc when the page has not
// changed since aria kept one, or only its focus or text fields' values
// did (the kept one patched); else "" and why the page is to be snapshot
// (counted in watchFallbacks). It checks the page whether or not one was
// kept: the check starts the period the snapshot aria takes next belongs
// to.
func unchangedSnapshot(t *tab, doc int64, wait time.Duration) (snap string, why watchAnswer) {
	defer spans.Start("b.unchangedSnapshot")()
	kept := t.kept.Swap(nil)
	a := changedSince(t, wait)
	switch {
	case a.Changed != "":
		why = a
	case kept == nil:
		why.Changed = "no snapshot kept"
	case kept.doc != doc:
		why.Changed = "another document"
	case kept.url != t.page.URL():
		why.Changed = "URL changed"
	case !t.sheets.allFailed(a.Sheets):
		why.Changed = "css unreadable"
	}
	if why.Changed == "" {
		snap = kept.snap
		ok := true
		if a.Focus != "" || a.Unseen {
			if snap, ok = moveActive(snap, a.Focus, a.Unseen); !ok {
				why = watchAnswer{Changed: "focused line not found", Detail: a.Focus}
			}
		}
		for _, v := range a.Values {
			if !ok {
				break
			}
			if snap, ok = setValue(snap, v); !ok {
				why = watchAnswer{Changed: "field line not as rendered", Detail: v.Ref}
			}
		}
	}
	if why.Changed != "" {
		watchFallbacks.add(why.Changed)
		return "", why
	}
	if a.Focus != "" || a.Unseen || len(a.Values) > 0 {
		snapshotsPatched.Add(1)
	}
	snapshotsSkipped.Add(1)
	t.kept.Store(&keptSnapshot{doc: kept.doc, url: kept.url, snap: snap, fields: kept.fields, carried: true})
	return snap, why
}

// noKeptSnapshot is why a whole-page snapshot of document doc cannot be
// answered from a kept one, known without asking the page ("" when one
// is kept for doc: the page's watchers then decide).
func noKeptSnapshot(t *tab, doc int64) string {
	switch kept := t.kept.Load(); {
	case kept == nil:
		return "no snapshot kept"
	case kept.doc != doc:
		return "another document"
	}
	return ""
}

// sheetLoads records which stylesheets a tab requested failed to load (no
// response: refused, unreachable), by address: such a sheet, which the
// watcher cannot read when it is another origin's, has no rules. At most
// maxSheetLoads addresses are kept; one not kept counts as loaded.
type sheetLoads struct {
	mu     sync.Mutex
	failed map[string]bool
}

const maxSheetLoads = 1024

// note records the outcome of a stylesheet request.
func (l *sheetLoads) note(url string, failed bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.failed == nil {
		l.failed = map[string]bool{}
	}
	if _, ok := l.failed[url]; ok || len(l.failed) < maxSheetLoads {
		l.failed[url] = failed
	}
}

// allFailed reports whether every one of urls failed to load (the last
// request of each).
func (l *sheetLoads) allFailed(urls []string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, u := range urls {
		if !l.failed[u] {
			return false
		}
	}
	return true
}

// keepSnapshot records snap as the whole-page snapshot of document doc
// at url, taken after a check (url read before it).
func keepSnapshot(t *tab, doc int64, url, snap string) {
	t.kept.Store(&keptSnapshot{doc: doc, url: url, snap: snap})
}

// snapshotsSkipped counts the snapshots answered by unchangedSnapshot, and
// snapshotsPatched those of them patched, for tests and benchmarks: a
// skipped snapshot is seen here, not in time.
var snapshotsSkipped, snapshotsPatched atomic.Int64

// watchChecks counts the checks of a page's watchers (changedSince), each
// a round trip per frame, for tests.
var watchChecks atomic.Int64

// watchFallbacks counts the snapshots the watcher did not spare, by class
// of reason (watchAnswer.Changed), for tests and benchmarks.
var watchFallbacks = &reasonCounts{}

// reasonCounts counts by reason; reasons are the watcher's own words, a
// few dozen at most, but past maxReasons new ones count as "other".
type reasonCounts struct {
	mu sync.Mutex
	m  map[string]int64
}

const maxReasons = 64

func (r *reasonCounts) add(why string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]int64{}
	}
	if _, ok := r.m[why]; !ok && len(r.m) >= maxReasons {
		why = "other"
	}
	r.m[why]++
}

// counts is a copy of the counts.
func (r *reasonCounts) counts() map[string]int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return maps.Clone(r.m)
}
