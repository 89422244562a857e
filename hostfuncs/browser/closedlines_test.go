package browser

import "testing"

// TestClosedTextLines: text from closed roots goes under the line of the
// nearest ref that has one (a folded ref's is the next out), after the
// line of the nearest element before it there that has one, else first;
// a line with an inline value holds it as its first text; with no ref's
// line, at the end of the snapshot. Quoted as YAML where it needs it.
func TestClosedTextLines(t *testing.T) {
	snap := `- main [ref=e2]:
  - paragraph [ref=e3]: before
  - generic [ref=e9]: "slotted: words"
  - button "Go" [ref=e6]
  - paragraph [ref=e10]: after`
	got := withClosedText(snap, []closedText{
		{Refs: []string{"e7", "e2"}, After: []string{"e8", "e3"}, Text: "in a folded host"},
		{Refs: []string{"e9", "e2"}, After: []string{"e3"}, Text: "own: words"},
		{Refs: []string{"e6"}, Text: "under a button"},
		{Refs: []string{"e2"}, Text: "first in main"},
		{Refs: []string{"e99"}, Text: "no line"},
		{Refs: []string{"e9"}, Text: "\u200b"},
	})
	want := `- main [ref=e2]:
  - text: first in main
  - paragraph [ref=e3]: before
  - text: in a folded host
  - generic [ref=e9]:
    - text: "slotted: words"
    - text: "own: words"
  - button "Go" [ref=e6]:
    - text: under a button
  - paragraph [ref=e10]: after
- text: no line`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
	if got := withClosedText(snap, nil); got != snap {
		t.Errorf("no closed text changed the snapshot:\n%s", got)
	}
}
