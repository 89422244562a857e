package live

import (
	"context"
	"errors"
	"sync"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/wait"
)

// The live view for a viewer who is not a logged-in operator: whoever holds
// a takeover link. The link went to the agent's own MCP client, which may
// be the agent's process, so its holder sees what the agent's screenshot
// shows and no more: no screencast frame leaves the host. The screencast
// only says when the page changed; each frame sent is a screenshot taken
// as the agent's is (Tabs.Conceal: every element showing one of the
// session's secret values, and every password field holding one, hidden
// for the capture and checked after). A capture that cannot be made without
// showing a secret is not sent: the viewer keeps the last frame and is told
// why. Hiding elements changes the page for a moment, so the holder's input
// waits while a capture runs (locks): a click never lands on a field
// hidden for a capture.

// concealedEvery spaces the captures: hiding and showing elements repaints
// the page, which the screencast reports as a change.
const concealedEvery = 400 * time.Millisecond

// locks serialises a session's concealed captures with the input on it. A
// lock is kept while someone holds or waits for it.
type locks struct {
	mu sync.Mutex
	m  map[[2]string]*sessionLock
}

type sessionLock struct {
	sync.Mutex
	users int
}

// hold locks the session and returns the unlock.
func (l *locks) hold(personality, session string) func() {
	k := [2]string{personality, session}
	l.mu.Lock()
	if l.m == nil {
		l.m = map[[2]string]*sessionLock{}
	}
	lk := l.m[k]
	if lk == nil {
		lk = &sessionLock{}
		l.m[k] = lk
	}
	lk.users++
	l.mu.Unlock()
	lk.Lock()
	return func() {
		lk.Unlock()
		l.mu.Lock()
		if lk.users--; lk.users == 0 {
			delete(l.m, k)
		}
		l.mu.Unlock()
	}
}

// ScreencastConcealed is Screencast for a viewer who is not a logged-in
// operator: each frame is a screenshot of the page taken with the
// session's secrets concealed, at most one per concealedEvery and only
// when the page changed. A frame that cannot be taken without showing a
// secret is not sent: failed is told why instead.
func (v *View) ScreencastConcealed(ctx context.Context, personality, session string, maxW, maxH int, frame func(Frame), failed func(error)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	changed := make(chan struct{}, 1)
	note := func() {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	errc := make(chan error, 1)
	go func() {
		errc <- v.Screencast(ctx, personality, session, maxW, maxH, func(Frame) { note() })
		cancel()
	}()
	note() // the first frame at once
	var last []byte
	for {
		select {
		case <-ctx.Done():
			return <-errc
		case <-changed:
		}
		f, err := v.concealedFrame(personality, session)
		switch {
		case err != nil:
			failed(err)
		case string(f.JPEG) != string(last):
			last = f.JPEG
			frame(f)
		}
		select {
		case <-ctx.Done():
		case <-time.After(concealedEvery):
		}
	}
}

// concealedFrame is a screenshot of the session's current tab with its
// secrets concealed (Tabs.Conceal), as a Frame sized in CSS pixels.
func (v *View) concealedFrame(personality, session string) (Frame, error) {
	p := v.tabs.Current(personality, session)
	if p == nil {
		return Frame{}, abi.Errorf(abi.CodeNoSession, "the session %s/%s has no open page", personality, session)
	}
	defer v.locks.hold(personality, session)()
	var f Frame
	err := wait.Bounded(operatorWait, func() error {
		jpeg, err := v.tabs.Conceal(p, personality, session, func() ([]byte, error) {
			return p.Screenshot(pw.PageScreenshotOptions{Type: pw.ScreenshotTypeJpeg, Quality: pw.Int(70), Caret: pw.ScreenshotCaretInitial})
		})
		if err != nil {
			return err
		}
		f.JPEG = jpeg
		f.Width, f.Height, err = viewport(p)
		return err
	})
	if err != nil {
		if e := (*abi.Error)(nil); errors.As(err, &e) {
			return Frame{}, e
		}
		return Frame{}, abi.Errorf(abi.CodeNotAvailable, "the live view could not take a frame of the page with its secrets hidden: %v; the last frame stays", err)
	}
	if f.Width <= 0 || f.Height <= 0 {
		return Frame{}, abi.Errorf(abi.CodeNotAvailable, "the live view could not read the page's viewport; the last frame stays")
	}
	return f, nil
}

// viewport is p's viewport size in CSS pixels: the size it was given, or
// the window's inner size when it has none (a headed window).
func viewport(p pw.Page) (w, h float64, err error) {
	if vp := p.ViewportSize(); vp != nil {
		return float64(vp.Width), float64(vp.Height), nil
	}
	v, err := p.Evaluate(`() => [innerWidth, innerHeight]`)
	if wh, ok := v.([]any); err == nil && ok && len(wh) == 2 {
		w, _ = toFloat(wh[0])
		h, _ = toFloat(wh[1])
	}
	return w, h, err
}

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	}
	return 0, false
}
