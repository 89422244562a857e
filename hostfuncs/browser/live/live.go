// Package live is the operator's live view of a browser session: the
// screencast of its current tab while someone watches, the concealed
// frames a takeover link's holder gets instead, and an operator's input
// on the page. It knows nothing of the browser's sessions: what it needs
// of them (a session's current tab, checking a URL, hiding secrets in a
// capture, the concealment of the operator's typing) comes through Tabs.
// Everything is bounded.
package live

import (
	"bytes"
	"context"
	"encoding/base64"
	"sync"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/wait"
)

// operatorWait bounds one operator action (an input, a navigation, a CDP
// command) so a stuck page never holds the console.
const operatorWait = 10 * time.Second

// closeWait bounds stopping a screencast and detaching its CDP session.
const closeWait = 5 * time.Second

// Tabs is what the live view needs of the browser's sessions.
type Tabs interface {
	// Current is the session's current tab, or nil when it has none.
	Current(personality, session string) pw.Page
	// CheckURL checks a URL the operator asks to open as an agent's is
	// checked (http(s), the network policy) and returns the URL to open.
	CheckURL(raw string) (string, error)
	// NavigationWait bounds the operator's navigation.
	NavigationWait() time.Duration
	// Conceal runs shot on p with the session's secret values hidden on
	// the page, and fails closed when one would show.
	Conceal(p pw.Page, personality, session string, shot func() ([]byte, error)) ([]byte, error)
	// Settle ends the operator's typing in the session: what they typed
	// into a secret field becomes a secret.
	Settle(personality, session string)
	// Focused notes the field holding the focus on p after the operator's
	// click (click) or key or text: a secret field's value is held.
	Focused(personality, session string, p pw.Page, click bool)
}

// View serves the live views of the sessions of one browser.
type View struct {
	tabs Tabs
	// locks serialise concealed captures with input (concealed.go).
	locks locks
}

// New returns the live view of the sessions tabs knows.
func New(tabs Tabs) *View { return &View{tabs: tabs} }

// Frame is one screencast frame: a JPEG of the viewport and the
// viewport's size in CSS pixels (what operator input coordinates use).
type Frame struct {
	JPEG          []byte
	Width, Height float64
}

// Screencast streams the session's current tab to frame until ctx is done,
// restarting on the new tab when the session's current tab changes. It
// returns when ctx is done or the session has no open page.
func (v *View) Screencast(ctx context.Context, personality, session string, maxW, maxH int, frame func(Frame)) error {
	for {
		p := v.tabs.Current(personality, session)
		if p == nil {
			return abi.Errorf(abi.CodeNoSession, "the session %s/%s has no open page", personality, session)
		}
		if err := castPage(ctx, p, maxW, maxH, func() bool { return v.tabs.Current(personality, session) != p }, frame); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return nil
		}
	}
}

// castPage screencasts one page until ctx is done, the page closes or
// moved reports the session's current tab is another one (then nil, so
// Screencast starts on it). A watcher checks moved twice a second.
func castPage(ctx context.Context, p pw.Page, maxW, maxH int, moved func() bool, frame func(Frame)) error {
	// (The session is handed over on a channel: one that attaches after
	// the wait gave up is detached, not written where this reads.)
	got := make(chan pw.CDPSession, 1)
	if err := wait.Bounded(operatorWait, func() error {
		c, err := p.Context().NewCDPSession(p)
		got <- c // (nil with err)
		return err
	}); err != nil {
		go func() {
			if c := <-got; c != nil {
				c.Detach()
			}
		}()
		return abi.Errorf(abi.CodeNotAvailable, "the live view needs a Chromium page reachable over CDP: %v", err)
	}
	cdp := <-got
	defer wait.Bounded(closeWait, cdp.Detach)
	frames := &latestFrame{ch: make(chan map[string]any, 1), ack: func(ev map[string]any) {
		go cdp.Send("Page.screencastFrameAck", map[string]any{"sessionId": ev["sessionId"]})
	}}
	cdp.On("Page.screencastFrame", frames.put)
	closed := make(chan struct{})
	var once sync.Once
	cdp.OnClose(func(pw.CDPSession) { once.Do(func() { close(closed) }) })
	pageClosed := func(pw.Page) { once.Do(func() { close(closed) }) }
	p.OnClose(pageClosed)
	defer p.RemoveListener("close", pageClosed) // one per viewer: do not pile up on the page
	if err := wait.Bounded(operatorWait, func() error {
		_, err := cdp.Send("Page.startScreencast", map[string]any{"format": "jpeg", "quality": 70, "maxWidth": maxW, "maxHeight": maxH, "everyNthFrame": 1})
		return err
	}); err != nil {
		return abi.Errorf(abi.CodeNotAvailable, "the live view could not start: %v", err)
	}
	defer wait.Bounded(closeWait, func() error { _, err := cdp.Send("Page.stopScreencast", nil); return err })
	return relay(ctx, cdp, frames, closed, moved, frame)
}

// relay passes the screencast's frames to frame until ctx is done, the
// page closes or moved says the session's current tab is another one.
// Chromium skips frames while too many are unacknowledged, and then sends
// one only when the page is drawn again: the last state of a page that
// stopped changing may never come (a new tab's content, after its blank
// page). Once the screencast has been quiet for stillAfter, the viewer gets
// a screenshot of the page, unless a frame came since it was asked for;
// and another every stillAgain while it stays quiet, when it differs from
// the last one sent (a page drawn after the first one, as a slow new tab's
// content is, with no screencast frame for it).
func relay(ctx context.Context, cdp pw.CDPSession, frames *latestFrame, closed <-chan struct{}, moved func() bool, frame func(Frame)) error {
	type still struct {
		f   Frame
		gen int
		ok  bool
	}
	stills := make(chan still, 1)
	gen, asking, last, asked := 0, false, time.Now(), time.Time{}
	var sent []byte // the last still sent
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-closed:
			return nil
		case <-tick.C:
			if moved() {
				return nil
			}
			if !asking && time.Since(last) >= stillAfter && time.Since(asked) >= stillAgain {
				asking, asked = true, time.Now()
				go func(gen int) {
					f, ok := stillFrame(cdp)
					stills <- still{f, gen, ok} // (one asked at a time: the buffer holds it)
				}(gen)
			}
		case st := <-stills:
			asking = false
			if st.ok && st.gen == gen && !bytes.Equal(st.f.JPEG, sent) {
				sent = st.f.JPEG
				frame(st.f)
			}
		case ev := <-frames.ch:
			gen, last, asked, sent = gen+1, time.Now(), time.Time{}, nil
			frames.ack(ev)
			if f, ok := castFrame(ev); ok {
				frame(f)
			}
		}
	}
}

// castFrame is the Frame of a Page.screencastFrame event, or false when
// its data is not base64.
func castFrame(ev map[string]any) (Frame, bool) {
	data, _ := ev["data"].(string)
	jpeg, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return Frame{}, false
	}
	f := Frame{JPEG: jpeg}
	if m, ok := ev["metadata"].(map[string]any); ok {
		f.Width, _ = m["deviceWidth"].(float64)
		f.Height, _ = m["deviceHeight"].(float64)
	}
	return f, true
}

// stillAfter is how long a screencast stays quiet before the viewer gets a
// screenshot of the page (relay).
const stillAfter = 1500 * time.Millisecond

// stillAgain is how often a quiet screencast's viewer is sent a screenshot
// again, when the page looks different from the last one sent.
const stillAgain = 2 * time.Second

// stillFrame is a screenshot of the page of cdp as a Frame (its size in
// CSS pixels, as the screencast's), or false if the page gave none within
// operatorWait.
func stillFrame(cdp pw.CDPSession) (Frame, bool) {
	// (What the calls answer comes back on a channel: after a wait that
	// gave up, a late answer is written where nothing reads.)
	type answers struct{ shot, metrics any }
	got := make(chan answers, 1)
	err := wait.Bounded(operatorWait, func() error {
		metrics, err := cdp.Send("Page.getLayoutMetrics", nil)
		if err != nil {
			return err
		}
		shot, err := cdp.Send("Page.captureScreenshot", map[string]any{"format": "jpeg", "quality": 70})
		if err == nil {
			got <- answers{shot, metrics}
		}
		return err
	})
	if err != nil {
		return Frame{}, false
	}
	a := <-got
	shot, metrics := a.shot, a.metrics
	m, _ := metrics.(map[string]any)
	vp, _ := m["cssVisualViewport"].(map[string]any)
	sh, _ := shot.(map[string]any)
	data, _ := sh["data"].(string)
	jpeg, derr := base64.StdEncoding.DecodeString(data)
	if err != nil || derr != nil || len(jpeg) == 0 || vp == nil {
		return Frame{}, false
	}
	f := Frame{JPEG: jpeg}
	f.Width, _ = vp["clientWidth"].(float64)
	f.Height, _ = vp["clientHeight"].(float64)
	return f, f.Width > 0 && f.Height > 0
}

// latestFrame holds the newest screencast frame the viewer has not taken
// yet: one that arrives while another waits replaces it (the replaced one
// is acknowledged), so a viewer that falls behind skips frames but always
// gets the page's last one. Dropping the newest instead left a slow
// viewer on a stale frame for good once the page stopped changing (a new
// tab's blank page, never its content).
type latestFrame struct {
	ch  chan map[string]any // capacity 1
	ack func(map[string]any)
}

// put is the one producer's: the screencast's event handler.
func (l *latestFrame) put(ev map[string]any) {
	for {
		select {
		case l.ch <- ev:
			return
		default:
		}
		select {
		case old := <-l.ch:
			l.ack(old)
		default:
		}
	}
}
