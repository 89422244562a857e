package browser

import (
	"errors"
	"fmt"
	"sync"

	pw "github.com/mxschmitt/playwright-go"
)

// tabProtocol is a tab's own DevTools protocol session, kept for the
// tab's life and shared by the closed roots' search and stash
// (reachSlotted, reachClosed) and the direct check (direct.go): attaching
// one cost more than the search itself (2-300 ms at load 17-20, against
// 13-130 ms).
//
// A use that turns an agent on (the search, DOM for its duration; a
// list of the execution contexts, Runtime for a moment) or keeps objects
// in a group it releases after (the stashes) runs through do,
// one at a time: an agent one use turns off must not be one another is
// using. A direct check's evaluate turns on nothing and asks the session
// beside them (current).
type tabProtocol struct {
	// use is held by the use under way (do).
	use sync.Mutex
	// mu guards cdp (nil before the first use and after a drop).
	mu  sync.Mutex
	cdp pw.CDPSession
	// frame, when set, is the frame of another process whose own session
	// this is (closedframes.go); else the session is the page's.
	frame pw.Frame
}

// errNoSession: no protocol session could be attached to the tab.
var errNoSession = errors.New("no protocol session")

// current is the tab's session, nil when none is attached.
func (p *tabProtocol) current() pw.CDPSession {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cdp
}

// do runs f on the tab's session, attaching one when there is none, with
// no other use under way. A session on which f fails is dropped (its
// target may be gone) and f runs once more on a new one; an attach that
// fails is errNoSession.
func (p *tabProtocol) do(t *tab, f func(pw.CDPSession) error) error {
	p.use.Lock()
	defer p.use.Unlock()
	for try := 0; ; try++ {
		cdp := p.current()
		if cdp == nil {
			var err error
			var target any = t.page
			if p.frame != nil {
				target = p.frame
			}
			if cdp, err = t.page.Context().NewCDPSession(target); err != nil {
				return fmt.Errorf("%w: %v", errNoSession, err)
			}
			p.mu.Lock()
			p.cdp = cdp
			p.mu.Unlock()
		}
		err := f(cdp)
		if err == nil || try > 0 {
			return err
		}
		p.mu.Lock()
		p.cdp = nil
		p.mu.Unlock()
		cdp.Detach()
	}
}

// execContext is a Runtime.executionContextCreated's context: its id,
// unique id, world name and frame.
type execContext struct {
	id                      int
	uniqueID, name, frameID string
}

// execContexts lists the page's execution contexts: Runtime.enable
// reports every context that exists before it answers, and is turned off
// at once (it would send the page's console to the session). Run through
// do: the listener is the session's only one for that event, and is
// removed after.
func execContexts(cdp pw.CDPSession) ([]execContext, error) {
	var mu sync.Mutex
	var all []execContext
	defer cdp.RemoveListeners("Runtime.executionContextCreated")
	cdp.On("Runtime.executionContextCreated", func(ev map[string]any) {
		c, _ := ev["context"].(map[string]any)
		aux, _ := c["auxData"].(map[string]any)
		x := execContext{}
		id, _ := c["id"].(float64)
		x.id = int(id)
		x.uniqueID, _ = c["uniqueId"].(string)
		x.name, _ = c["name"].(string)
		x.frameID, _ = aux["frameId"].(string)
		mu.Lock()
		all = append(all, x)
		mu.Unlock()
	})
	if _, err := cdp.Send("Runtime.enable", nil); err != nil {
		return nil, fmt.Errorf("Runtime.enable: %w", err)
	}
	if _, err := cdp.Send("Runtime.disable", nil); err != nil {
		return nil, fmt.Errorf("Runtime.disable: %w", err)
	}
	mu.Lock()
	defer mu.Unlock()
	return all, nil
}
