package browser

import (
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

// gateKind says how a host function meets the gate. Each host function's
// family declares it beside the handler (hostFunc, service.go); the zero
// kind, gateTab, is the strictest, so a new surface gets the gate by
// default, never by remembering.
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
