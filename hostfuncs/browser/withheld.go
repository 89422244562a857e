package browser

import (
	"context"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/sandbox"
)

// Closed means closed. When the kernel withholds the page a call landed
// on (its bot-wall detector flagged it: bot_wall; or failed under
// fail_closed: plugin_failed), it tells the service (Withhold), and the
// tab the session was on keeps that failure: every host function that
// would act on or read that tab answers it, until the agent leaves the
// page by a navigation the kernel judges clean (Release), or a human hands
// the session back after a takeover (HandedBack).
//
// The mark is per tab: a withheld page in one tab does not stop the
// agent's work in another, and switching back to it answers the failure.
// The verdict comes after the host function that loaded the page has
// returned (the hooks run on its result), so the mark is the session's
// current tab at that moment; the kernel's calls of one session are not
// serialised, so a call running alongside the navigation may still read
// the page before the verdict.
//
// The check is in onTab (and BeginCredentialFill), which every host
// function acting on or reading a tab goes through, and it refuses unless
// the call is one of leavesWithheld: fail closed, a host function added
// later refuses until it is listed there. ww_browser_close, _sessions and
// _profile touch no tab and return no page content.
//
// What refuses, and why: snapshot, read, screenshot (and its marks), pdf,
// vision_locate (a screenshot sent to a model), images, computed_style,
// evaluate, sources and console return the page or what it ran; storage
// and cookies what the wall may have set; network its requests and their
// bodies; act, fill_form, upload, wait_for, dialog, emulate, resize and a
// stored login's fill act on a page the agent was not shown, and answer
// with its snapshot or state. The network log's bodies of a withheld page
// stay refused after the tab is left (bodyWithheld); its entries' URLs and
// the console's past messages stay listed once the agent is on a page it
// may read. The operator's live view is not a host function: the human
// sees the page.

// leavesWithheld are the host functions that still run on a withheld
// page: the ways off it.
var leavesWithheld = map[string]bool{
	// Its result is judged again by the kernel: a clean page releases
	// the tab, another wall keeps it withheld.
	abi.HostBrowserNavigate: true,
	// back and forward: likewise judged.
	abi.HostBrowserHistory: true,
	// Selecting, opening or closing a tab; a call that ends on a withheld
	// tab answers its failure (letLeaveWithheld), so listing tabs from a
	// withheld one does too.
	abi.HostBrowserTabs: true,
}

// leavingKey marks a call's context as one of leavesWithheld.
type leavingKey struct{}

// letLeaveWithheld marks the calls of the leavesWithheld host functions so
// onTab lets them run on a withheld page; every other one is refused
// there. A tabs call that leaves the session on a withheld tab answers
// that tab's failure instead of its state.
func (s *Service) letLeaveWithheld(fns []sandbox.HostFunc) []sandbox.HostFunc {
	for i, f := range fns {
		if !leavesWithheld[f.Name] {
			continue
		}
		inner, name := f.Fn, f.Name
		fns[i].Fn = func(ctx context.Context, plugin string, req []byte) ([]byte, error) {
			out, err := inner(context.WithValue(ctx, leavingKey{}, true), plugin, req)
			if err == nil && name == abi.HostBrowserTabs {
				if c := hostfuncs.CallerFrom(ctx); c != nil {
					if e := s.sessions.withheldNow(c.Personality(), c.Session()); e != nil {
						return nil, e
					}
				}
			}
			return out, err
		}
	}
	return fns
}

// refuseWithheld is the failure of t's withheld page for a call that is
// not leaving it, or nil.
func refuseWithheld(ctx context.Context, t *tab) error {
	if t == nil || ctx.Value(leavingKey{}) != nil {
		return nil
	}
	if e := t.withheld.Load(); e != nil {
		return e
	}
	return nil
}

// withheldNow is the failure of the session's current tab, when its page
// is withheld.
func (s *sessions) withheldNow(personality, session string) *abi.Error {
	ss := s.byName(personality, session)
	if ss == nil {
		return nil
	}
	if t := ss.current(); t != nil {
		return t.withheld.Load()
	}
	return nil
}

// byName is the open session of (personality, session), or nil.
func (s *sessions) byName(personality, session string) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.byKey[key(personality, session)]
}

// withheldFailure is the error a withheld page answers: the code, message
// and details of the verdict, with how to leave.
func withheldFailure(e *abi.Error) *abi.Error {
	out := *e
	out.Message += " (This page stays withheld: every tool that reads or acts on it answers this. Leave it with browser_navigate, browser_navigate_back or another tab, or ask a human to take over.)"
	return out.With("withheld", "true")
}

// Withhold records that the kernel withheld the page the session's
// current tab shows, with the verdict e (bot_wall, plugin_failed...):
// until Release or HandedBack, the host functions that would read or act
// on that tab answer it. The network log's entries of the tab so far lose
// their bodies, and so do those it logs while withheld. A session that is
// not open has nothing to withhold.
func (s *Service) Withhold(personality, session string, e *abi.Error) {
	if e == nil {
		return
	}
	ss := s.sessions.byName(personality, session)
	if ss == nil {
		return
	}
	t := ss.current()
	if t == nil {
		return
	}
	t.withheld.Store(withheldFailure(e))
	ss.evMu.Lock()
	defer ss.evMu.Unlock()
	for _, n := range ss.network.items {
		if n.tab == t {
			n.withheld.Store(true)
		}
	}
}

// Release serves the session's current tab again: the kernel judged the
// page a navigation landed on, and it passed.
func (s *Service) Release(personality, session string) {
	ss := s.sessions.byName(personality, session)
	if ss == nil {
		return
	}
	if t := ss.current(); t != nil && t.withheld.Swap(nil) != nil {
		ss.evMu.Lock()
		defer ss.evMu.Unlock()
		ss.serveBodiesLocked(t)
	}
}

// HandedBack serves every tab of the session again: a human who took the
// session over has handed it back, and answers for the pages it shows.
func (s *Service) HandedBack(personality, session string) {
	ss := s.sessions.byName(personality, session)
	if ss == nil {
		return
	}
	ss.evMu.Lock()
	defer ss.evMu.Unlock()
	for _, t := range ss.tabs {
		if t.withheld.Swap(nil) != nil {
			ss.serveBodiesLocked(t)
		}
	}
}

// serveBodiesLocked serves the network bodies of the page t now shows: its
// document was requested while the tab was withheld, so it and what it
// loaded (logged from its navigation request on) were marked; what the
// withheld page loaded before stays withheld. The caller holds evMu.
func (ss *session) serveBodiesLocked(t *tab) {
	items := ss.network.items
	from := len(items)
	for i := len(items) - 1; i >= 0; i-- {
		if items[i].tab == t && items[i].mainDoc {
			from = i
			break
		}
	}
	for _, n := range items[from:] {
		if n.tab == t {
			n.withheld.Store(false)
		}
	}
}

// bodyWithheld refuses the body of a network log entry of a withheld page.
func bodyWithheld(n *netEntry) error {
	if !n.withheld.Load() {
		return nil
	}
	return abi.Errorf(abi.CodeRefused, "the body of request %d is withheld: it was loaded by a page the bot-wall detector withheld", n.ID)
}
