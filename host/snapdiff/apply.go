package snapdiff

import (
	"fmt"
	"regexp"
	"strings"
)

// Apply applies a Diff to prev, the way an agent reads it (the reader's
// side of the format, which the tests hold Diff to):
// a hunk's context lines up to "  …" only say where it is; the lines after
// it are found reading on from the previous hunk, and the changes follow
// them. It fails on anything that does not fit prev.
func Apply(prev, diff string) (string, error) {
	if diff == Unchanged {
		return prev, nil
	}
	a := strings.Split(prev, "\n")
	lines := strings.Split(diff, "\n")
	if !regexp.MustCompile(`^Page snapshot \(changes since your last snapshot: \d+ added, \d+ removed, \d+ changed\):$`).MatchString(lines[0]) {
		return "", fmt.Errorf("bad header %q", lines[0])
	}
	var out []string
	cursor := 0
	var ctx []string
	inChanges := false
	for _, l := range lines[1:] {
		tag, text := l[:2], l[2:]
		if tag == "  " {
			if inChanges {
				ctx, inChanges = nil, false
			}
			if text == "…" {
				ctx = nil
				continue
			}
			ctx = append(ctx, text)
			continue
		}
		if !inChanges {
			at := firstAt(a, cursor, ctx)
			if at < 0 {
				return "", fmt.Errorf("context %q not found after line %d", ctx, cursor)
			}
			end := at + len(ctx)
			out = append(out, a[cursor:end]...)
			cursor, inChanges = end, true
		}
		switch tag {
		case "+ ":
			out = append(out, text)
		case "- ", "~ ":
			if cursor >= len(a) {
				return "", fmt.Errorf("%q past the end", l)
			}
			if tag == "- " && a[cursor] != text {
				return "", fmt.Errorf("removed %q but the line is %q", text, a[cursor])
			}
			if tag == "~ " {
				if r := refOfLine(text); r == "" || r != refOfLine(a[cursor]) {
					return "", fmt.Errorf("changed %q but the line is %q", text, a[cursor])
				}
				out = append(out, text)
			}
			cursor++
		default:
			return "", fmt.Errorf("bad line %q", l)
		}
	}
	return strings.Join(append(out, a[cursor:]...), "\n"), nil
}
