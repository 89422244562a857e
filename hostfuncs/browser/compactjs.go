package browser

import "strings"

// compactJS is the host's own page script src without its comment lines
// and indentation: what every new document's isolated world compiles
// before the first call on it can run (the engines are 220 KB as
// written, about half of it comments and tabs; measured, the two
// engines' compile added 20-45 ms to each new document before, 5-25 ms
// after). Only whole lines go: a line whose first characters after its
// indentation are "//" is a comment in any script without template
// literals, and leading white space never matters in one, so the
// script runs the same. A script with a backtick left (a template
// literal may hold lines that begin with "//") or a line ending in a
// backslash (a string continued on the next line) is answered unchanged.
func compactJS(src string) string {
	var b strings.Builder
	b.Grow(len(src))
	for line := range strings.Lines(src) {
		t := strings.TrimLeft(line, " \t")
		if t == "\n" || t == "" || strings.HasPrefix(t, "//") {
			continue
		}
		if strings.HasSuffix(strings.TrimRight(t, "\r\n"), "\\") {
			return src
		}
		b.WriteString(t)
	}
	out := b.String()
	if strings.Contains(out, "`") {
		return src
	}
	return out
}
