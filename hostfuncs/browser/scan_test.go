package browser

import (
	"maps"
	"strings"
	"testing"
)

// The hand scanners in redact and snapshot must agree with the regexps
// that state the rules (textboxValue, refInSnap).
func TestSnapshotScannersMatchRegexps(t *testing.T) {
	lines := []string{
		`- textbox "Password" [ref=e8]: s3cret`,
		`  - textbox "Name" [ref=e3]: Ann`,
		`- textbox "Time: now" [ref=e3]: val`,
		`- textbox "Name" [ref=f1e12] [active]: Bob: the builder`,
		`- textbox "x" [ref=e3]:novalue`,
		`- textbox "x" [ref=e3]: `,
		`- textbox "x" [ref=e3]`,
		`- textbox "x" [ref=e3] [ref=e4]: v`,
		`- textbox "x" [ref=e4]: v [ref=e5]: w`,
		`- textboxes "x" [ref=e3]: v`,
		`- textbox: [ref=e3]: v`,
		`- searchbox "q" [ref=e2]: v`,
		`- textbox [ref=e2]: v`,
		`- textbox "a" [ref=e]: v`,
		`- textbox "a" [ref=fe3]: v`,
		`- textbox "a" [ref=f2e3]x: v`,
		"\t- textbox \"t\" [ref=e9]: tabbed",
		`- button "Go" [ref=e1]`,
		`- textbox`,
		``,
	}
	for _, l := range lines {
		m := textboxValue.FindStringSubmatch(l)
		head, ref, ok := textboxLine(l)
		if (m != nil) != ok || m != nil && (m[1] != head || m[2] != ref) {
			t.Errorf("%q: regexp %q, scanner %q %q %v", l, m, head, ref, ok)
		}
	}
	snap := strings.Join(lines, "\n") + "\n- link [ref=e77] [ref=bad] [ref=f3e1][ref=e2x] [ref=e5"
	want, got := map[string]bool{}, map[string]bool{}
	for _, m := range refInSnap.FindAllStringSubmatch(snap, -1) {
		want[m[1]] = true
	}
	snapRefs(snap, got)
	if !maps.Equal(want, got) {
		t.Errorf("refs: regexp %v, scanner %v", want, got)
	}
}
