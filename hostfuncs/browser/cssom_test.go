package browser

import (
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
)

// TestStylesheetChangeIsAnswered: a focus handler that hides text through
// the CSSOM (a rule inserted, a sheet adopted, a sheet disabled, a sheet
// deleted from: no mutation of the document) changes the Tab's answer,
// which equals a new snapshot.
func TestStylesheetChangeIsAnswered(t *testing.T) {
	for name, script := range map[string]string{
		"insertRule": `const s = document.styleSheets[1]; s.insertRule("#x { display: none !important }", s.cssRules.length)`,
		"adopted":    `const s = new CSSStyleSheet(); s.replaceSync("#x { display: none !important }"); document.adoptedStyleSheets = [s]`,
		"disabled":   `document.styleSheets[1].disabled = true`,
		"deleteRule": `document.styleSheets[1].deleteRule(0)`,
	} {
		page := `<!doctype html><title>CSSOM</title><style>#x { color: black }</style><style>#x { display: block !important } #y { display: none }</style>
<style>#x { display: none }</style><main><input aria-label="First"><p id="x">vtarget Some words.</p></main>
<script>document.querySelector("input").addEventListener("focus", () => { ` + script + ` });</script>`
		// The third sheet hides #x unless the second's !important rule
		// holds: disabling that sheet, or deleting that rule, hides #x;
		// an important rule after it (inserted or adopted) hides it too.
		c := caller(t.Name() + name)
		r := navTo(t, c, servePage(t, page))
		if !strings.Contains(r.Snapshot, "vtarget") {
			t.Fatalf("%s: the text is not shown before the press:\n%s", name, r.Snapshot)
		}
		a := act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: "Tab"})
		if strings.Contains(a.Snapshot, "vtarget") {
			t.Errorf("%s: the Tab's answer still shows the text its focus handler hid:\n%s", name, a.Snapshot)
		}
		if kept, fresh := freshSnapshot(t, c); kept != fresh {
			t.Errorf("%s: the answer differs from a new snapshot:\n%s\n---\n%s", name, kept, fresh)
		}
	}
}
