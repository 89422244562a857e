package browser

import (
	"fmt"
	"html"
	"strings"
	"sync"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/internal/spans"
)

// The gate: a verdict is a fact about one document.
//
// Every main-frame document a tab shows is a document value (tab.cur),
// born unjudged whatever brought it: a navigate, a link, the page
// navigating itself (a timer, a meta refresh, history.back()), a reload, a
// popup's first page, a tab the host re-created. The kernel's detector
// chain (Options.Judge) decides it once, on its own facts, and the
// verdict stays with that document: a verdict reached for one tab's
// document can never land on another tab, and a new document in the same
// tab starts unjudged again.
//
// Every host function that reads or acts on a tab passes the gate
// (onTab): the tab's current document must be judged clean. An unjudged
// one is judged there, within the call's budget, before anything of it is
// read; a withheld one answers its failure. A document that changes while
// a call runs is judged again before the call's answer leaves (onTab's
// second look), so an answer never carries a document nobody judged.
//
// A withheld document is contained (contain): its page is frozen (no
// timers, no scripts, no requests, no dialogs), its pending dialog is
// dismissed, and what it logged (network bodies, console lines, its
// titles and URLs in tab lists) is left out of every answer.

// docState is what the kernel decided about a document.
type docState int32

const (
	docUnjudged docState = iota
	docClean
	docWithheld
)

// document is one main-frame document of a tab.
type document struct {
	seq int64 // its number in the tab
	mu  sync.Mutex
	// state and err: the verdict; err is the failure a withheld
	// document answers (withheldFailure).
	state docState
	err   *abi.Error
	// frozen: contain froze its page, through cdp (kept attached: the
	// freeze lasts as long as the session that set it).
	frozen bool
	cdp    pw.CDPSession
	// url is the URL it was loaded from: the one it is judged and
	// listed by, not one it sets for itself (history.replaceState).
	url string
	// seen is the last whole-page snapshot of it the gate looked at, and
	// base the size of the first one after its verdict (rejudge).
	seen *keptSnapshot
	base int
}

func (d *document) verdict() (docState, *abi.Error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.state, d.err
}

func (d *document) isFrozen() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.frozen
}

// clean reports whether d was judged and passed.
func (d *document) clean() bool {
	st, _ := d.verdict()
	return st == docClean
}

func (d *document) set(st docState, e *abi.Error) {
	d.mu.Lock()
	d.state, d.err = st, e
	d.mu.Unlock()
}

// newDocument makes a new, unjudged document current in t.
func (t *tab) newDocument() *document {
	d := &document{seq: t.docSeq.Add(1)}
	t.cur.Store(d)
	return d
}

// document is t's current document.
func (t *tab) document() *document {
	if d := t.cur.Load(); d != nil {
		return d
	}
	return t.newDocument()
}

// followDocuments starts a new document in t each time its main frame
// commits one (Playwright's "navigated" event with newDocument; a
// same-document navigation keeps the document). The event reaches this
// handler before the answer of any call that ran in the new document
// (one ordered stream from the driver), so a call that read the new
// document sees it changed when it returns. The main-frame request that
// brought the document is logged as its own.
func (s *session) followDocuments(p pw.Page, t *tab) {
	main := p.MainFrame()
	p.OnFrameNavigated(func(f pw.Frame) {
		if f != main {
			t.framesDirty.Store(true)
		}
	})
	em, ok := main.(pw.EventEmitter)
	if !ok {
		return
	}
	em.On("navigated", func(ev map[string]any) {
		if _, bad := ev["error"]; bad {
			return
		}
		if _, ok := ev["newDocument"]; !ok {
			return
		}
		old := t.cur.Load()
		d := t.newDocument()
		d.url, _ = ev["url"].(string)
		if old != nil && old.isFrozen() {
			go thawDoc(s, t, old) // never call back from the event goroutine
		}
		s.evMu.Lock()
		defer s.evMu.Unlock()
		items := s.network.items
		for i := len(items) - 1; i >= 0; i-- {
			if n := items[i]; n.tab == t && n.mainDoc {
				if n.doc == nil {
					n.doc = d
				}
				break
			}
		}
	})
}

// loadURL is the URL t's document was loaded from, for an answer about a
// document not judged clean (the one it sets for itself is its content).
func loadURL(t *tab) string {
	if d := t.document(); d.url != "" {
		return d.url
	}
	return originOf(t.page.URL())
}

// withheldDoc reports whether d was judged and withheld.
func withheldDoc(d *document) bool {
	if d == nil {
		return false
	}
	st, _ := d.verdict()
	return st == docWithheld
}

// shownDoc reports whether what document d logged or set may be shown:
// it was judged clean, or is no document (a navigation that never
// committed).
func shownDoc(d *document) bool {
	return d == nil || d.clean()
}

// gateKind says how a host function meets the gate (gateTable).
type gateKind int

const (
	// gateTab: reads or acts on the current tab; its document must be
	// judged clean (onTab).
	gateTab gateKind = iota
	// gateLeave: a way off a withheld document (navigate, history, tabs):
	// it runs on one, and judges the document it ends on before it answers.
	gateLeave
	// gateNone: touches no tab and returns no page content.
	gateNone
)

// gateTable is how every browser host function meets the gate. A host
// function missing from it is refused at registration (HostFuncs panics
// in tests: TestEveryHostFunctionMeetsTheGate): a new surface gets the
// gate by default, never by remembering.
var gateTable = map[string]gateKind{
	abi.HostBrowserNavigate: gateLeave,
	abi.HostBrowserHistory:  gateLeave,
	abi.HostBrowserTabs:     gateLeave,
	abi.HostBrowserSnapshot: gateTab,
	abi.HostBrowserAct:      gateTab,
	abi.HostBrowserFillForm: gateTab,
	abi.HostBrowserUpload:   gateTab,
	abi.HostBrowserWaitFor:  gateTab,
	// Answering a dialog reads nothing of the page: a document that
	// raised one while it loaded is judged once it is answered.
	abi.HostBrowserDialog:        gateLeave,
	abi.HostBrowserConsole:       gateTab,
	abi.HostBrowserNetwork:       gateTab,
	abi.HostBrowserImages:        gateTab,
	abi.HostBrowserComputedStyle: gateTab,
	abi.HostBrowserScreenshot:    gateTab,
	abi.HostBrowserPDF:           gateTab,
	abi.HostBrowserEvaluate:      gateTab,
	abi.HostBrowserStorage:       gateTab,
	abi.HostBrowserCookies:       gateTab,
	abi.HostBrowserSources:       gateTab,
	abi.HostBrowserEmulate:       gateTab,
	abi.HostBrowserResize:        gateTab,
	abi.HostBrowserRead:          gateTab,
	abi.HostVisionLocate:         gateTab,
	abi.HostBrowserClose:         gateNone,
	abi.HostBrowserSessions:      gateNone,
	abi.HostBrowserProfile:       gateNone,
}

// gate is the decision every call on tab t passes before it reads or acts
// (onTab): nil when t's current document is judged clean (judging it now
// if nobody has), its failure when withheld.
func (s *pages) gate(ss *session, t *tab) error {
	_, err := s.gateFrames(ss, t)
	return err
}

// gateFrames is gate, saying also how many of the page's frames it
// withheld within it (judgeFrames): an answer read before that may carry
// them.
func (s *pages) gateFrames(ss *session, t *tab) (int, error) {
	defer spans.Start("b.gateFrames")()
	for i := 0; ; i++ {
		d := t.document()
		switch st, e := d.verdict(); st {
		case docClean:
			if t.framesDirty.Swap(false) {
				return s.judgeFrames(ss, t)
			}
			return 0, nil
		case docWithheld:
			return 0, e
		}
		if i == 3 {
			return 0, errKeepsReplacing(i)
		}
		if t.dialog.Load() != nil {
			// Its facts cannot be read while its dialog is open: no
			// verdict yet. The call runs: a page behind a dialog answers
			// nothing but the dialog (every read races it), and the
			// second look (afterGate) holds it to that.
			return 0, nil
		}
		if err := s.judge(ss, t, d, nil, nil); err != nil {
			return 0, err
		}
	}
}

func errKeepsReplacing(n int) error {
	return abi.Errorf(abi.CodeNotAvailable, "the page kept replacing its document (%d times while it was being read); nothing of it was shown: wait, then call again", n)
}

// afterGate is onTab's second look, once a call has run: the document t
// shows now must be judged clean too (the call may have read it). A
// document whose facts a dialog blocks has no verdict yet: a leaving
// call's answer, which carries nothing of it, goes out; any other call
// answers that the dialog comes first.
func (s *pages) afterGate(ss *session, t *tab, leaving bool, before *document) error {
	if t.page.IsClosed() {
		return nil
	}
	if d := t.document(); !d.clean() && t.dialog.Load() != nil {
		if st, e := d.verdict(); st == docWithheld {
			return e
		}
		if leaving || d == before {
			// Its dialog was open when the call began (or the call is a
			// way off it, whose answer carries nothing of the page:
			// readJudged): nothing of the page was readable.
			return nil
		}
		return errAnswerDialogFirst
	}
	if err := s.rejudge(ss, t); err != nil {
		return err
	}
	n, err := s.gateFrames(ss, t)
	if err == nil && n > 0 && !leaving {
		return abi.Errorf(abi.CodeRefused, "the call ran, and a frame of the page then loaded a page the bot-wall detector withheld: the frame now shows a host page instead, and this answer (which may hold the frame's page) is withheld; take a new snapshot")
	}
	return err
}

// rejudge judges t's clean document again when it has turned into another
// page since its verdict: a whole-page snapshot taken since (the change
// watcher saw it change) is less than half or more than twice the size of
// the first one after the verdict. A wall that a page writes over itself
// replaces most of it; a page that grows or shrinks by a few lines is not
// judged again (a detector run costs as much as the navigation's). Facts
// it cannot read are no verdict (detect_failure decides). Pages that
// change without a new snapshot (a read, a screenshot) are judged again
// at the next snapshot.
func (s *pages) rejudge(ss *session, t *tab) error {
	d := t.document()
	k := t.kept.Load()
	if k == nil || !d.clean() {
		return nil
	}
	d.mu.Lock()
	if k == d.seen {
		d.mu.Unlock()
		return nil
	}
	d.seen = k
	size, base := len(k.snap), d.base
	if base == 0 {
		d.base = size
	}
	d.mu.Unlock()
	if base == 0 || !changedMuch(base, size) {
		return nil
	}
	d.set(docUnjudged, nil)
	d.mu.Lock()
	d.base = size
	d.mu.Unlock()
	return s.judge(ss, t, d, nil, nil)
}

// changedMuch: a page of size now is another page than one of size base.
func changedMuch(base, now int) bool {
	diff := base - now
	if diff < 0 {
		diff = -diff
	}
	return diff > 256 && (now < base/2 || now > base*2)
}

// readJudged reads t's facts and, with withSnap, its snapshot (pageFacts),
// and judges the document they came from before they are returned: a
// page that replaced its document meanwhile is read again. early says
// the navigation answered before the document parsed (wait_until
// commit): the judge reads its own facts once it has. A dialog that
// blocks the read leaves the document unjudged (pageFacts returns no
// title, nor any of its content).
func (s *pages) readJudged(ss *session, t *tab, resp pw.Response, withSnap, early bool) (pg *abi.Page, snap string, title func() string, err error) {
	defer spans.Start("b.readJudged")()
	for i := 0; i < 3; i++ {
		d := t.document()
		pg, snap, title, err = s.pageFacts(ss, t, resp, withSnap)
		if err != nil {
			return pg, snap, title, err
		}
		if title == nil && t.dialog.Load() != nil && !d.clean() {
			// A dialog blocks the facts: no verdict yet. The answer
			// carries the URL the document was loaded from, nothing it
			// set itself; answering the dialog lets it be judged.
			return &abi.Page{URL: loadURL(t)}, "", nil, nil
		}
		if t.document() != d {
			resp = nil
			continue
		}
		facts := pg
		if early || title == nil {
			facts = nil
		}
		if st, e := d.verdict(); st == docWithheld {
			return nil, "", nil, e
		} else if st == docUnjudged {
			if err = s.judge(ss, t, d, facts, nil); err != nil {
				return nil, "", nil, err
			}
		}
		if t.document() != d {
			resp = nil
			continue
		}
		n, err := s.gateFrames(ss, t)
		if err != nil {
			return nil, "", nil, err
		}
		if n > 0 && withSnap {
			// The snapshot was taken with the withheld frames' pages.
			if snap, err = s.snapshot(ss, t, "", 0); err != nil {
				return nil, "", nil, err
			}
		}
		return pg, snap, title, nil
	}
	return nil, "", nil, errKeepsReplacing(3)
}

// detectors is the kernel's judge for the call holding ss, nil when the
// call has no detectors to run (no judge, no caller, a personality
// without a detect hook). Its warnings (a detector failed open) go to the
// call's answer.
func (s *pages) detectors(ss *session) func(pg *abi.Page, unread error) *abi.Error {
	c := hostfuncs.CallerFrom(ss.ctx)
	if s.opts.Judge == nil || c == nil || c.NoDetector() {
		return nil
	}
	return func(pg *abi.Page, unread error) *abi.Error {
		verdict, warnings := s.opts.Judge(ss.ctx, c.Personality(), c.Session(), pg, unread)
		for _, w := range warnings {
			ss.warn(w)
		}
		return verdict
	}
}

// judge decides document d, current in t, on pg (its facts) or, when pg
// is nil, on facts it reads once the document has parsed. It returns d's
// failure when withheld. A document that stops being current while its
// facts are read is left unjudged (the facts may be its successor's): the
// caller judges the current one.
func (s *pages) judge(ss *session, t *tab, d *document, pg *abi.Page, unread error) error {
	defer spans.Start("b.judge")()
	c := hostfuncs.CallerFrom(ss.ctx)
	if c == nil {
		// Only an agent's call is judged for: nothing else may read
		// through the gate.
		return abi.Errorf(abi.CodeRefused, "this page has not been judged and no agent call is judging it")
	}
	detect := s.detectors(ss)
	if detect == nil {
		d.set(docClean, nil)
		return nil
	}
	if pg == nil && unread == nil {
		pg, unread = s.factsToJudge(ss, t)
	}
	if t.document() != d {
		return nil
	}
	if unread == nil && blankPage(pg) {
		d.set(docClean, nil)
		return nil
	}
	if pg != nil && d.url != "" {
		// Judged by the URL it was loaded from: the one it sets for
		// itself is its content.
		cp := *pg
		cp.URL = d.url
		pg = &cp
	}
	verdict := detect(pg, unread)
	if ss.ctx.Err() != nil && verdict == nil {
		// The call ended while the detector ran: no verdict.
		return abi.Errorf(abi.CodeTimeout, "the call's time ran out while the page was being judged; nothing of it was read: call again")
	}
	if verdict == nil {
		d.set(docClean, nil)
		t.framesDirty.Store(true) // its frames are judged next (judgeFrames)
		return nil
	}
	d.set(docWithheld, withheldFailure(verdict))
	s.contain(ss, t, d)
	return verdict
}

// factsToJudge reads the facts of t's document for the detector once it
// has parsed (DOMContentLoaded, within the navigation budget): a page
// answered at commit (wait_until) is judged on what it loads, not on an
// empty document. unread says why they could not be read (a dialog).
func (s *pages) factsToJudge(ss *session, t *tab) (*abi.Page, error) {
	if t.dialog.Load() != nil {
		// An open dialog blocks the load and every read of the page.
		return nil, errUnread
	}
	race0(ss, func() error {
		return t.page.WaitForLoadState(pw.PageWaitForLoadStateOptions{State: pw.LoadStateDomcontentloaded, Timeout: ms(s.cfg.navigationWait())})
	})
	pg, _, title, err := s.pageFacts(ss, t, nil, false)
	if err != nil {
		return pg, err
	}
	if title == nil {
		return pg, errUnread
	}
	return pg, nil
}

// errAnswerDialogFirst: a call would read a document not judged yet whose
// dialog blocks its facts.
var errAnswerDialogFirst = abi.Errorf(abi.CodeExecutionFailed, "the page opened a dialog before it could be judged, so nothing of it is shown yet: answer the dialog with browser_dialog (accept or dismiss); the page is judged then").With("dialog", "unjudged")

// errUnread: the facts of a document could not be read (it opened a
// dialog, or did not answer): no verdict.
var errUnread = abi.Errorf(abi.CodeNotAvailable, "the page's facts could not be read (a dialog was open, or the page did not answer)")

// blankPage: an empty about:blank document (a new tab before its first
// load) has nothing to judge.
func blankPage(pg *abi.Page) bool {
	return pg != nil && pg.URL == "about:blank" && pg.Title == "" && len(pg.Text) == 0 && len(pg.HTML) <= len("<html><head></head><body></body></html>")
}

// contain stops withheld document d of t from acting on the session: its
// page is frozen (script execution off: no timers, handlers, requests
// from scripts or dialogs; storage and BroadcastChannel writes stop with
// them), its open dialog is dismissed, and what it logged loses its
// bodies. A page that cannot be frozen (the CDP session refused) still
// has everything it shows withheld.
func (s *pages) contain(ss *session, t *tab, d *document) {
	if dl := t.dialog.Swap(nil); dl != nil {
		(*dl).Dismiss()
	}
	ss.evMu.Lock()
	for _, n := range ss.network.items {
		if n.doc == d {
			n.withheld.Store(true)
		}
	}
	ss.evMu.Unlock()
	cdp, err := switchScripts(ss, t, nil, true)
	if err != nil {
		s.log.Warn("a withheld page could not be frozen: what it shows stays withheld, but its scripts run", "session", ss.key.String(), "err", err)
		return
	}
	d.mu.Lock()
	d.frozen, d.cdp = true, cdp
	d.mu.Unlock()
}

// thaw lets t's frozen document run again: a human takes it over, or the
// agent leaves it.
func thaw(ss *session, t *tab) {
	if d := t.cur.Load(); d != nil {
		thawDoc(ss, t, d)
	}
}

// thawDoc ends d's freeze (the script switch is the tab's, not the
// document's: a document that replaces a frozen one runs).
func thawDoc(ss *session, t *tab, d *document) {
	d.mu.Lock()
	frozen, cdp := d.frozen, d.cdp
	d.frozen, d.cdp = false, nil
	d.mu.Unlock()
	if frozen {
		switchScripts(ss, t, cdp, false)
		cdp.Detach()
	}
}

// switchScripts turns script execution in t's page off (frozen) or on again
// through cdp, a CDP session on it (a new one when nil, returned: the
// switch holds while it is attached). Chromium's page lifecycle freeze
// (Page.setWebLifecycleState) was tried first: a visible page's timers
// kept firing under it.
func switchScripts(ss *session, t *tab, cdp pw.CDPSession, frozen bool) (pw.CDPSession, error) {
	if ss.bctx == nil {
		return nil, abi.Errorf(abi.CodeNotAvailable, "no browser context")
	}
	if cdp == nil {
		var err error
		if cdp, err = ss.bctx.NewCDPSession(t.page); err != nil {
			return nil, err
		}
	}
	if _, err := cdp.Send("Emulation.setScriptExecutionDisabled", map[string]any{"value": frozen}); err != nil {
		cdp.Detach()
		return nil, err
	}
	return cdp, nil
}

// withheldFrameHTML is what a withheld frame shows instead of its page.
const withheldFrameHTML = `<!doctype html><meta charset="utf-8"><title>withheld</title><p>This frame was withheld by the host: %s</p>`

// judgeFrames judges the documents of t's frames (a clean page's frames
// are documents of their own: a wall inside an iframe is a wall): each
// frame the detector chain withholds is withheld within the page, its
// document replaced by a host page that names the verdict (so no
// snapshot, screenshot or read of the page carries it, and its scripts
// stop). A frame whose facts cannot be read (it is loading, or detached)
// is judged at the next call (framesDirty). Blank frames have nothing to
// judge.
func (s *pages) judgeFrames(ss *session, t *tab) (replaced int, _ error) {
	detect := s.detectors(ss)
	if detect == nil {
		return 0, nil
	}
	max := s.cfg.DetectMaxMB << 20
	var frames []pw.Frame
	var urls []string
	for _, f := range t.page.Frames() {
		if f == t.page.MainFrame() || f.IsDetached() {
			continue
		}
		if u := f.URL(); u != "" && u != "about:blank" && t.judgedFrames[f] != u {
			frames, urls = append(frames, f), append(urls, u)
		}
	}
	if len(frames) == 0 {
		return 0, nil
	}
	// The frames' facts are read together (one round trip's time, not
	// one per frame: a page with ten ad frames paid 200-250 ms read one
	// by one), then judged one by one (a detector run is a few ms).
	facts := make([]map[string]any, len(frames))
	race(ss, func() (struct{}, error) {
		var wg sync.WaitGroup
		for i, f := range frames {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// The facts a main document is judged on, read in the frame.
				if v, err := f.Evaluate(factsJS, max); err == nil {
					facts[i], _ = v.(map[string]any)
				}
			}()
		}
		wg.Wait()
		return struct{}{}, nil
	})
	for i, f := range frames {
		m := facts[i]
		if m == nil {
			t.framesDirty.Store(true) // loading or detached: next call
			continue
		}
		pg := &abi.Page{URL: urls[i]}
		pg.Title, _ = m["title"].(string)
		text, _ := m["text"].(string)
		src, _ := m["html"].(string)
		pg.Text, pg.HTML = capString(text, max), capString(src, max)
		if pg.Title == "" && strings.TrimSpace(pg.Text) == "" {
			continue
		}
		verdict := detect(pg, nil)
		if verdict == nil {
			if t.judgedFrames == nil {
				t.judgedFrames = map[pw.Frame]string{}
			}
			t.judgedFrames[f] = urls[i]
			continue
		}
		s.log.Info("a frame was withheld within its page", "session", ss.key.String(), "code", verdict.Code)
		page := fmt.Sprintf(withheldFrameHTML, html.EscapeString(string(verdict.Code)))
		if _, _, err := race(ss, func() (struct{}, error) {
			return struct{}{}, f.SetContent(page, pw.FrameSetContentOptions{Timeout: ms(s.cfg.actionWait())})
		}); err != nil {
			// The frame could not be replaced: the page it is in is
			// withheld whole, rather than shown with it.
			d := t.document()
			d.set(docWithheld, withheldFailure(verdict))
			s.contain(ss, t, d)
			return replaced, verdict
		}
		replaced++
	}
	return replaced, nil
}

// judgeFetched judges a page the host fetched for the caller outside the
// page (a source fetch): HTML is a document like any other.
func (s *pages) judgeFetched(ss *session, u string, status int, headers map[string]string, body []byte) error {
	detect := s.detectors(ss)
	pg := hostfuncs.HTMLPage(u, status, headers, body)
	if detect == nil || pg == nil {
		return nil
	}
	if verdict := detect(pg, nil); verdict != nil {
		return verdict
	}
	return nil
}

// judgeTabs judges the documents of ss's tabs other than t that nobody
// has judged yet (a popup, a tab a page opened), so a tab list can name
// them: a title is a read. A tab with a dialog open, or whose facts
// cannot be read, stays unjudged and unnamed.
func (s *pages) judgeTabs(ss *session, t *tab, tabs []*tab) {
	if hostfuncs.CallerFrom(ss.ctx) == nil {
		return
	}
	for _, x := range tabs {
		if x == t || x.page.IsClosed() || x.dialog.Load() != nil {
			continue
		}
		if d := x.document(); !d.clean() && !withheldDoc(d) {
			s.judge(ss, x, d, nil, nil)
		}
	}
}
