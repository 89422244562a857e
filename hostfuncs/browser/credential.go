package browser

import (
	"context"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/hostfuncs/weborigin"
)

// CredentialFill is a credential fill in progress (hostfuncs/vault): it
// holds the session's lock from BeginCredentialFill to Close, so no other
// call acts on the page between the vault's checks and the fill. Its
// methods never log or return the values they fill.
type CredentialFill struct {
	pages     *pages
	sessions  *sessions
	ss        *session
	t         *tab
	navBefore int64
	// frames are the frames owning the fields resolved by Field.
	frames map[string]pw.Frame
	locs   map[string]pw.Locator
}

// BeginCredentialFill locks the caller's session and its current tab. The
// session must exist and no dialog may be open.
func (s *Service) BeginCredentialFill(ctx context.Context, c *hostfuncs.Caller) (*CredentialFill, error) {
	ss, t, err := s.sessions.pageTab(ctx, c)
	if err != nil {
		return nil, err
	}
	if err := stillJudged(c, t); err != nil {
		ss.mu.Unlock()
		return nil, err
	}
	// A stored login is filled only into a document judged clean (gate.go).
	if err := s.pages.gate(ss, t); err != nil {
		ss.mu.Unlock()
		return nil, err
	}
	return &CredentialFill{pages: s.pages, sessions: s.sessions, ss: ss, t: t, navBefore: t.navSeq.Load(), frames: map[string]pw.Frame{}, locs: map[string]pw.Locator{}}, nil
}

// fieldJS reads what the vault checks about a field: its input type, and
// whether it can take a value at all.
const fieldJS = `e => {
	const r = e.getBoundingClientRect();
	const visible = r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== "hidden";
	const input = e instanceof HTMLInputElement;
	const enabled = !(e.matches && e.matches(":disabled")) && !(input && e.readOnly);
	return {type: input ? String(e.type).toLowerCase() : "element:" + e.tagName.toLowerCase(), visible, enabled};
}`

// originOf is the origin of a URL, "null" for anything but http(s).
func originOf(raw string) string { return weborigin.Of(raw) }

// TopOrigin is the origin of the tab's top-level document, as the browser
// reports it (not as the page's script could claim).
func (f *CredentialFill) TopOrigin() string {
	if f.t.page.IsClosed() {
		return "null"
	}
	return originOf(f.t.page.MainFrame().URL())
}

// Field resolves ref (from the latest snapshot) to the origin of its frame
// and its input type: the type property of an <input> ("password",
// "text"...), or "element:" and the tag name for anything else. A stale
// ref fails with stale_ref; a hidden or disabled field with
// not_interactable.
//
// The frame comes from the browser (the element's owner frame), so a page
// cannot fake it. The input type is read in the page and a page could
// fake it, but only a page already on an allowed origin, which the policy
// trusts with the credential anyway.
func (f *CredentialFill) Field(ref string) (frameOrigin, inputType string, err error) {
	loc, r, err := f.pages.locate(f.ss, f.t, ref)
	if err != nil {
		return "", "", err
	}
	// The element was just located: what is left to wait for is a busy
	// renderer, which gets the operator's action_timeout, not a fixed
	// 2 s (that failed a fill on a machine at load 50).
	h, err := loc.ElementHandle(pw.LocatorElementHandleOptions{Timeout: ms(f.pages.cfg.actionWait())})
	if err != nil {
		return "", "", f.sessions.mapErr(f.ss, err, "finding "+r)
	}
	defer func() { go h.Dispose() }() // never waited on: the page may be stuck
	fr, _, err := await(f.ss, f.pages.cfg.actionWait(), false, h.OwnerFrame)
	if isStalled(err) {
		return "", "", f.sessions.mapErr(f.ss, err, "finding the frame of "+r)
	}
	if err != nil || fr == nil {
		return "", "", abi.Errorf(abi.CodeStaleRef, "ref %s is no longer in a frame of the page: take a new snapshot and use its refs", r)
	}
	v, err := loc.Evaluate(fieldJS, nil, pw.LocatorEvaluateOptions{Timeout: ms(f.pages.cfg.actionWait())})
	if err != nil {
		return "", "", f.sessions.mapErr(f.ss, err, "reading "+r)
	}
	m, _ := v.(map[string]any)
	typ, _ := m["type"].(string)
	if vis, _ := m["visible"].(bool); !vis {
		return "", "", abi.Errorf(abi.CodeNotInteractable, "element %s is not visible (hidden, collapsed or zero-sized): open the section that shows it, or take a new snapshot", r)
	}
	if en, _ := m["enabled"].(bool); !en {
		return "", "", abi.Errorf(abi.CodeNotInteractable, "element %s is disabled or read-only: take a new snapshot and pick an enabled field", r)
	}
	f.frames[r], f.locs[r] = fr, loc
	return originOf(fr.URL()), typ, nil
}

func (f *CredentialFill) loc(ref string) pw.Locator {
	r, err := normRef(ref)
	if err != nil {
		return nil
	}
	return f.locs[r]
}

// FrameOrigin re-reads the origin of the frame owning ref (resolved by
// Field); "null" when the frame is gone.
func (f *CredentialFill) FrameOrigin(ref string) string {
	r, err := normRef(ref)
	if err != nil {
		return "null"
	}
	fr := f.frames[r]
	if fr == nil || fr.IsDetached() {
		return "null"
	}
	return originOf(fr.URL())
}

// Set fills ref with value, at once. The error is Playwright's; the vault
// never shows it, because a driver message could quote the value.
func (f *CredentialFill) Set(ref, value string) error {
	loc := f.loc(ref)
	if loc == nil {
		return abi.Errorf(abi.CodeStaleRef, "field not resolved")
	}
	dialog, err := race0(f.ss, func() error {
		return loc.Fill(value, pw.LocatorFillOptions{Timeout: ms(f.pages.cfg.actionWait())})
	})
	if err == nil && dialog {
		return abi.Errorf(abi.CodeExecutionFailed, "a dialog opened during the fill")
	}
	return err
}

// Clear empties the fields, best effort (the page may be gone).
func (f *CredentialFill) Clear(refs []string) {
	for _, r := range refs {
		if loc := f.loc(r); loc != nil {
			race0(f.ss, func() error { return loc.Fill("", pw.LocatorFillOptions{Timeout: ms(f.pages.cfg.actionWait())}) })
		}
	}
}

// Click clicks ref (a submit button resolved by Field).
func (f *CredentialFill) Click(ref string) error {
	loc := f.loc(ref)
	if loc == nil {
		return abi.Errorf(abi.CodeStaleRef, "field not resolved")
	}
	_, err := race0(f.ss, func() error { return loc.Click(pw.LocatorClickOptions{Timeout: ms(f.pages.cfg.actionWait())}) })
	return err
}

// PressEnter presses Enter in ref, submitting its form.
func (f *CredentialFill) PressEnter(ref string) error {
	loc := f.loc(ref)
	if loc == nil {
		return abi.Errorf(abi.CodeStaleRef, "field not resolved")
	}
	_, err := race0(f.ss, func() error {
		return loc.Press("Enter", pw.LocatorPressOptions{Timeout: ms(f.pages.cfg.actionWait())})
	})
	return err
}

// Finish waits for a navigation the fill started and takes the snapshot
// (password values redacted), like any action.
func (f *CredentialFill) Finish(noSnapshot bool) (abi.BrowserActResponse, error) {
	var out abi.BrowserActResponse
	err := f.pages.after(f.ss, f.t, f.navBefore, noSnapshot, &out)
	return out, err
}

// Close unlocks the session. Calling it twice is harmless.
func (f *CredentialFill) Close() {
	if f.ss != nil {
		f.ss.mu.Unlock()
		f.ss = nil
	}
}
