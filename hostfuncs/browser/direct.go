package browser

import (
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/internal/spans"
)

// The main frame's check, asked straight through the DevTools protocol.
//
// Through Playwright, a check is a locator's textContent: the driver
// resolves the watcher's selector in its isolated world, then reads the
// text (8.0-8.3 ms a check at load 17-21, median, where the same function
// called through one Runtime.evaluate in the same world took 5.6-5.8 ms,
// about 1.2 ms of either the watcher's own work); and every locator call
// fires an event a page's scripts can see. The watcher
// (changesJS) leaves its answer function in the isolated world's global
// scope (out of the page's reach) at its first check, which Playwright
// asks; the host finds that world's execution context in the document's
// main frame once (directCheck.find, beside the call that asked), and
// from then on, while the tab shows the same document, asks the same
// watcher through the tab's own protocol session: the same function, the
// same answer, one round trip.
//
// It fails closed. A check that could not be sent the direct way (no
// context found yet, another document since it was found) goes through
// Playwright as before; one that was sent and failed in any way (an
// error, no answer in time, an answer that is not the watcher's, the tab
// showing another document when it came back) is a change: a new
// snapshot, never a second check that would find the first one's period
// already ended. A document that leaves its frame marks its watcher
// changed (pagehide), so a context of a document no longer shown never
// answers "unchanged".

// directCheck is a tab's way to its main frame's watcher: the protocol
// session and the isolated world's execution context in doc's main
// frame.
type directCheck struct {
	mu sync.Mutex
	// broken: the tab's protocol session (tab.proto) could not be
	// opened; the tab checks through Playwright.
	broken bool
	// doc is the document the last find was for; ctx the unique id of
	// the isolated world's context it found in the main frame ("" when
	// it found none, or not exactly one).
	doc *document
	ctx string
	// finding is closed when the find under way ends (nil when none is).
	finding chan struct{}
	// answered counts the checks answered the direct way (tests).
	answered atomic.Int64
}

// directWorldFn is what a direct check evaluates: the watcher's answer
// function, left in Playwright's isolated world by its first check.
const directWorldFn = `typeof globalThis.__wwCheck === "function" ? globalThis.__wwCheck() : ""`

// check asks the watcher of t's main frame directly; ok is false when it
// could not be asked that way (nothing was sent: the caller asks through
// Playwright). Any failure once sent is a change.
func (d *directCheck) check(t *tab, wait time.Duration) (a watchAnswer, ok bool) {
	cur := t.cur.Load()
	cdp := t.proto.current()
	d.mu.Lock()
	ctx := d.ctx
	usable := cdp != nil && d.doc == cur && ctx != "" && d.finding == nil
	d.mu.Unlock()
	if !usable || cur == nil {
		return watchAnswer{}, false
	}
	defer spans.Start("b.check.direct")()
	// (The answer comes through got: a send past wait writes nothing the
	// caller reads.)
	got := make(chan any, 1)
	err := bounded(wait, func() error {
		v, err := cdp.Send("Runtime.evaluate", map[string]any{"expression": directWorldFn, "uniqueContextId": ctx, "returnByValue": true, "silent": true})
		got <- v
		return err
	})
	var v any
	if err == nil {
		v = <-got
	}
	text, err := evaluatedString(v, err)
	if err == nil && t.cur.Load() != cur {
		err = errors.New("the tab showed another document when the answer came")
	}
	if err == nil {
		err = json.Unmarshal([]byte(text), &a)
	}
	if err != nil {
		// Forget the context: the next check goes through Playwright
		// (after this change's new snapshot), and finds it again.
		d.mu.Lock()
		if d.ctx == ctx {
			d.doc, d.ctx = nil, ""
		}
		d.mu.Unlock()
		return watchAnswer{Changed: "check failed", Detail: "direct: " + err.Error()}, true
	}
	d.answered.Add(1)
	return a, true
}

// evaluatedString is the string a Runtime.evaluate returned by value: an
// exception, another type or an empty string (the watcher's function not
// there) is an error.
func evaluatedString(v any, err error) (string, error) {
	if err != nil {
		return "", err
	}
	var res struct {
		Result struct {
			Type  string `json:"type"`
			Value any    `json:"value"`
		} `json:"result"`
		ExceptionDetails any `json:"exceptionDetails"`
	}
	b, err := json.Marshal(v)
	if err == nil {
		err = json.Unmarshal(b, &res)
	}
	if err != nil {
		return "", err
	}
	if res.ExceptionDetails != nil {
		return "", errors.New("the watcher threw")
	}
	s, _ := res.Result.Value.(string)
	if res.Result.Type != "string" || s == "" {
		return "", errors.New("no watcher in the world asked")
	}
	return s, nil
}

// find looks for the isolated world of t's document's main frame, in the
// background, unless it was looked for in this document already (or is
// being looked for): called after a check through Playwright, which
// made the watcher leave its function there. A tab that cannot open its
// protocol session (tab.proto) keeps checking through Playwright.
func (d *directCheck) find(t *tab) {
	cur := t.cur.Load()
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.broken || d.finding != nil || d.doc == cur || cur == nil {
		return
	}
	done := make(chan struct{})
	d.finding = done
	go func() {
		defer close(done)
		ctx, err := d.lookUp(t)
		d.mu.Lock()
		defer d.mu.Unlock()
		d.finding = nil
		if errors.Is(err, errNoSession) {
			d.broken = true
			return
		}
		if err != nil || t.cur.Load() != cur {
			ctx = ""
		}
		d.doc, d.ctx = cur, ctx
	}()
}

// lookUp is the unique id of the one Playwright isolated world of t's
// main frame ("" when there is not exactly one), asked on the tab's
// protocol session.
func (d *directCheck) lookUp(t *tab) (string, error) {
	found := ""
	err := t.proto.do(t, func(cdp pw.CDPSession) error {
		var tree struct {
			FrameTree struct {
				Frame struct {
					ID string `json:"id"`
				} `json:"frame"`
			} `json:"frameTree"`
		}
		if err := cdpInto(cdp, "Page.getFrameTree", nil, &tree); err != nil {
			return err
		}
		all, err := execContexts(cdp)
		if err != nil {
			return err
		}
		found = ""
		for _, x := range all {
			if x.frameID != tree.FrameTree.Frame.ID || !strings.HasPrefix(x.name, utilityWorld) || x.uniqueID == "" {
				continue
			}
			if found != "" {
				found = "" // more than one
				break
			}
			found = x.uniqueID
		}
		return nil
	})
	return found, err
}

// settle waits for a find under way (tests).
func (d *directCheck) settle() {
	d.mu.Lock()
	f := d.finding
	d.mu.Unlock()
	if f != nil {
		<-f
	}
}
