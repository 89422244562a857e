package browser

import (
	"context"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
)

// sessKey names a session: one browser context per (personality, session).
type sessKey struct{ personality, session string }

func (k sessKey) String() string { return k.personality + "/" + k.session }

// session is one browser context with its tabs and the logs its events feed.
// mu serialises calls; evMu guards what Playwright's event goroutine writes
// (tabs, dialogs, console, network), which must never block on a call.
type session struct {
	key     sessKey
	mu      sync.Mutex
	bctx    pw.BrowserContext
	browser pw.Browser // the shared browser, nil for a persistent context
	// ownBrowser: browser is this session's alone (a grid browser), closed
	// when the session ends; grid ties it to its grid node (gridlost.go).
	ownBrowser bool
	grid       *gridLink
	persistent bool
	profile    *os.File // the profile's flock, held while open
	profileDir string   // the persistent profile's folder, or ""
	named      string   // the named profile it runs on (browser_profile), or ""
	// egressMark is the mark its egress proxy puts on the answers it gives
	// itself instead of a site's (answerMark), "" without one.
	egressMark string
	// proxy is its context's proxy URL, credentials included: a fetch the
	// host makes for it outside the page (browser_sources) goes the same
	// way, authenticated.
	proxy   string
	created time.Time
	// preWarnings are the warnings of its open when it was opened ahead
	// of its first call (preopen): that call's result carries them.
	preWarnings []string
	lastUsed    atomic.Int64 // unix nanos
	driving     atomic.Bool
	crashed     atomic.Bool
	closing     atomic.Bool
	crashWhy    atomic.Value // string

	env *env          // the service's life and call budget (await); nil in unit tests
	drv *sharedDriver // the driver this session's objects live on
	// ctx is the context of the call holding mu: Playwright calls made for
	// it stop waiting when it ends (await).
	ctx context.Context
	// suspect: a call gave up waiting on the browser, so the current tab
	// is checked before the next call uses it (unstick).
	suspect      atomic.Bool
	popupsClosed atomic.Int64 // popups closed beyond maxTabs, not yet reported
	// gone is closed when the session is closed or dropped: calls waiting
	// on it or on its browser return at once.
	gone     chan struct{}
	goneOnce sync.Once

	evMu     sync.Mutex
	tabs     []*tab
	cur      int
	newTabs  []*tab
	warnings []string
	console  ring[abi.BrowserConsoleMessage]
	network  ring[*netEntry]
	netByReq map[pw.Request]*netEntry
	netSeq   int64
	conSeq   int64
	// conDoc is the document that logged each console message (by Seq).
	conDoc map[int64]*document

	dialogCh  chan struct{} // a dialog opened
	tabOpened chan struct{} // the page or the browser opened a tab
}

// tab is one page.
type tab struct {
	page pw.Page
	// proto is the tab's own protocol session, of the search for closed
	// roots (closedroots.go, reachSlotted) and the direct check.
	proto tabProtocol
	// remote are the sessions of its frames of other processes, of the
	// same searches there (closedframes.go).
	remote remoteFrames
	refs   map[string]bool // refs of the latest snapshot
	// prejudge is the judge's walk asked behind the latest snapshot
	// (prejudge.go), until seen takes it.
	prejudge atomic.Pointer[prejudge]
	// prejudges counts the walks seen took from it (tests).
	prejudges atomic.Int64
	// refLines are the latest snapshot's lines by ref (refLines).
	refLines map[string]string
	navSeq   atomic.Int64 // main-frame navigation requests seen
	dialog   atomic.Pointer[pw.Dialog]
	doc      atomic.Pointer[docInfo] // the last main-frame document response
	// navFail is the last main-frame navigation that failed (no response).
	navFail atomic.Pointer[navFailure]
	// probed holds the probes locateToAct started in this call, for ready
	// (cleared when the next call begins).
	probed map[string]func() (probe, bool)
	// plainAhead holds, by ref, what this call's probe of a field it
	// types into said of it (plain: not a secret field, secretFieldFn),
	// for redactKept (cleared when the next call begins), and the count
	// of the tab's checks then (aheadAt).
	plainAhead map[string]bool
	aheadAt    int64
	// checks counts the checks of the tab's watchers (changedSince).
	checks atomic.Int64
	// checkedTitle is the title the main frame's watcher read at its
	// latest check (changes.go), with the count of checks then.
	checkedTitle atomic.Pointer[checkedTitle]
	// unmarked is navSeq+1 when the latest snapshot of that document found
	// no marked elements (aria), 0 otherwise.
	unmarked atomic.Int64
	// kept is the latest whole-page snapshot, for a page that has not
	// changed since (changes.go); late, the frames' answers its latest
	// check did not wait for (watch.go).
	kept atomic.Pointer[keptSnapshot]
	late atomic.Pointer[lateChecks]
	// sheets are the tab's stylesheet loads, for the watcher (changes.go).
	sheets sheetLoads
	// cur is the document the tab shows, with its verdict (gate.go);
	// docSeq numbers them.
	cur    atomic.Pointer[document]
	docSeq atomic.Int64
	// framesDirty: a frame of the page loaded a document since its
	// frames were judged (gate.go, judgeFrames).
	framesDirty atomic.Bool
	// judgedFrames are the frames judged clean, by the URL they were
	// judged at (the session's lock guards it).
	judgedFrames map[pw.Frame]string
	// direct is the way to the main frame's watcher through the tab's own
	// protocol session (proto; direct.go).
	direct directCheck
}

// docInfo is what a main-frame navigation response said; seq is the
// tab's navSeq when it came.
type docInfo struct {
	url     string
	status  int
	headers map[string]string
	seq     int64
}

// navFailure is a main-frame navigation request that failed: its URL and
// Chromium's error (net::ERR_...).
type navFailure struct {
	url, err string
	seq      int64
}

type netEntry struct {
	abi.BrowserNetworkEntry
	req   pw.Request
	start time.Time
	tab   *tab
	// mainDoc: a navigation of the tab's main frame (a new document).
	mainDoc bool
	// withheld: the document that loaded it was withheld, so its body is
	// not given (withheld.go).
	withheld atomic.Bool
	// doc is the document that made the request; for a main-frame
	// navigation, the document it brought (set when it commits), nil
	// until then.
	doc *document
}

// ring keeps the last n items and counts the ones dropped.
type ring[T any] struct {
	items   []T
	max     int
	dropped int64
}

func (r *ring[T]) add(v T) (evicted T, did bool) {
	if r.max == 0 {
		r.max = 500
	}
	if len(r.items) >= r.max {
		evicted, did = r.items[0], true
		copy(r.items, r.items[1:])
		r.items = r.items[:len(r.items)-1]
		r.dropped++
	}
	r.items = append(r.items, v)
	return evicted, did
}

func (s *session) touch() { s.lastUsed.Store(time.Now().UnixNano()) }

func (s *session) idle() time.Duration {
	return time.Since(time.Unix(0, s.lastUsed.Load()))
}

func (s *session) markCrashed(why string) {
	if s.closing.Load() {
		return
	}
	if s.crashed.CompareAndSwap(false, true) {
		s.crashWhy.Store(why)
	}
}

func (s *session) crashReason() string {
	if v, ok := s.crashWhy.Load().(string); ok {
		return v
	}
	return "the browser went away"
}

// current returns the current tab, or nil when every tab is closed.
func (s *session) current() *tab {
	s.evMu.Lock()
	defer s.evMu.Unlock()
	if len(s.tabs) == 0 {
		return nil
	}
	if s.cur >= len(s.tabs) || s.cur < 0 {
		s.cur = len(s.tabs) - 1
	}
	return s.tabs[s.cur]
}

func (s *session) tabIndex(t *tab) int {
	s.evMu.Lock()
	defer s.evMu.Unlock()
	for i, x := range s.tabs {
		if x == t {
			return i
		}
	}
	return -1
}

func (s *session) warn(msg string) {
	s.evMu.Lock()
	s.warnings = append(s.warnings, msg)
	s.evMu.Unlock()
}

// attach adds a page as a tab and wires its events. Handlers run on
// Playwright's dispatch goroutine: they only record, never call back.
func (s *session) attach(p pw.Page) *tab {
	t := &tab{page: p, refs: map[string]bool{}}
	t.newDocument()
	s.evMu.Lock()
	for _, x := range s.tabs {
		if x.page == p {
			s.evMu.Unlock()
			return x
		}
	}
	s.tabs = append(s.tabs, t)
	s.evMu.Unlock()

	main := p.MainFrame()
	s.followDocuments(p, t)
	s.followTab(p, t)
	s.followNetwork(p, t, main)
	return t
}

// followTab follows what a tab's page tells on its own: dialogs, console
// messages and errors, a crash, its closing.
func (s *session) followTab(p pw.Page, t *tab) {
	p.OnDialog(func(d pw.Dialog) {
		if withheldDoc(t.cur.Load()) {
			// A withheld page's dialog reaches nobody (contain).
			go d.Dismiss()
			return
		}
		t.dialog.Store(&d)
		select {
		case s.dialogCh <- struct{}{}:
		default:
		}
	})
	p.OnConsole(func(m pw.ConsoleMessage) {
		e := abi.BrowserConsoleMessage{Type: m.Type(), Text: capString(m.Text(), 4000), Tab: s.tabIndex(t)}
		if l := m.Location(); l != nil {
			e.URL, e.Line = l.URL, l.LineNumber
		}
		s.addConsole(t, e)
	})
	p.OnPageError(func(err error) {
		s.addConsole(t, abi.BrowserConsoleMessage{Type: "pageerror", Text: capString(err.Error(), 4000), Tab: s.tabIndex(t)})
	})
	p.OnCrash(func(pw.Page) { s.markCrashed("the page crashed") })
	p.OnClose(func(pw.Page) {
		s.evMu.Lock()
		defer s.evMu.Unlock()
		for i, x := range s.tabs {
			if x == t {
				s.tabs = append(s.tabs[:i], s.tabs[i+1:]...)
				if s.cur > i || s.cur >= len(s.tabs) {
					s.cur--
				}
				if s.cur < 0 {
					s.cur = 0
				}
				break
			}
		}
	})
}

// followNetwork logs the tab's requests (the network ring) and notes its
// main-frame navigations: their count, the last document and the last
// that failed.
func (s *session) followNetwork(p pw.Page, t *tab, main pw.Frame) {
	p.OnRequest(func(r pw.Request) {
		mainDoc := r.IsNavigationRequest() && r.Frame() == main
		if mainDoc {
			t.navSeq.Add(1)
		}
		s.evMu.Lock()
		defer s.evMu.Unlock()
		s.netSeq++
		e := &netEntry{req: r, start: time.Now(), tab: t, mainDoc: mainDoc}
		if !mainDoc {
			e.doc = t.cur.Load()
			e.withheld.Store(e.doc != nil && withheldDoc(e.doc))
		}
		e.ID, e.Method, e.URL, e.ResourceType = s.netSeq, r.Method(), capString(r.URL(), 2000), r.ResourceType()
		e.Tab = s.indexLocked(t)
		if s.netByReq == nil {
			s.netByReq = map[pw.Request]*netEntry{}
		}
		s.netByReq[r] = e
		if old, did := s.network.add(e); did {
			delete(s.netByReq, old.req)
		}
	})
	p.OnResponse(func(r pw.Response) {
		req := r.Request()
		if req.IsNavigationRequest() && req.Frame() == main {
			t.doc.Store(&docInfo{url: r.URL(), status: r.Status(), headers: r.Headers(), seq: t.navSeq.Load()})
		}
		s.evMu.Lock()
		defer s.evMu.Unlock()
		if e := s.netByReq[req]; e != nil {
			e.Status = r.Status()
			ct := r.Headers()["content-type"]
			e.MIME, _, _ = strings.Cut(ct, ";")
		}
	})
	p.OnRequestFinished(func(r pw.Request) { s.requestEnded(t, r, false, "") })
	p.OnRequestFailed(func(r pw.Request) {
		failure := "failed"
		if e := r.Failure(); e != nil {
			failure = e.Error()
		}
		if r.IsNavigationRequest() && r.Frame() == main {
			t.navFail.Store(&navFailure{url: r.URL(), err: failure, seq: t.navSeq.Load()})
		}
		s.requestEnded(t, r, true, failure)
	})
}

// requestEnded notes a request of t that finished, or failed (failure
// says why): a stylesheet's outcome, and the network log entry's duration
// and failure.
func (s *session) requestEnded(t *tab, r pw.Request, failed bool, failure string) {
	if r.ResourceType() == "stylesheet" {
		t.sheets.note(r.URL(), failed)
	}
	s.evMu.Lock()
	defer s.evMu.Unlock()
	if e := s.netByReq[r]; e != nil {
		e.DurationMS = time.Since(e.start).Milliseconds()
		if failed {
			e.Failure = failure
		}
	}
}

func (s *session) indexLocked(t *tab) int {
	for i, x := range s.tabs {
		if x == t {
			return i
		}
	}
	return -1
}

func (s *session) addConsole(t *tab, e abi.BrowserConsoleMessage) {
	s.evMu.Lock()
	defer s.evMu.Unlock()
	s.conSeq++
	e.Seq = s.conSeq
	if s.conDoc == nil {
		s.conDoc = map[int64]*document{}
	}
	s.conDoc[e.Seq] = t.cur.Load()
	if old, did := s.console.add(e); did {
		delete(s.conDoc, old.Seq)
	}
}

func capString(s string, n int) string {
	if len(s) <= n {
		return s
	}
	// Cut on a rune boundary.
	for n > 0 && n < len(s) && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
