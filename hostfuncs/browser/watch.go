package browser

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"strings"
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
	// frames are the refs of the iframes whose documents the snapshot
	// holds (iframeRefs): the frames a check of this document asks
	// besides the main frame (changedSince); with everyFrame (a line it
	// could not read), it asks them all.
	frames     []string
	everyFrame bool
	// reach is where frames' frames were found (frameReach), shared by
	// every snapshot answered from this one: the watchers saw no
	// mutation since, so each iframe line's element, and the frame it
	// holds, is the same.
	reach *frameReach
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
	Unseen bool `json:"unseen"`
	// Place: the focus moved to an element without a ref, whose line is
	// told by the refs around it (placeActive).
	Place  *focusPlace   `json:"place"`
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
// check, which this one ends: the main frame's, and at once those of the
// frames whose documents are in the snapshot (each has its own watcher).
// Those are the frames of kept, the snapshot kept of the document, when
// given: the iframes its lines hold, reached by their refs as Playwright
// reaches them to snapshot them, or, once found (frameReach), as the
// frames themselves. A frame it does not hold is in no
// snapshot of the document until the document itself changes (the
// iframe shown, or given a line), which the main frame's watcher sees;
// asking the others is a round trip each, and pages of ads have dozens.
// Without kept (a new snapshot is to be taken), the frames the snapshot
// may hold are asked: with shown (the marks pass's guess, markSet.frames:
// the main frame's rendered iframes, by index), those; without it, every
// frame. Asking a frame readies Playwright's isolated world in it, which
// on a page of ads costs more than the snapshot: a frame the guess leaves
// out is asked first at the next check, where its new watcher answers
// "new document", a change (a frame is never trusted before its watcher
// has been asked once), so a wrong guess costs a snapshot, never a change
// missed. A frame answers for the page only when nothing in it changed,
// not even its focus or a value: a change there is a change. Any failure
// is a change.
//
// When the main frame changed, the call does not wait for the frames it
// reached by ref (an iframe removed with the change would be waited for
// until frameRefWait): their answers are not dropped but left to the
// next check (tab.late), which waits for them and counts any change they
// report, since a check that ends a frame's period after the snapshot
// that follows read the frame may have swallowed a change.
func changedSince(t *tab, wait time.Duration, kept *keptSnapshot, shown []int) watchAnswer {
	defer spans.Start("b.changedSince")()
	watchChecks.Add(1)
	t.checks.Add(1)
	main := t.page.MainFrame()
	late := t.late.Swap(nil)
	asks := frameAsks(t, main, wait, kept, shown)
	answers := make(chan frameAnswer, len(asks))
	for _, k := range asks {
		go func() {
			framesAsked.Add(1)
			answers <- frameAnswer{k.where, k.ask()}
		}()
	}
	a, direct := watchAnswer{}, false
	if kept != nil {
		// The kept snapshot is of this document: its watcher was asked
		// through Playwright before, and may be asked directly (direct.go).
		a, direct = t.direct.check(t, wait)
	}
	if !direct {
		endMain := spans.Start("b.check.main")
		a = checkAt(main.Locator(changeEngine+"=check"), wait)
		endMain()
		if kept != nil {
			t.direct.find(t)
		}
	}
	if a.Title != nil {
		t.checkedTitle.Store(&checkedTitle{check: t.checks.Load(), title: *a.Title})
	}
	if late != nil {
		<-late.done
		if late.changed.Load() && a.Changed == "" {
			a = watchAnswer{Changed: "frame: changed after the check before"}
		}
	}
	if a.Changed != "" && kept != nil {
		t.late.Store(lateAnswers(answers, len(asks)))
		return a
	}
	why := watchAnswer{}
	for range asks {
		if b := <-answers; why.Changed == "" {
			why = b.says()
		}
	}
	if why.Changed != "" {
		return why
	}
	return a
}

// frameAsk is where a check asks one frame's watcher (ask: its answer).
type frameAsk struct {
	where string
	ask   func() watchAnswer
}

// frameAsks are the frames besides main a check asks (changedSince):
// those of kept's iframes; without kept, the main frame's iframes shown
// names (by index, when the guess fits the page's frames), else every
// frame.
func frameAsks(t *tab, main pw.Frame, wait time.Duration, kept *keptSnapshot, shown []int) []frameAsk {
	var asks []frameAsk
	if kept == nil && shown != nil && guessFits(shown, main) {
		for _, i := range shown {
			at := main.Locator("iframe").Nth(i).ContentFrame().Locator(changeEngine + "=check")
			asks = append(asks, frameAsk{fmt.Sprintf("iframe %d", i), func() watchAnswer { return checkAt(at, min(wait, frameRefWait)) }})
		}
		return asks
	}
	if kept == nil || kept.everyFrame {
		for _, f := range t.page.Frames() {
			if f != main {
				at := f.Locator(changeEngine + "=check")
				asks = append(asks, frameAsk{f.URL(), func() watchAnswer { return checkAt(at, wait) }})
			}
		}
		return asks
	}
	for _, ref := range kept.frames {
		asks = append(asks, frameAsk{"the frame of " + ref, func() watchAnswer {
			return kept.reach.check(t.page, ref, min(wait, frameRefWait))
		}})
	}
	return asks
}

// guessFits reports whether shown, iframe indexes the marks pass read in
// the page's own world, can be of main's iframes: increasing, and fewer
// than main's child frames (each iframe of the document has one). A guess
// that does not fit (a page that tampered with the pass) is dropped:
// every frame is asked, as without one.
func guessFits(shown []int, main pw.Frame) bool {
	n := len(main.ChildFrames())
	for k, i := range shown {
		if i < 0 || i >= n || k > 0 && i <= shown[k-1] {
			return false
		}
	}
	return true
}

// frameReach is the frames of a kept snapshot's iframe lines, by ref,
// each found once, by the first check that asks it (its iframe found by
// its ref, then the frame it holds: two driver round trips), then asked
// directly: one round trip, where a locator through the iframe's ref
// makes the driver find them again at every check. A frame that was
// found is the same frame at every later check this reach serves: they
// all answer from one snapshot whose watchers saw no mutation since the
// check that found it (the iframe is the same element; a navigation
// inside it is a new document there, whose new watcher answers "new
// document"; a frame since detached fails its check, a change).
type frameReach struct {
	mu     sync.Mutex
	frames map[string]pw.Frame
}

func newFrameReach() *frameReach { return &frameReach{frames: map[string]pw.Frame{}} }

// found is the frame of ref found before, or nil.
func (r *frameReach) found(ref string) pw.Frame {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.frames[ref]
}

// check asks the watcher of the frame of ref, found first when it was
// not: an iframe its ref no longer finds within wait (removed), or one
// that holds no frame, is a failed check, a change.
func (r *frameReach) check(p pw.Page, ref string, wait time.Duration) watchAnswer {
	f := r.found(ref)
	if f != nil {
		framesReached.Add(1)
	} else {
		var err error
		if f, err = frameOfRef(p, ref, wait); err != nil {
			return watchAnswer{Changed: "check failed", Detail: err.Error()}
		}
		r.mu.Lock()
		r.frames[ref] = f
		r.mu.Unlock()
	}
	return checkAt(f.Locator(changeEngine+"=check"), wait)
}

// frameOfRef is the frame the iframe of ref holds.
func frameOfRef(p pw.Page, ref string, wait time.Duration) (pw.Frame, error) {
	h, err := p.Locator("aria-ref=" + ref).ElementHandle(pw.LocatorElementHandleOptions{Timeout: pw.Float(float64(wait.Milliseconds()))})
	if err != nil {
		return nil, err
	}
	defer h.Dispose()
	f, err := h.ContentFrame()
	if err == nil && f == nil {
		err = fmt.Errorf("the iframe of %s holds no frame", ref)
	}
	return f, err
}

// frameAnswer is a frame watcher's answer, and where it was asked.
type frameAnswer struct {
	where string
	a     watchAnswer
}

// says is what a frame's answer says of the page: changed, unless nothing
// in the frame changed at all.
func (b frameAnswer) says() watchAnswer {
	switch {
	case b.a.Changed != "":
		return watchAnswer{Changed: "frame: " + b.a.Changed, Detail: capString(b.where, 200) + ": " + b.a.Detail}
	case b.a.Focus != "" || b.a.Place != nil || len(b.a.Values) > 0 || len(b.a.Sheets) > 0:
		return watchAnswer{Changed: "frame: focus or value", Detail: capString(b.where, 200)}
	}
	return watchAnswer{}
}

// lateChecks are the frames' answers a check did not wait for: done
// closes once all n came; changed is set if one said the page changed.
type lateChecks struct {
	done    chan struct{}
	changed atomic.Bool
}

func lateAnswers(answers <-chan frameAnswer, n int) *lateChecks {
	l := &lateChecks{done: make(chan struct{})}
	go func() {
		defer close(l.done)
		for range n {
			if b := <-answers; b.says().Changed != "" {
				l.changed.Store(true)
			}
		}
	}()
	return l
}

// lateSettled drops the frames' late answers when all came before the
// snapshot about to be taken: any change they checked off is in it.
func lateSettled(t *tab) {
	if l := t.late.Load(); l != nil {
		select {
		case <-l.done:
			t.late.CompareAndSwap(l, nil)
		default:
		}
	}
}

// frameRefWait bounds a check of a frame reached by its iframe's ref:
// a ref that no longer resolves (its iframe removed) is waited for, not
// failed at once.
const frameRefWait = time.Second

// checkAt asks the watcher at (a frame's ww-changes=check).
func checkAt(at pw.Locator, wait time.Duration) watchAnswer {
	text, err := at.TextContent(pw.LocatorTextContentOptions{Timeout: pw.Float(float64(wait.Milliseconds()))})
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
	// The kept snapshot's frames are asked when it is this document's
	// (else a new snapshot follows, whose period every frame starts).
	reach := kept
	if kept != nil && (kept.doc != doc || kept.url != t.page.URL()) {
		reach = nil
	}
	a := changedSince(t, wait, reach, nil)
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
		} else if a.Place != nil {
			if snap, ok = placeActive(snap, a.Place); !ok {
				why = watchAnswer{Changed: "focus without ref", Detail: "line not told among " + strings.Join(a.Place.Seq, " ")}
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
	if a.Focus != "" || a.Unseen || a.Place != nil || len(a.Values) > 0 {
		snapshotsPatched.Add(1)
	}
	snapshotsSkipped.Add(1)
	t.kept.Store(&keptSnapshot{doc: kept.doc, url: kept.url, snap: snap, frames: kept.frames, everyFrame: kept.everyFrame, reach: kept.reach, fields: kept.fields, carried: true})
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

// maxFailedList bounds failedList (it goes into a selector with every
// snapshot): past it, the sheets not listed count as loaded.
const maxFailedList = 32 << 10

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

// failedList is the addresses that failed to load (the last request of
// each), each query-escaped, comma separated: the judge's walk takes such
// a sheet, which it cannot read when it is another origin's, to apply
// nothing (authored.js).
func (l *sheetLoads) failedList() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var b strings.Builder
	for u, failed := range l.failed {
		if !failed || b.Len() > maxFailedList {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(',')
		}
		b.WriteString(url.QueryEscape(u))
	}
	return b.String()
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
// at url, taken after a check (url read before it); raw is the snapshot
// as Playwright took it, whose iframe lines say which frames it holds.
func keepSnapshot(t *tab, doc int64, url, snap, raw string) {
	frames, ok := iframeRefs(raw)
	t.kept.Store(&keptSnapshot{doc: doc, url: url, snap: snap, frames: frames, everyFrame: !ok, reach: newFrameReach()})
}

// snapshotsSkipped counts the snapshots answered by unchangedSnapshot, and
// snapshotsPatched those of them patched, for tests and benchmarks: a
// skipped snapshot is seen here, not in time.
var snapshotsSkipped, snapshotsPatched atomic.Int64

// watchChecks counts the checks of a page's watchers (changedSince), each
// a round trip per frame, for tests; framesAsked counts the frames other
// than the main frame those checks asked.
var watchChecks, framesAsked atomic.Int64

// framesReached counts the frames checks asked as frames found before
// (frameReach), for tests.
var framesReached atomic.Int64

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
