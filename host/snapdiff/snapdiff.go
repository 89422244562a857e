// Package snapdiff renders the changes between two page snapshots (ARIA
// text, one node a line) the way an agent reads them: a diff small enough
// to send instead of the whole page after an action. It is pure: no state,
// no I/O; the kernel keeps the baselines it diffs against.
package snapdiff

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// Unchanged is the whole diff of an unchanged page.
const Unchanged = "Page snapshot unchanged since your last snapshot (its refs stay valid)."

// Same answers a browser_snapshot of a page whose snapshot is the
// one the agent received last.
const Same = Unchanged + ` To receive it whole again, call with snapshot "full".`

// Diff renders the changes from prev to next, line by line, as an
// agent reads them: a header with the counts, then hunks. A hunk starts
// with context lines ("  "): the changed lines' parent when it is not
// adjacent, then "  …", then the unchanged lines right before the change
// (as few as make its place unique, reading on from the previous hunk).
// Then the changes: "- " a removed line, "+ " an added line, "~ " the new
// text of a line that kept its ref. Lines keep their indentation and refs.
func Diff(prev, next string) string {
	if prev == next {
		// The common answer of an action that changed nothing: no need to
		// match the lines.
		return Unchanged
	}
	a, b := strings.Split(prev, "\n"), strings.Split(next, "\n")
	var (
		body                    strings.Builder
		added, removed, changed int
		cursor                  int // old lines before it are accounted for
	)
	for _, op := range difflib.NewMatcher(a, b).GetOpCodes() {
		if op.Tag == 'e' {
			continue
		}
		ctx := anchor(a, cursor, op.I1)
		if par := parent(a, b, op); par >= 0 && par < op.I1-ctx {
			fmt.Fprintf(&body, "  %s\n  …\n", a[par])
		}
		for _, l := range a[op.I1-ctx : op.I1] {
			fmt.Fprintf(&body, "  %s\n", l)
		}
		old, nw := a[op.I1:op.I2], b[op.J1:op.J2]
		n := min(len(old), len(nw))
		for k := 0; k < n; k++ {
			if ref := refOfLine(old[k]); ref != "" && ref == refOfLine(nw[k]) {
				fmt.Fprintf(&body, "~ %s\n", nw[k])
				changed++
				continue
			}
			fmt.Fprintf(&body, "- %s\n+ %s\n", old[k], nw[k])
			removed++
			added++
		}
		for _, l := range old[n:] {
			fmt.Fprintf(&body, "- %s\n", l)
			removed++
		}
		for _, l := range nw[n:] {
			fmt.Fprintf(&body, "+ %s\n", l)
			added++
		}
		cursor = op.I2
	}
	if body.Len() == 0 {
		return Unchanged
	}
	return fmt.Sprintf("Page snapshot (changes since your last snapshot: %d added, %d removed, %d changed):\n%s",
		added, removed, changed, strings.TrimRight(body.String(), "\n"))
}

// anchor is how many unchanged lines before old line i (and from cursor
// on) a hunk shows so that its place is right after the first place,
// reading from cursor, where those lines occur. At least one when there
// is one; all of them at worst, which is unique, and at once when more
// than maxAnchor would be needed (such a diff is likely to outgrow the
// page, which is then sent whole).
func anchor(a []string, cursor, i int) int {
	for k := min(1, i-cursor); k < i-cursor && k <= maxAnchor; k++ {
		if firstAt(a, cursor, a[i-k:i]) == i-k {
			return k
		}
	}
	return i - cursor
}

const maxAnchor = 64

// firstAt is the first index from cursor where a holds the lines want.
func firstAt(a []string, cursor int, want []string) int {
	for s := cursor; s+len(want) <= len(a); s++ {
		if equalLines(a[s:s+len(want)], want) {
			return s
		}
	}
	return -1
}

func equalLines(x, y []string) bool {
	for i := range x {
		if x[i] != y[i] {
			return false
		}
	}
	return true
}

// parent is the old line that holds the change: the nearest line before
// it indented less than its first line, or -1.
func parent(a, b []string, op difflib.OpCode) int {
	first := ""
	switch {
	case op.I2 > op.I1:
		first = a[op.I1]
	default:
		first = b[op.J1]
	}
	ind := indent(first)
	for i := op.I1 - 1; i >= 0; i-- {
		if indent(a[i]) < ind {
			return i
		}
	}
	return -1
}

func indent(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

var refRE = regexp.MustCompile(`\[ref=([^\]]+)\]`)

func refOfLine(l string) string {
	if m := refRE.FindStringSubmatch(l); m != nil {
		return m[1]
	}
	return ""
}
