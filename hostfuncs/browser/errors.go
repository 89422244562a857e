package browser

import (
	"errors"
	"strings"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
)

// mapErr turns a Playwright error into a coded one: crashes, timeouts and
// elements that cannot be acted on get their own codes.
func (s *sessions) mapErr(ss *session, err error, what string) error {
	return s.mapErrWithin(ss, err, what, s.cfg.actionWait())
}

// mapErrWithin is mapErr for a Playwright call bounded by limit rather
// than action_timeout: a timeout says so.
func (s *sessions) mapErrWithin(ss *session, err error, what string, limit time.Duration) error {
	if err == nil {
		return nil
	}
	var st *stalled
	if errors.As(err, &st) {
		if st.code == abi.CodeBrowserCrashed { // the grid node was lost (await)
			return s.crashedInFlight(ss, what)
		}
		// A grid node that died may leave the hub's relayed connection
		// open: the host stops waiting before Playwright would, so the
		// node is asked here too, not only on Playwright's own timeout.
		if st.code == abi.CodeTimeout {
			if lost := s.lostGridNode(ss, what); lost != nil {
				return lost
			}
		}
		return abi.Errorf(st.code, "%s: %s", what, st.msg)
	}
	var ae *abi.Error
	if errors.As(err, &ae) {
		return ae
	}
	msg := err.Error()
	if gone(msg) || errors.Is(err, pw.ErrTargetClosed) || ss.crashed.Load() {
		// The crash event, or the exit of the driver, may trail the failed
		// call by a moment.
		for i := 0; i < 20 && !ss.crashed.Load() && !ss.drv.exited() && (ss.browser == nil || ss.browser.IsConnected()); i++ {
			time.Sleep(25 * time.Millisecond)
		}
		if ss.drv.exited() {
			// The service drops every session of the dead driver (checkDriver,
			// watchDriver); the next call starts a new driver.
			ss.markCrashed(driverExitedWhy)
			return abi.Errorf(abi.CodeBrowserCrashed, "the browser driver exited while %s; the session was reset and its tabs are gone: call browser_navigate again to start a fresh browser", what)
		}
		if ss.crashed.Load() || (ss.browser != nil && !ss.browser.IsConnected()) || strings.Contains(msg, "crash") {
			ss.markCrashed("the browser went away during " + what)
			return s.crashedInFlight(ss, what)
		}
		return abi.Errorf(abi.CodeExecutionFailed, "%s: the tab was closed", what)
	}
	line := cleanMsg(msg)
	if errors.Is(err, pw.ErrTimeout) {
		for _, w := range []string{"not visible", "not enabled", "disabled", "not editable", "readonly", "not stable", "intercepts pointer events", "outside of the viewport", "not attached", "detached"} {
			if strings.Contains(msg, w) {
				return abi.Errorf(abi.CodeNotInteractable, "%s: the element never became actionable (%s): it may be covered, hidden or disabled; take a new snapshot", what, w)
			}
		}
		if lost := s.lostGridNode(ss, what); lost != nil {
			return lost
		}
		ss.suspect.Store(true)
		return abi.Errorf(abi.CodeTimeout, "%s did not finish within %s: %s", what, limit, line)
	}
	for _, w := range []string{"is not an <input>", "Not a checkbox or radio", "Element is not a <select>", "Cannot type text into", "Malformed value", "not a <select>"} {
		if strings.Contains(msg, w) {
			return abi.Errorf(abi.CodeNotInteractable, "%s: %s", what, line)
		}
	}
	return abi.Errorf(abi.CodeExecutionFailed, "%s: %s", what, line)
}

func gone(msg string) bool {
	for _, w := range []string{"Target crashed", "has been closed", "Target closed", "Browser closed", "browser has disconnected", "Connection closed", "crashed"} {
		if strings.Contains(msg, w) {
			return true
		}
	}
	return false
}

// cleanMsg keeps the part of a Playwright error an agent can use.
func cleanMsg(msg string) string {
	l := firstLine(msg)
	for _, p := range []string{"playwright: ", "timeout: ", "Error: ", "TimeoutError: "} {
		l = strings.ReplaceAll(l, p, "")
	}
	return l
}

func isClosedErr(err error) bool {
	if err == nil {
		return false
	}
	m := err.Error()
	return strings.Contains(m, "has been closed") || strings.Contains(m, "Target closed") ||
		strings.Contains(m, "closed") && strings.Contains(m, "browser")
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return capString(l, 500)
}

func pwTimeout(err error) bool {
	return err != nil && (strings.Contains(err.Error(), "Timeout") && strings.Contains(err.Error(), "exceeded") || isPWTimeout(err))
}

func isPWTimeout(err error) bool { return errors.Is(err, pw.ErrTimeout) }

func errDialogOpen(d *abi.BrowserDialog) error {
	return abi.Errorf(abi.CodeExecutionFailed, "%s %s dialog is open (%q) and blocks the page: answer it with browser_dialog (accept or dismiss) first", article(d.Type, "a"), d.Type, capString(d.Message, 200)).With("dialog", d.Type)
}

// lostGridNode answers browser_crashed, naming the node, when ss ran on a
// grid node that is gone (gridNodeLost), and drops the session
// (crashedInFlight); nil otherwise.
func (s *sessions) lostGridNode(ss *session, what string) error {
	if !s.gridNodeLost(ss) {
		return nil
	}
	return s.crashedInFlight(ss, what)
}

// article is a or an (as case gives it: "a" or "A") for word: an alert
// dialog, a confirm dialog.
func article(word, a string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return a + "n"
	}
	return a
}
