package browser

import (
	"maps"
	"strings"
	"testing"
)

// The hand scanners in redact and snapshot must agree with the regexps
// that state the rules (textboxValue, refInSnap).
func TestSnapshotScannersMatchRegexps(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
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

// subtree cuts a scoped snapshot out of the page's, with Playwright's depth
// rule: an element at the limit keeps its inline text and properties.
func TestSubtree(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	const page = `- generic [ref=e1]:
  - list [ref=e2]:
    - listitem [ref=e3]:
      - link "One" [ref=e4] [cursor=pointer]:
        - /url: /one
        - img [ref=e9]
    - listitem [ref=e5]: Two
  - button "After" [ref=e6]
- link "e2 [ref=e22]" [ref=e7]`
	for _, c := range []struct {
		ref   string
		depth int
		want  string
	}{
		{"e2", 0, "- list [ref=e2]:\n  - listitem [ref=e3]:\n    - link \"One\" [ref=e4] [cursor=pointer]:\n      - /url: /one\n      - img [ref=e9]\n  - listitem [ref=e5]: Two"},
		{"e2", 1, "- list [ref=e2]:\n  - listitem [ref=e3]:\n  - listitem [ref=e5]: Two"},
		{"e3", 1, "- listitem [ref=e3]:\n  - link \"One\" [ref=e4] [cursor=pointer]:\n    - /url: /one"},
		{"e6", 0, `- button "After" [ref=e6]`},
		{"e7", 0, `- link "e2 [ref=e22]" [ref=e7]`},
	} {
		got, ok := subtree(page, c.ref, c.depth)
		if !ok || got != c.want {
			t.Errorf("subtree(%s, depth %d) = %v\n%s\nwant\n%s", c.ref, c.depth, ok, got, c.want)
		}
	}
	if _, ok := subtree(page, "e8", 0); ok {
		t.Error("a ref not in the snapshot was cut")
	}
}

// markLines puts each box's marks where its [box=...] was, on main-frame
// lines only, and drops every box.
func TestMarkLines(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	snap := "- generic [ref=e1] [box=0,0,800,600]:\n" +
		"  - generic [ref=e2] [box=8,26,100,18]: Card A\n" +
		"  - generic \"x [box=8,26,100,18]\" [ref=e3] [cursor=pointer] [box=1,2,3,4]: a [box=9] text\n" +
		"  - iframe [ref=e4] [box=8,26,100,18]:\n" +
		"    - generic [ref=f1e1] [box=8,26,100,18]: inner\n" +
		"  - text: plain"
	got := markLines(snap, map[string][]string{"8,26,100,18": {"draggable", "clickable"}, "1,2,3,4": {"hoverable"}})
	want := "- generic [ref=e1]:\n" +
		"  - generic [ref=e2] [draggable] [clickable]: Card A\n" +
		"  - generic \"x [box=8,26,100,18]\" [ref=e3] [cursor=pointer] [hoverable]: a [box=9] text\n" +
		"  - iframe [ref=e4] [draggable] [clickable]:\n" +
		"    - generic [ref=f1e1]: inner\n" +
		"  - text: plain"
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}

// Once a page has had frames, Playwright prefixes the main frame's refs
// too: a line is in a frame by its nesting under an iframe, not its ref.
func TestMarkLinesPrefixedMainFrame(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	snap := "- generic [ref=f3e1] [box=0,0,800,600]:\n" +
		"  - generic [ref=f3e2] [box=8,26,100,18]: Card A\n" +
		"  - iframe [ref=f3e4] [box=0,100,300,150]:\n" +
		"    - generic [ref=f4e1] [box=8,26,100,18]: inner\n" +
		"  - generic [ref=f3e5] [box=8,26,100,18]: after the frame"
	got := markLines(snap, map[string][]string{"8,26,100,18": {"draggable"}})
	want := "- generic [ref=f3e1]:\n" +
		"  - generic [ref=f3e2] [draggable]: Card A\n" +
		"  - iframe [ref=f3e4]:\n" +
		"    - generic [ref=f4e1]: inner\n" +
		"  - generic [ref=f3e5] [draggable]: after the frame"
	if got != want {
		t.Fatalf("got:\n%s\nwant:\n%s", got, want)
	}
}
