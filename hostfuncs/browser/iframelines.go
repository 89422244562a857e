package browser

import "strings"

// The iframe lines of a snapshot: which frames Playwright put in it, and
// through which element of each the judge reaches it (seenframes.go).

// iframeRefs are the refs of a snapshot's iframe lines: the frames whose
// documents Playwright put in it (it takes a frame's snapshot only through
// its iframe's ref). ok is false when an iframe line cannot be read for
// sure (a key YAML quotes whole, a name left open): then every frame is
// to be asked. A ref is read from the line's attributes, after its name,
// never from the name or text a page chose.
func iframeRefs(snap string) (refs []string, ok bool) {
	lines, ok := iframeLines(snap)
	for _, l := range lines {
		refs = append(refs, l.ref)
	}
	return refs, ok
}

// iframeLine is an iframe line of a snapshot: its ref, and the first ref
// among the lines it holds ("" when none has one: an element of the
// frame's document, which Playwright resolves in that frame, "f3e1").
type iframeLine struct{ ref, first string }

// iframeLines reads the iframe lines of snap as iframeRefs does.
func iframeLines(snap string) (lines []iframeLine, ok bool) {
	open, openIndent := -1, 0 // the line whose first ref is looked for, and its indent
	for line := range strings.Lines(snap) {
		indent := len(line) - len(strings.TrimLeft(line, " "))
		key, item := strings.CutPrefix(line[indent:], "- ")
		if open >= 0 && (indent <= openIndent || !item) {
			open = -1
		}
		if !item {
			continue
		}
		role, ref, sure := lineRef(key)
		if open >= 0 {
			// (A line whose key YAML quotes whole is not read: the
			// frame is then reached through its iframe's ref.)
			if !sure || ref != "" {
				lines[open].first = ref
				open = -1
			}
		}
		if !sure && (role == "iframe" || strings.HasPrefix(key, "'iframe") || strings.HasPrefix(key, `"iframe`)) {
			return nil, false
		}
		if role == "iframe" && ref != "" {
			lines = append(lines, iframeLine{ref: ref})
			open, openIndent = len(lines)-1, indent
		}
	}
	return lines, true
}

// lineRef reads a snapshot line's key (after "- "): its role and its ref,
// from its attributes after its name, never from the name or text a page
// chose. sure is false when the key cannot be read for sure (YAML quotes
// it whole: role is then ""; or its name is left open); ref is then "".
func lineRef(key string) (role, ref string, sure bool) {
	if strings.HasPrefix(key, "'") || strings.HasPrefix(key, `"`) {
		return "", "", false
	}
	end := strings.IndexAny(key, " :\n\r")
	if end < 0 {
		end = len(key)
	}
	role, rest := key[:end], strings.TrimLeft(key[end:], " ")
	if strings.HasPrefix(rest, `"`) {
		e := quotedEnd(rest)
		if e < 0 {
			return role, "", false
		}
		rest = rest[e:]
	}
	if i := strings.IndexAny(rest, ":\n"); i >= 0 {
		rest = rest[:i]
	}
	if i := strings.Index(rest, "[ref="); i >= 0 {
		if r, n := refAt(rest[i+len("[ref="):]); n > 0 {
			ref = r
		}
	}
	return role, ref, true
}

// quotedEnd is where the double-quoted name s starts with ends (after its
// closing quote; a backslash escapes the next byte), or -1.
func quotedEnd(s string) int {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return -1
}
