package browser

import (
	"sort"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/hostfuncs/browser/conceal"
	"github.com/wasmwright/wasmwright/hostfuncs/browser/live"
)

// The operator console's side of a session: the sessions as it lists
// them, the takeover's flags, and what the live view (package live) needs
// of a session. The live view itself (screencast, concealed frames, the
// operator's input) is package live's.

// Frame is one live-view frame (live.Frame).
type Frame = live.Frame

// OperatorInput is one action of an operator on the live view (live.Input).
type OperatorInput = live.Input

// Operator input kinds (OperatorInput.Kind).
const (
	InputClick    = live.Click
	InputScroll   = live.Scroll
	InputType     = live.Type
	InputKey      = live.Key
	InputNavigate = live.Navigate
	InputBack     = live.Back
)

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

// operator serves the operator desk and console: the takeover's flags on
// a session, and the live view of its current tab (view), to which it is
// the live.Tabs.
type operator struct {
	*env
	sessions  *sessions
	pages     *pages
	concealer *concealer
	view      *live.View
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
		if p := s.Current(o.Personality, o.Session); p != nil {
			o.URL = p.URL()
			bounded(time.Second, func() (err error) { o.Title, err = p.Title(); return err })
		}
		out = append(out, o)
	}
	return out
}

// pageURL is Service.PageURL (see there). The operator's typing ends
// first: the URL (a GET form's) may carry it, and goes to the agent.
func (s *operator) pageURL(personality, session string) string {
	s.concealer.settleTyped(key(personality, session))
	if p := s.Current(personality, session); p != nil {
		return p.URL()
	}
	return ""
}

// raise is Service.Raise (see there).
func (s *operator) raise(personality, session string) {
	if p := s.Current(personality, session); p != nil {
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

// Current is the current tab of an open session, or nil (live.Tabs).
func (s *operator) Current(personality, session string) pw.Page {
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

// CheckURL checks a URL the operator opens as an agent's (live.Tabs).
func (s *operator) CheckURL(raw string) (string, error) { return s.pages.checkOpenURL(raw) }

// NavigationWait is navigation_timeout, stretched (live.Tabs).
func (s *operator) NavigationWait() time.Duration { return s.cfg.navigationWait() }

// Conceal runs shot with the session's secret values hidden on p
// (conceal.Capture), as the agent's screenshot is (live.Tabs).
func (s *operator) Conceal(p pw.Page, personality, session string, shot func() ([]byte, error)) ([]byte, error) {
	return conceal.Capture(p, s.concealer.secretValues(personality, session), "live view frame", shot)
}

// Settle ends the operator's typing in the session (concealer.settleTyped;
// live.Tabs).
func (s *operator) Settle(personality, session string) {
	s.concealer.settleTyped(key(personality, session))
}

// Focused reads, after an operator's key, text or click, the field that
// holds the focus (bounded: findFocused): typing into a secret field holds
// its value (operatorTyped), a click that focused one remembers it as
// secret (live.Tabs).
func (s *operator) Focused(personality, session string, p pw.Page, click bool) {
	k := key(personality, session)
	var typing pw.Frame
	if !click {
		typing = s.concealer.typingFrame(k)
	}
	f, found, _ := findFocused(p, typing)
	if !found {
		return
	}
	if click {
		s.concealer.operatorFocused(k, f)
		return
	}
	s.concealer.operatorTyped(k, f)
}
