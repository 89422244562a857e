package browser

import (
	"context"
	"encoding/base64"
	"sort"
	"strings"
	"sync"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
)

// The operator console's live view: the sessions as it lists them, the
// screencast of a session's current tab while someone watches, and an
// operator's input on it. Everything is bounded.

// operatorWait bounds one operator action (an input, a navigation, a CDP
// command) so a stuck page never holds the console.
const operatorWait = 10 * time.Second

// OperatorSession is one open session as the operator console lists it.
type OperatorSession struct {
	Personality string    `json:"personality"`
	Session     string    `json:"session"`
	URL         string    `json:"url,omitempty"`
	Title       string    `json:"title,omitempty"`
	Created     time.Time `json:"created"`
	// Busy: an agent's browser call holds the session right now.
	Busy bool `json:"busy,omitempty"`
	// Driving: a human drives it (a takeover is pending).
	Driving bool `json:"driving,omitempty"`
}

// list is Service.OperatorSessions (see there).
func (s *operator) list() []OperatorSession {
	all := s.sessions.all()
	sort.Slice(all, func(i, j int) bool { return all[i].created.Before(all[j].created) })
	out := make([]OperatorSession, 0, len(all))
	for _, ss := range all {
		o := OperatorSession{Personality: ss.key.personality, Session: ss.key.session, Created: ss.created, Driving: ss.driving.Load()}
		if ss.mu.TryLock() {
			ss.mu.Unlock()
		} else {
			o.Busy = true
		}
		if p := s.currentPage(o.Personality, o.Session); p != nil {
			o.URL = p.URL()
			bounded(time.Second, func() (err error) { o.Title, err = p.Title(); return err })
		}
		out = append(out, o)
	}
	return out
}

// Frame is one screencast frame: a JPEG of the viewport and the
// viewport's size in CSS pixels (what operator input coordinates use).
type Frame struct {
	JPEG          []byte
	Width, Height float64
}

// screencast is Service.Screencast (see there).
func (s *operator) screencast(ctx context.Context, personality, session string, maxW, maxH int, frame func(Frame)) error {
	for {
		p := s.currentPage(personality, session)
		if p == nil {
			return abi.Errorf(abi.CodeNoSession, "the session %s/%s has no open page", personality, session)
		}
		if err := s.castPage(ctx, p, maxW, maxH, func() bool { return s.currentPage(personality, session) != p }, frame); err != nil {
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
func (s *operator) castPage(ctx context.Context, p pw.Page, maxW, maxH int, moved func() bool, frame func(Frame)) error {
	var cdp pw.CDPSession
	if err := bounded(operatorWait, func() (err error) { cdp, err = p.Context().NewCDPSession(p); return err }); err != nil {
		return abi.Errorf(abi.CodeNotAvailable, "the live view needs a Chromium page reachable over CDP: %v", err)
	}
	defer bounded(closeWait, cdp.Detach)
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
	if err := bounded(operatorWait, func() error {
		_, err := cdp.Send("Page.startScreencast", map[string]any{"format": "jpeg", "quality": 70, "maxWidth": maxW, "maxHeight": maxH, "everyNthFrame": 1})
		return err
	}); err != nil {
		return abi.Errorf(abi.CodeNotAvailable, "the live view could not start: %v", err)
	}
	defer bounded(closeWait, func() error { _, err := cdp.Send("Page.stopScreencast", nil); return err })
	// Chromium skips frames while too many are unacknowledged, and then
	// sends one only when the page is drawn again: the last state of a page
	// that stopped changing may never come (a new tab's content, after its
	// blank page). Once the screencast has been quiet for stillAfter, the
	// viewer gets one screenshot of the page, unless a frame came since it
	// was asked for.
	type still struct {
		f   Frame
		gen int
	}
	stills := make(chan still, 1)
	gen, stilled, last := 0, false, time.Now()
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
			if !stilled && time.Since(last) >= stillAfter {
				stilled = true
				go func(gen int) {
					if f, ok := stillFrame(cdp); ok {
						select {
						case stills <- still{f, gen}:
						default: // an older one waits, or the cast ended
						}
					}
				}(gen)
			}
		case st := <-stills:
			if st.gen == gen {
				frame(st.f)
			}
		case ev := <-frames.ch:
			gen, stilled, last = gen+1, false, time.Now()
			frames.ack(ev)
			data, _ := ev["data"].(string)
			jpeg, err := base64.StdEncoding.DecodeString(data)
			if err != nil {
				continue
			}
			f := Frame{JPEG: jpeg}
			if m, ok := ev["metadata"].(map[string]any); ok {
				f.Width, _ = m["deviceWidth"].(float64)
				f.Height, _ = m["deviceHeight"].(float64)
			}
			frame(f)
		}
	}
}

// stillAfter is how long a screencast stays quiet before the viewer gets a
// screenshot of the page (castPage).
const stillAfter = 1500 * time.Millisecond

// stillFrame is a screenshot of the page of cdp as a Frame (its size in
// CSS pixels, as the screencast's), or false if the page gave none within
// operatorWait.
func stillFrame(cdp pw.CDPSession) (Frame, bool) {
	var shot, metrics any
	err := bounded(operatorWait, func() (err error) {
		if metrics, err = cdp.Send("Page.getLayoutMetrics", nil); err == nil {
			shot, err = cdp.Send("Page.captureScreenshot", map[string]any{"format": "jpeg", "quality": 70})
		}
		return err
	})
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

// Operator input kinds (OperatorInput.Kind).
const (
	InputClick    = "click"
	InputScroll   = "scroll"
	InputType     = "type"
	InputKey      = "key"
	InputNavigate = "navigate"
	InputBack     = "back"
)

// OperatorInput is one action of an operator on the live view. X and Y
// are CSS pixels of the viewport (a frame's Width and Height).
type OperatorInput struct {
	Kind   string  `json:"kind"`
	X      float64 `json:"x,omitempty"`
	Y      float64 `json:"y,omitempty"`
	DX     float64 `json:"dx,omitempty"`
	DY     float64 `json:"dy,omitempty"`
	Text   string  `json:"text,omitempty"`
	Key    string  `json:"key,omitempty"`
	URL    string  `json:"url,omitempty"`
	Button string  `json:"button,omitempty"`
}

// input is Service.Input (see there). What the operator types into a
// secret field becomes a session secret, as the agent's typing does: after
// each key or text the focused field is read, in whichever frame it is,
// and its value held (concealer.operatorTyped) until the typing ends; an
// input that can submit the form or leave the field ends it first
// (endsTyping), so the value is a secret before any request carries it.
func (s *operator) input(personality, session string, in OperatorInput) error {
	p := s.currentPage(personality, session)
	if p == nil {
		return abi.Errorf(abi.CodeNoSession, "the session %s/%s has no open page", personality, session)
	}
	if len(in.Text) > 4096 || len(in.Key) > 64 || len(in.URL) > 8192 {
		return abi.Errorf(abi.CodeInputInvalid, "operator input too long: type at most 4096 bytes at once")
	}
	k := key(personality, session)
	var do func() error
	switch in.Kind {
	case InputClick:
		do = func() error { return p.Mouse().Click(in.X, in.Y) }
	case InputScroll:
		do = func() error {
			if err := p.Mouse().Move(in.X, in.Y); err != nil {
				return err
			}
			return p.Mouse().Wheel(in.DX, in.DY)
		}
	case InputType:
		do = func() error { return p.Keyboard().InsertText(in.Text) }
	case InputKey:
		do = func() error { return p.Keyboard().Press(in.Key) }
	case InputNavigate:
		u, err := s.pages.checkOpenURL(in.URL)
		if err != nil {
			return err
		}
		do = func() error {
			_, err := p.Goto(u, pw.PageGotoOptions{Timeout: pw.Float(float64(s.cfg.navigationWait().Milliseconds()))})
			return err
		}
	case InputBack:
		do = func() error { _, err := p.GoBack(); return err }
	default:
		return abi.Errorf(abi.CodeInputInvalid, "unknown operator input %q: use click, scroll, type, key, navigate or back", in.Kind)
	}
	if endsTyping(in) {
		s.concealer.settleTyped(k)
	}
	unlock := s.live.hold(k) // not while a concealed capture hides fields
	err := bounded(s.cfg.navigationWait()+operatorWait, do)
	unlock()
	if err != nil {
		return abi.Errorf(abi.CodeExecutionFailed, "the page did not take the operator's %s: %v", in.Kind, err)
	}
	s.noteFocus(k, p, in)
	return nil
}

// endsTyping reports whether in may end the operator's typing in a field:
// anything but text, scrolling and keys that edit in place (Backspace,
// arrows...). Enter submits a form, Tab and a click move the focus.
func endsTyping(in OperatorInput) bool {
	switch in.Kind {
	case InputType, InputScroll:
		return false
	case InputKey:
		last := in.Key[strings.LastIndexByte(in.Key, '+')+1:]
		return strings.Contains(in.Key, "+") || last == "Enter" || last == "NumpadEnter" || last == "Tab" || last == "Escape"
	}
	return true
}

// noteFocus reads, after an operator's key, text or click, the field that
// holds the focus (bounded: findFocused): typing into a secret field holds
// its value (operatorTyped), a click that focused one remembers it as
// secret.
func (s *operator) noteFocus(k sessKey, p pw.Page, in OperatorInput) {
	if in.Kind != InputType && in.Kind != InputKey && in.Kind != InputClick {
		return
	}
	var typing pw.Frame
	if in.Kind != InputClick {
		typing = s.concealer.typingFrame(k)
	}
	f, found, _ := findFocused(p, typing)
	if !found {
		return
	}
	if in.Kind == InputClick {
		s.concealer.operatorFocused(k, f)
		return
	}
	s.concealer.operatorTyped(k, f)
}

// operator serves the operator desk and console: the live view of a
// session's current tab and the operator's input on it.
type operator struct {
	*env
	sessions  *sessions
	pages     *pages
	concealer *concealer
	// live serialises concealed live-view captures with input
	// (liveconceal.go).
	live liveLocks
}

// pageURL is Service.PageURL (see there). The operator's typing ends
// first: the URL (a GET form's) may carry it, and goes to the agent.
func (s *operator) pageURL(personality, session string) string {
	s.concealer.settleTyped(key(personality, session))
	if p := s.currentPage(personality, session); p != nil {
		return p.URL()
	}
	return ""
}

// raise is Service.Raise (see there).
func (s *operator) raise(personality, session string) {
	if p := s.currentPage(personality, session); p != nil {
		if err := bounded(closeWait, p.BringToFront); err != nil {
			s.log.Debug("raising the tab for a takeover", "err", err)
		}
	}
}

// setDriving is Service.SetDriving (see there).
// The registry's lock is held while the flag changes: the idle sweep
// decides under it.
func (s *operator) setDriving(personality, session string, on bool) {
	s.sessions.mu.Lock()
	defer s.sessions.mu.Unlock()
	if ss := s.sessions.byKey[key(personality, session)]; ss != nil {
		ss.driving.Store(on)
		ss.touch()
	}
}

// humanDriving is Service.HumanDriving (see there).
func (s *operator) humanDriving(personality, session string) bool {
	s.sessions.mu.Lock()
	defer s.sessions.mu.Unlock()
	ss := s.sessions.byKey[key(personality, session)]
	return ss != nil && ss.driving.Load()
}

// currentPage is the current tab of an open session, or nil.
func (s *operator) currentPage(personality, session string) pw.Page {
	ss := s.sessions.byName(personality, session)
	if ss == nil {
		return nil
	}
	ss.evMu.Lock()
	defer ss.evMu.Unlock()
	if ss.cur < len(ss.tabs) {
		return ss.tabs[ss.cur].page
	}
	return nil
}
