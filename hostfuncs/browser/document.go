package browser

import (
	"sync"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
)

// A tab's documents: each main-frame document the tab shows carries its
// own verdict (gate.go says why a verdict belongs to a document).

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
