package snapdiff

import (
	"fmt"
	"maps"
	"strings"
	"testing"
)

// page is a snapshot with a header of nav links, a main part and a
// three-link footer; refs are prefix+"e"+n, numbered in order.
func page(prefix, story string, paragraphs int) string {
	n := 0
	ref := func() string { n++; return fmt.Sprintf("[ref=%se%d]", prefix, n) }
	var b strings.Builder
	fmt.Fprintf(&b, "- banner %s:\n  - link \"Home\" %s\n  - navigation %s:\n", ref(), ref(), ref())
	for _, s := range []string{"World news", "Business", "Technology", "Science", "Health", "Sport", "Weather"} {
		fmt.Fprintf(&b, "    - link %q %s\n", s, ref())
	}
	fmt.Fprintf(&b, "- main %s:\n  - heading %q [level=1] %s\n", ref(), story, ref())
	for i := range paragraphs {
		fmt.Fprintf(&b, "  - paragraph %s: Paragraph %d of %s.\n", ref(), i+1, story)
	}
	fmt.Fprintf(&b, "- contentinfo %s:\n  - link \"About\" %s\n  - link \"Contact\" %s\n  - link \"Jobs\" %s", ref(), ref(), ref(), ref())
	return b.String()
}

// The header a new page shares with the last collapses to its own line
// and a count; what differs stays whole, and so does a footer too short
// to be worth it. Refs are not compared: the new page's (another prefix)
// are given as aliases of the ones the agent read.
func TestCollapseSharedChrome(t *testing.T) {
	a, b := page("", "First story", 1), page("f1", "Second story", 2)
	got, saved, aliases := Collapse(a, b)
	want := `- banner [ref=f1e1]:
  - (9 lines as on the previous page; its refs work here` + CollapseHint + `)
- main [ref=f1e11]:
  - heading "Second story" [level=1] [ref=f1e12]
  - paragraph [ref=f1e13]: Paragraph 1 of Second story.
  - paragraph [ref=f1e14]: Paragraph 2 of Second story.
- contentinfo [ref=f1e15]:
  - link "About" [ref=f1e16]
  - link "Contact" [ref=f1e17]
  - link "Jobs" [ref=f1e18]`
	if got != want || saved != 8 {
		t.Fatalf("saved %d:\n%s\nwant:\n%s", saved, got, want)
	}
	wantAliases := map[string]string{}
	for i := 1; i <= 10; i++ {
		wantAliases[fmt.Sprintf("e%d", i)] = fmt.Sprintf("f1e%d", i)
	}
	if !maps.Equal(aliases, wantAliases) {
		t.Fatalf("aliases %v, want %v", aliases, wantAliases)
	}
}

// A shared subtree nested deeper in the new page, or at another depth in
// the old, still collapses (indentation is relative), and refs that did
// not change need no alias; small ones do not collapse; one line that
// differs (a state, a name) keeps a subtree whole; a page sharing nothing
// comes back as it was.
func TestCollapseDepthsAndSizes(t *testing.T) {
	a := page("", "First story", 1)
	wrapped := "- generic [ref=e20]:\n" + indented(a, "  ")
	got, saved, aliases := Collapse(a, wrapped)
	if saved == 0 || strings.Contains(got, `link "Weather"`) || !strings.Contains(got, `  - banner [ref=e1]:`) || !strings.Contains(got, "    - (9 lines as on the previous page") || len(aliases) != 0 {
		t.Fatalf("nested deeper (aliases %v):\n%s", aliases, got)
	}
	small := "- list [ref=e1]:\n  - listitem [ref=e2]: a\n  - listitem [ref=e3]: b"
	if got, saved, _ := Collapse(small+"\n- paragraph: x", small+"\n- paragraph: y"); saved != 0 || got != small+"\n- paragraph: y" {
		t.Fatalf("a 3-line subtree collapsed:\n%s", got)
	}
	changed := strings.Replace(a, `link "Sport" [ref=e9]`, `link "Sport" [active] [ref=e9]`, 1)
	if got, _, _ := Collapse(a, changed); !strings.Contains(got, `link "Sport" [active]`) || !strings.Contains(got, `link "Weather"`) {
		t.Fatalf("a subtree with a line changed collapsed:\n%s", got)
	}
	other := `- heading "Elsewhere" [ref=e1]`
	if got, saved, aliases := Collapse(a, other); saved != 0 || got != other || aliases != nil {
		t.Fatalf("nothing shared: %d %v\n%s", saved, aliases, got)
	}
}

func indented(s, by string) string {
	return by + strings.ReplaceAll(s, "\n", "\n"+by)
}
