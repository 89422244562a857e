package browser

import (
	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
)

// Containing a withheld document: its page frozen and its dialog
// dismissed, and thawed again when a human takes it over or the agent
// leaves it.

// contain stops withheld document d of t from acting on the session: its
// page is frozen (script execution off: no timers, handlers, requests
// from scripts or dialogs; storage and BroadcastChannel writes stop with
// them), its open dialog is dismissed, and what it logged loses its
// bodies. A page that cannot be frozen (the CDP session refused) still
// has everything it shows withheld.
func (s *pages) contain(ss *session, t *tab, d *document) {
	if dl := t.dialog.Swap(nil); dl != nil {
		(*dl).Dismiss()
	}
	ss.evMu.Lock()
	for _, n := range ss.network.items {
		if n.doc == d {
			n.withheld.Store(true)
		}
	}
	ss.evMu.Unlock()
	cdp, err := switchScripts(ss, t, nil, true)
	if err != nil {
		s.log.Warn("a withheld page could not be frozen: what it shows stays withheld, but its scripts run", "session", ss.key.String(), "err", err)
		return
	}
	d.mu.Lock()
	d.frozen, d.cdp = true, cdp
	d.mu.Unlock()
}

// thaw lets t's frozen document run again: a human takes it over, or the
// agent leaves it.
func thaw(ss *session, t *tab) {
	if d := t.cur.Load(); d != nil {
		thawDoc(ss, t, d)
	}
}

// thawDoc ends d's freeze (the script switch is the tab's, not the
// document's: a document that replaces a frozen one runs).
func thawDoc(ss *session, t *tab, d *document) {
	d.mu.Lock()
	frozen, cdp := d.frozen, d.cdp
	d.frozen, d.cdp = false, nil
	d.mu.Unlock()
	if frozen {
		switchScripts(ss, t, cdp, false)
		cdp.Detach()
	}
}

// switchScripts turns script execution in t's page off (frozen) or on again
// through cdp, a CDP session on it (a new one when nil, returned: the
// switch holds while it is attached). Chromium's page lifecycle freeze
// (Page.setWebLifecycleState) was tried first: a visible page's timers
// kept firing under it.
func switchScripts(ss *session, t *tab, cdp pw.CDPSession, frozen bool) (pw.CDPSession, error) {
	if ss.bctx == nil {
		return nil, abi.Errorf(abi.CodeNotAvailable, "no browser context")
	}
	if cdp == nil {
		var err error
		if cdp, err = ss.bctx.NewCDPSession(t.page); err != nil {
			return nil, err
		}
	}
	if _, err := cdp.Send("Emulation.setScriptExecutionDisabled", map[string]any{"value": frozen}); err != nil {
		cdp.Detach()
		return nil, err
	}
	return cdp, nil
}
