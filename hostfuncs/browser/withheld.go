package browser

import (
	"context"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/sandbox"
)

// Closed means closed. When the kernel withholds a document (its
// bot-wall detector flagged it: bot_wall; or failed under fail_closed:
// plugin_failed; gate.go decides and records it on the document), every
// host function that would act on or read the tab showing it answers that
// failure, until the tab shows another document judged clean, or a human
// hands the session back after a takeover (HandedBack).
//
// The mark is per document: a withheld page in one tab does not stop the
// agent's work in another, and switching back to it answers the failure.
//
// The check is the gate (onTab, and BeginCredentialFill), which every
// host function acting on or reading a tab goes through, and it refuses
// unless the call is a way off the page (its family declares it gateLeave:
// navigate, history, tabs, dialog); a host function whose family says
// nothing gets the whole gate (gateTab, the zero gateKind).
// ww_browser_close, _sessions and _profile touch no tab and return no page
// content (gateNone).
//
// What refuses, and why: snapshot, read, screenshot (and its marks), pdf,
// vision_locate (a screenshot sent to a model), images, computed_style,
// evaluate, sources and console return the page or what it ran; storage
// and cookies what the wall may have set; network its requests and their
// bodies; act, fill_form, upload, wait_for, dialog, emulate, resize and a
// stored login's fill act on a page the agent was not shown, and answer
// with its snapshot or state. The network log's bodies of a withheld page
// stay refused after the tab is left (bodyWithheld), and what it requested
// and logged is left out of every listing. The operator's live view is
// not a host function: the human sees the page.

// leavingKey marks a call's context as a way off a withheld page.
type leavingKey struct{}

// leaving marks the calls of f, a way off a withheld page (gateLeave), so
// onTab lets them run on one; every other host function is refused there.
// A tabs call that leaves the session on a tab passes the gate for that
// tab's document (a popup is judged before its state is shown).
func (s *Service) leaving(f sandbox.HostFunc) sandbox.HostFunc {
	inner, name := f.Fn, f.Name
	f.Fn = func(ctx context.Context, plugin string, req []byte) ([]byte, error) {
		out, err := inner(context.WithValue(ctx, leavingKey{}, true), plugin, req)
		if err == nil && name == abi.HostBrowserTabs {
			if c := hostfuncs.CallerFrom(ctx); c != nil {
				if e := s.gateNow(ctx, c); e != nil {
					return nil, e
				}
			}
		}
		return out, err
	}
	return f
}

// gateNow passes the caller's current tab through the gate.
func (s *Service) gateNow(ctx context.Context, c *hostfuncs.Caller) error {
	_, err := onTab(ctx, c, s.sessions.pageTab, func(ss *session, t *tab) (struct{}, error) { return struct{}{}, nil })
	return err
}

// refuseWithheld is the failure of t's withheld document for a call that
// is not leaving it, or nil. It does not judge: the gate does
// (pages.gate); BeginCredentialFill runs after it.
func refuseWithheld(ctx context.Context, t *tab) error {
	if t == nil || ctx.Value(leavingKey{}) != nil {
		return nil
	}
	if st, e := t.document().verdict(); st == docWithheld {
		return e
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

// HandedBack serves every tab of the session again: a human who took the
// session over has handed it back, and answers for the pages it shows.
// Only a logged-in operator's hand-back may call it.
func (s *Service) HandedBack(personality, session string) {
	ss := s.sessions.byName(personality, session)
	if ss == nil {
		return
	}
	ss.evMu.Lock()
	tabs := append([]*tab(nil), ss.tabs...)
	ss.evMu.Unlock()
	for _, t := range tabs {
		d := t.document()
		if st, _ := d.verdict(); st != docClean {
			d.set(docClean, nil)
			thaw(ss, t)
			ss.evMu.Lock()
			ss.serveBodiesLocked(t)
			ss.evMu.Unlock()
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
	if !n.withheld.Load() && shownDoc(n.doc) {
		return nil
	}
	return abi.Errorf(abi.CodeRefused, "the body of request %d is withheld: it was loaded by a page the bot-wall detector withheld", n.ID)
}
