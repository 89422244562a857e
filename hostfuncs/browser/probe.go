// The element probe: what an act needs to know of its target before
// Playwright would wait on it.

package browser

import (
	"encoding/json"
	"sync/atomic"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
)

// probeFn reads in one round trip what ready and isPassword need, with
// Playwright's own rules: visible = a non-empty box and not
// visibility:hidden; disabled = :disabled or inside aria-disabled;
// editable = a text control or contenteditable that is not read-only.
// secret is redact's question (secretField, in scope where it runs), asked
// here so that typing into a field of a page that did not change otherwise
// costs no round trip after the action (redactKept).
//
// It runs in the change watcher's engine (changesJS: aria-ref=e5 >>
// ww-changes=probe), in Playwright's isolated world, which the snapshot
// that gave the ref has made ready and the page's scripts cannot reach:
// asked in the page's own world (Locator.Evaluate), the first act on a
// document paid for readying that world, 100-250 ms on a busy machine,
// although the action itself (fill, click) runs in the isolated one.
const probeFn = `e => {
	const r = e.getBoundingClientRect();
	const visible = r.width > 0 && r.height > 0 && getComputedStyle(e).visibility !== "hidden";
	const disabled = (e.matches && e.matches(":disabled")) || !!(e.closest && e.closest("[aria-disabled=true]"));
	const text = (e instanceof HTMLInputElement && !["checkbox","radio","button","submit","reset","image","file","range","color","hidden"].includes(e.type))
		|| e instanceof HTMLTextAreaElement || e.isContentEditable || ["textbox","searchbox","combobox","spinbutton"].includes(e.getAttribute && e.getAttribute("role"));
	const readonly = !!e.readOnly || (e.getAttribute && e.getAttribute("aria-readonly") === "true");
	const link = e.closest && e.closest("a[href],area[href]");
	const submit = !!e.form && (e instanceof HTMLButtonElement ? e.type === "submit" : e instanceof HTMLInputElement && ["submit","image"].includes(e.type));
	const target = ((link && link.target) || (submit && (e.formTarget || e.form.target)) || "").toLowerCase();
	const frame = target !== "" && [...document.querySelectorAll("iframe[name],frame[name]")].some(f => f.name.toLowerCase() === target);
	return {visible, enabled: !disabled, editable: text && !disabled && !readonly,
		password: e instanceof HTMLInputElement && e.type.toLowerCase() === "password",
		opensTab: target !== "" && !frame && !["_self","_parent","_top"].includes(target),
		navigates: !!link || submit, secret: secretField(e)};
}`

type probe struct {
	Visible, Enabled, Editable, Password bool
	// OpensTab: a link or form whose target opens another browsing context
	// (not a frame of the page). Navigates: a link or a form's submit
	// control, which a modifier or middle click may open in a tab.
	OpensTab, Navigates bool
	// Secret: a field redact hides the value of (secretFieldFn). Read:
	// the probe answered (a probe that failed says nothing).
	Secret, Read bool
}

// probesUnanswered counts the probes ready got no answer from (the page
// too slow or gone), for tests: such a call knows nothing ahead.
var probesUnanswered atomic.Int64

// probeOf reads an element's state; ok is false when it could not.
func probeOf(loc pw.Locator, timeout time.Duration) (probe, bool) {
	text, err := loc.Locator(changeEngine + "=probe").TextContent(pw.LocatorTextContentOptions{Timeout: pw.Float(float64(timeout.Milliseconds()))})
	var p probe // its fields are the answer's keys (json matches them without case)
	if err != nil || json.Unmarshal([]byte(text), &p) != nil {
		return probe{}, false
	}
	p.Read = true
	return p, true
}

// ready fails fast with not_interactable where Playwright would wait out
// the action timeout. It returns the probe (Password says whether the
// element is a password input). The probe locateToAct started in this
// call is used once; otherwise the element is probed now.
func (t *tab) ready(loc pw.Locator, ref string, enabled, editable bool) (probe, error) {
	var p probe
	var ok bool
	if early := t.probed[ref]; early != nil {
		delete(t.probed, ref)
		p, ok = early()
	} else {
		p, ok = probeOf(loc, time.Second)
	}
	if !ok && !t.page.IsClosed() {
		// locate found the element, so a probe that did not answer met a
		// busy renderer (a loaded machine): once more, longer, before
		// leaving it to Playwright's action timeout.
		p, ok = probeOf(loc, 5*time.Second)
	}
	if !ok {
		probesUnanswered.Add(1)
		return p, nil // let Playwright decide, with its timeout
	}
	if !p.Visible {
		return p, abi.Errorf(abi.CodeNotInteractable, "element %s is not visible (hidden, collapsed or zero-sized): open the menu or section that shows it, or take a new snapshot", ref)
	}
	if enabled && !p.Enabled {
		return p, abi.Errorf(abi.CodeNotInteractable, "element %s is disabled: complete what it depends on first, then take a new snapshot", ref)
	}
	if editable && !p.Editable {
		return p, abi.Errorf(abi.CodeNotInteractable, "element %s is read-only or not a text field: pick an editable textbox from the snapshot", ref)
	}
	return p, nil
}
