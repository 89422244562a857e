package browser

// Faults: what keeps the host serving when the browser misbehaves.
//
//   - No host function waits on Playwright without a deadline. Most
//     playwright-go calls take no context, and some never return (the body
//     of an opaque no-cors response, an evaluate on a page stuck in a
//     loop): every call runs in its own goroutine and the host function
//     waits for it only as long as the call's context, a budget and the
//     service's life allow (await). An abandoned call keeps running and its
//     result is dropped; it writes only into its own variables, so it cannot
//     change the session. The session is marked suspect instead.
//   - A suspect session's current tab is probed before the next call uses
//     it; a tab that does not answer is closed and replaced by a blank one
//     in the same context (unstick), and when even that fails the session is
//     reset like a crashed one.
//   - A dead Playwright driver (the node process killed or crashed) is seen
//     by a watcher on its process; the sessions on it are dropped with their
//     resources, and the next call starts a new driver and browser.
//   - A page cannot open more than maxTabs tabs: popups beyond it are
//     closed as they open and reported.
//   - Closing a context, the browser or the driver is bounded too, so
//     Service.Close returns even with a wedged page or a dead driver.

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/wait"
)

const (
	// maxTabs caps the tabs of a session; popups beyond it are closed.
	maxTabs = 20
	// closeWait bounds closing a page, a context or the browser.
	closeWait = 5 * time.Second
	// stuckProbe bounds the brief waits of a failed or abandoned
	// navigation (stopping its load, its error page committing).
	stuckProbe = 1500 * time.Millisecond
)

// stuckAnswer is how long a suspect tab has to answer a trivial script
// before it is called stuck and replaced. A tab stuck in a script never
// answers; a tab on a busy machine answers late (1.5 s, the bound this had,
// closed tabs and reset sessions at a load average of 50 in a soak run).
// Ten times that keeps a slow tab, at the price of waiting that long, once,
// for a tab that is really stuck. A variable only so that a test of a
// stuck tab need not sit out the whole wait (withStuckAnswer).
func stuckAnswer() time.Duration { return time.Duration(stuckAnswerNS.Load()) }

var stuckAnswerNS = func() *atomic.Int64 { var v atomic.Int64; v.Store(int64(15 * time.Second)); return &v }()

// callBudget bounds one Playwright call made for a host function when no
// tighter limit applies: the longest navigation plus an action.
func (s *env) callBudget() time.Duration {
	return s.cfg.navigationWait() + s.cfg.actionWait()
}

// readBudget bounds reading a whole page: its ARIA snapshot and the marks
// read beside it. That is work that grows with the page, not a wait for an
// element to become actionable, so it gets a page load's bound
// (navigation_timeout), not action_timeout: the 5 s of action_timeout
// withheld 7 of the 10 largest corpus pages at a load average of 40, each
// loaded and passed by the detector. The call's own deadline
// still ends it sooner.
func (s *env) readBudget() time.Duration {
	return max(s.cfg.actionWait(), s.cfg.navigationWait())
}

// stalled is a Playwright call the host stopped waiting for. mapErr turns
// it into a coded error naming what was being done.
type stalled struct {
	code abi.Code
	msg  string
}

func (e *stalled) Error() string { return e.msg }

func stalledErr(ctxErr error, limit time.Duration, closing bool) *stalled {
	switch {
	case closing:
		return &stalled{abi.CodeNotAvailable, "the browser service is shutting down"}
	case errors.Is(ctxErr, context.Canceled):
		return &stalled{abi.CodeTimeout, "the call was cancelled before the browser answered; the next call on this session checks the tab first and replaces it if it is stuck"}
	case ctxErr != nil:
		return &stalled{abi.CodeTimeout, "the call's deadline passed before the browser answered (the page may be stuck in a script): the next call on this session checks the tab and replaces it if it is stuck"}
	}
	return &stalled{abi.CodeTimeout, fmt.Sprintf("the browser did not answer within %s (the page may be stuck in a script): the next call on this session checks the tab and replaces it if it is stuck, so call browser_navigate to go on", limit.Round(time.Millisecond))}
}

// await runs fn, a Playwright call, and waits for it at most limit (0: the
// session's call budget), and only while the session's call context and
// the service live. With dialogs set it also returns early, dialog true,
// when a dialog opens: the page is then blocked and fn would only finish
// once someone answers it. An abandoned fn keeps running on its own; its
// result is dropped and the session is marked suspect.
func await[T any](ss *session, limit time.Duration, dialogs bool, fn func() (T, error)) (T, bool, error) {
	var onDialog func() (bool, error)
	if dialogs {
		onDialog = func() (bool, error) { return false, nil }
		ss.drainDialogs()
	}
	return awaitDialogs(ss, limit, onDialog, fn)
}

// drainDialogs drops a dialog signal left from before: what opens from
// now on signals again.
func (ss *session) drainDialogs() {
	select {
	case <-ss.dialogCh:
	default:
	}
}

// awaitDialogs is await with a say over dialogs: when one opens, onDialog
// (nil: dialogs are not watched) answers whether to keep waiting for fn
// (it dealt with the dialog) or to return at once with dialog true.
func awaitDialogs[T any](ss *session, limit time.Duration, onDialog func() (bool, error), fn func() (T, error)) (T, bool, error) {
	var zero T
	if limit <= 0 {
		limit = ss.budget()
	}
	ctx := ss.ctx
	if ctx == nil {
		ctx = context.Background()
	}
	var life <-chan struct{}
	if ss.env != nil {
		life = ss.env.life.Done()
	}
	var dialog chan struct{}
	if onDialog != nil {
		// Not drained here: a dialog that opened since the caller drained
		// (await does, navigate before it answers the page's open dialog)
		// must be heard, or the call would wait on a blocked page.
		dialog = ss.dialogCh
	}
	type res struct {
		v   T
		err error
	}
	done := make(chan res, 1)
	go func() {
		v, err := fn()
		done <- res{v, err}
	}()
	var nodeGone <-chan struct{}
	if ss.grid != nil { // a grid node that dies leaves the call waiting: watch it
		nodeGone = ss.grid.gone
		defer ss.grid.watch(ss)()
	}
	timer := time.NewTimer(limit)
	defer timer.Stop()
	for {
		select {
		case r := <-done:
			return r.v, false, r.err
		case <-dialog:
			keep, err := onDialog()
			if err != nil {
				return zero, false, err
			}
			if keep {
				continue
			}
			return zero, true, nil
		case <-ctx.Done():
			ss.suspect.Store(true)
			return zero, false, stalledErr(ctx.Err(), limit, false)
		case <-timer.C:
			ss.suspect.Store(true)
			return zero, false, stalledErr(nil, limit, false)
		case <-life:
			return zero, false, stalledErr(nil, limit, true)
		case <-ss.gone:
			return zero, false, &stalled{abi.CodeNoSession, "the browser session was closed while this call waited on it: call browser_navigate to start a new one"}
		case <-nodeGone:
			return zero, false, &stalled{abi.CodeBrowserCrashed, ss.crashReason()}
		}
	}
}

// endCalls makes every wait on ss (await, lockSession) return at once.
func (ss *session) endCalls() {
	ss.goneOnce.Do(func() {
		if ss.gone != nil {
			close(ss.gone)
		}
	})
}

// await0 is await for a call without a result and without dialogs.
func await0(ss *session, limit time.Duration, fn func() error) error {
	_, _, err := await(ss, limit, false, func() (struct{}, error) { return struct{}{}, fn() })
	return err
}

func (ss *session) budget() time.Duration {
	if ss.env == nil {
		return DefaultNavigationTimeout + DefaultActionTimeout
	}
	return ss.env.callBudget()
}

// errNoAnswer: bounded stopped waiting.
var errNoAnswer = wait.ErrNoAnswer

// bounded runs fn, waiting at most limit; past it fn is left running and
// an error wrapping errNoAnswer says so. For calls outside a host function
// (closing). The live view's room waits the same way (package wait).
func bounded(limit time.Duration, fn func() error) error { return wait.Bounded(limit, fn) }

// unstick checks that the current tab of a suspect session answers. A tab
// that does not (a script spinning, a renderer wedged) is closed and
// replaced by a blank tab in the same context. When no new tab can be
// opened either, the session is reset as a crashed one: ss is unlocked
// and the error is browser_crashed.
func (s *sessions) unstick(ss *session, t *tab) (*tab, error) {
	ss.suspect.Store(false)
	if t.page.IsClosed() || openDialog(ss, t) != nil {
		// A dialog explains a page that does not answer: it is the agent's
		// to handle (browser_dialog), not a stuck tab.
		return t, nil
	}
	if _, _, err := await(ss, stuckAnswer(), false, func() (any, error) { return t.page.Evaluate("1") }); err == nil {
		ss.suspect.Store(false)
		return t, nil
	}
	ss.suspect.Store(false)
	idx, u := ss.tabIndex(t), t.page.URL()
	s.log.Warn("closing a tab that stopped responding", "session", ss.key.String(), "url", capString(u, 200))
	nt, err := s.replaceTab(ss, t)
	if err != nil {
		ss.markCrashed("a tab stopped responding and no new tab could be opened")
		return nil, s.discardCrashed(ss)
	}
	ss.warn(fmt.Sprintf("Tab %d (%s) stopped responding (a script kept it busy), so it was closed and replaced by a blank tab; its history is gone.", max(idx, 0), capString(u, 200)))
	return nt, nil
}

// replaceTab takes t out of the session, closes its page in the
// background (a close ends its scripts and answers any dialog it holds:
// Playwright does not wait on the page for it), and opens a blank tab in
// the same context in t's place, made the current tab. Opening it is
// bounded like any call on the context.
func (s *sessions) replaceTab(ss *session, t *tab) (*tab, error) {
	idx := -1
	ss.evMu.Lock()
	for i, x := range ss.tabs {
		if x == t {
			ss.tabs = append(ss.tabs[:i], ss.tabs[i+1:]...)
			idx = i
			break
		}
	}
	ss.evMu.Unlock()
	old := t.page
	go func() {
		t0 := time.Now()
		err := bounded(closeWait, func() error { return old.Close(pw.PageCloseOptions{RunBeforeUnload: pw.Bool(false)}) })
		s.log.Debug("closed a replaced tab", "took", time.Since(t0), "err", err)
	}()
	p, _, err := await(ss, ss.budget(), false, func() (pw.Page, error) { return ss.bctx.NewPage() })
	if err != nil {
		return nil, err
	}
	nt := ss.attach(p)
	ss.evMu.Lock()
	ss.trimPopupsLocked(nt)
	if j := ss.indexLocked(nt); j >= 0 && idx >= 0 && idx < j { // back in t's place
		copy(ss.tabs[idx+1:j+1], ss.tabs[idx:j])
		ss.tabs[idx] = nt
	}
	ss.cur = ss.indexLocked(nt)
	kept := ss.newTabs[:0]
	for _, x := range ss.newTabs { // the host opened it: not news to the agent
		if x != nt {
			kept = append(kept, x)
		}
	}
	ss.newTabs = kept
	ss.evMu.Unlock()
	return nt, nil
}

// onPage adds a tab the page or the browser opened (a popup, a link with a
// target). Past maxTabs the page is closed at once and counted, so a page
// opening hundreds of popups cannot swamp the session.
func (ss *session) onPage(p pw.Page) {
	ss.evMu.Lock()
	n := len(ss.tabs)
	ss.evMu.Unlock()
	if n >= maxTabs {
		ss.popupsClosed.Add(1)
		// Not on Playwright's event goroutine: Close waits for an answer.
		go bounded(closeWait, func() error { return p.Close() })
		return
	}
	t := ss.attach(p)
	ss.evMu.Lock()
	ss.newTabs = append(ss.newTabs, t)
	ss.evMu.Unlock()
	select {
	case ss.tabOpened <- struct{}{}:
	default:
	}
}

// trimPopupsLocked keeps the cap when the host itself added tab keep: a
// popup that took the slot a stuck tab freed, while its replacement was
// opening, is closed and counted like any popup beyond maxTabs. ss.evMu
// is held.
func (ss *session) trimPopupsLocked(keep *tab) {
	for i := len(ss.tabs) - 1; len(ss.tabs) > maxTabs && i >= 0; i-- {
		if t := ss.tabs[i]; t != keep {
			ss.tabs = append(ss.tabs[:i], ss.tabs[i+1:]...)
			ss.popupsClosed.Add(1)
			go bounded(closeWait, func() error { return t.page.Close() })
		}
	}
}

// popupWarning reports the popups closed since the last call, once.
func (ss *session) popupWarning() string {
	if n := ss.popupsClosed.Swap(0); n > 0 {
		return fmt.Sprintf("The page tried to open more than %d tabs: %d popup(s) beyond the limit were closed.", maxTabs, n)
	}
	return ""
}

// isStalled reports whether err is a call the host stopped waiting for.
func isStalled(err error) bool {
	var st *stalled
	return errors.As(err, &st)
}
