package browser

import (
	"context"
	"errors"
	"sync"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/browser/conceal"
)

// The live view for a viewer who is not a logged-in operator: whoever holds
// a takeover link. The link went to the agent's own MCP client, which may
// be the agent's process, so its holder sees what the agent's screenshot
// shows and no more: no screencast frame leaves the host. The screencast
// only says when the page changed; each frame sent is a screenshot taken
// as the agent's is (conceal.Capture: every element showing one of the session's
// secret values, and every password field holding one, hidden for the
// capture and checked after). A capture that cannot be made without
// showing a secret is not sent: the viewer keeps the last frame and is told
// why. Hiding elements changes the page for a moment, so the holder's input
// waits while a capture runs (liveLocks): a click never lands on a field
// hidden for a capture.

// concealedEvery spaces the captures: hiding and showing elements repaints
// the page, which the screencast reports as a change.
const concealedEvery = 400 * time.Millisecond

// liveLocks serialises a session's concealed captures with the input on
// it. A lock is kept while someone holds or waits for it.
type liveLocks struct {
	mu sync.Mutex
	m  map[sessKey]*liveLock
}

type liveLock struct {
	sync.Mutex
	users int
}

// hold locks k's session and returns the unlock.
func (l *liveLocks) hold(k sessKey) func() {
	l.mu.Lock()
	if l.m == nil {
		l.m = map[sessKey]*liveLock{}
	}
	lk := l.m[k]
	if lk == nil {
		lk = &liveLock{}
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

// screencastConcealed is Service.ScreencastConcealed (see there).
func (s *operator) screencastConcealed(ctx context.Context, personality, session string, maxW, maxH int, frame func(Frame), failed func(error)) error {
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
		errc <- s.screencast(ctx, personality, session, maxW, maxH, func(Frame) { note() })
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
		f, err := s.concealedFrame(personality, session)
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
// secrets concealed (conceal.Capture), as a Frame sized in CSS pixels.
func (s *operator) concealedFrame(personality, session string) (Frame, error) {
	p := s.currentPage(personality, session)
	if p == nil {
		return Frame{}, abi.Errorf(abi.CodeNoSession, "the session %s/%s has no open page", personality, session)
	}
	defer s.live.hold(key(personality, session))()
	values := s.concealer.secretValues(personality, session)
	var f Frame
	err := bounded(operatorWait, func() error {
		jpeg, err := conceal.Capture(p, values, "live view frame", func() ([]byte, error) {
			return p.Screenshot(pw.PageScreenshotOptions{Type: pw.ScreenshotTypeJpeg, Quality: pw.Int(70), Caret: pw.ScreenshotCaretInitial})
		})
		if err != nil {
			return err
		}
		f.JPEG = jpeg
		if vp := p.ViewportSize(); vp != nil {
			f.Width, f.Height = float64(vp.Width), float64(vp.Height)
			return nil
		}
		v, err := p.Evaluate(`() => [innerWidth, innerHeight]`)
		if wh, ok := v.([]any); err == nil && ok && len(wh) == 2 {
			f.Width, _ = toFloat(wh[0])
			f.Height, _ = toFloat(wh[1])
		}
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

func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	}
	return 0, false
}
