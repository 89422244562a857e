// Package snapactive carries a compactor's answer over a focus move: a
// snapshot that differs from one compacted before only in which line
// carries the [active] mark (a Tab, a click that only moved the focus)
// gets that answer with the mark moved, instead of a second compaction of
// the whole snapshot. It holds for a compactor that declares
// abi.FeatureActiveMark (see there for what that promises); Patch fails,
// and the host compacts, whenever the texts do not show that the promise
// covers the case.
package snapactive

import (
	"slices"
	"strings"
)

const mark = "[active]"

// Strip is s without its [active] mark: the key under which a snapshot
// and the same page with the focus elsewhere meet. ok is false when the
// mark is anywhere but among the attributes of at most one line.
func Strip(s string) (string, bool) {
	at, line, ok := activeLine(s)
	if !ok || at < 0 {
		return s, ok
	}
	return s[:at] + unmark(line) + s[at+len(line):], true
}

// Patch is the compaction of now given was's compaction wasOut, when now
// is was with its [active] mark moved (Strip of both equal) and wasOut
// shows was's mark on a line (so this view shows the mark): wasOut with
// the mark taken off that line and put on the line of now's focused
// element, in the place now's line gives it among the attributes the
// compactor kept. It fails when wasOut shows no mark, when now's focused
// element has no ref or is not on exactly one line of wasOut, or when the
// mark is anywhere but on one line's attributes.
func Patch(was, wasOut, now string) (string, bool) {
	sw, ok1 := Strip(was)
	sn, ok2 := Strip(now)
	if !ok1 || !ok2 || sw != sn {
		return "", false
	}
	from, fromLine, ok := activeLine(wasOut)
	if !ok || from < 0 {
		return "", false
	}
	out := wasOut[:from] + unmark(fromLine) + wasOut[from+len(fromLine):]
	at, nowLine, _ := activeLine(now)
	if at < 0 {
		return out, true // the focus left every element with a line
	}
	ref := ""
	for _, a := range LineAttrs(nowLine) {
		if strings.HasPrefix(a, "[ref=") {
			ref = a
		}
	}
	if ref == "" || strings.Count(out, ref) != 1 {
		return "", false
	}
	start, end := lineAt(out, strings.Index(out, ref))
	line := out[start:end]
	if !slices.Contains(LineAttrs(line), ref) {
		return "", false // the ref is in a line's text, not its attributes
	}
	return out[:start] + placeActive(line, nowLine) + out[end:], true
}

// activeLine finds the one line whose attributes hold the mark: its
// offset (-1 with none) and text. ok is false when the mark is also
// elsewhere (in a line's text, on a second line).
func activeLine(s string) (at int, line string, ok bool) {
	at = -1
	n := strings.Count(s, mark)
	if n == 0 {
		return -1, "", true
	}
	if n > 1 {
		return -1, "", false
	}
	start, end := lineAt(s, strings.Index(s, mark))
	line = s[start:end]
	if !slices.Contains(LineAttrs(line), mark) {
		return -1, "", false
	}
	return start, line, true
}

// lineAt is the line of s that holds the offset i, as the offsets of its
// first byte and of its end (its newline, or the end of s).
func lineAt(s string, i int) (start, end int) {
	start = strings.LastIndexByte(s[:i], '\n') + 1
	if n := strings.IndexByte(s[i:], '\n'); n >= 0 {
		return start, i + n
	}
	return start, len(s)
}

// placeActive puts the mark on line (a compacted line without it) where
// src (the snapshot's line of the same element, with it) has it: after
// the attributes of line that come before the mark in src. A compactor
// with the feature keeps the attributes it shows in their order.
func placeActive(line, src string) string {
	head, attrs, tail := Parts(line)
	j := 0
	for _, a := range LineAttrs(src) {
		if a == mark {
			break
		}
		if j < len(attrs) && attrs[j] == a {
			j++
		}
	}
	kept := slices.Insert(slices.Clone(attrs), j, mark)
	return head + " " + strings.Join(kept, " ") + tail
}

// unmark takes the mark off a line's attributes.
func unmark(line string) string {
	head, attrs, tail := Parts(line)
	out := head
	for _, a := range attrs {
		if a != mark {
			out += " " + a
		}
	}
	return out + tail
}

// Parts splits a line "  - role "name" [a] [b]: text" into its head
// (through the name), its attributes ("[a]", "[b]") and what follows them
// (": text"); all three are empty for a line that is no element's.
func Parts(line string) (head string, attrs []string, tail string) {
	head, rest, _ := SplitAttrs(line)
	attrs = LineAttrs(line)
	n := 0
	for _, a := range attrs {
		n += 1 + len(a)
	}
	return head, attrs, rest[n:]
}

// LineAttrs are the [...] attributes of a snapshot line, after its role
// and quoted name and before its ": text".
func LineAttrs(line string) []string {
	_, rest, ok := SplitAttrs(line)
	if !ok {
		return nil
	}
	var out []string
	for strings.HasPrefix(rest, " [") {
		end := strings.IndexByte(rest, ']')
		if end < 0 {
			break
		}
		out = append(out, rest[1:end+1])
		rest = rest[end+1:]
	}
	return out
}

// SplitAttrs splits a line "  - role "name" [a] [b]: text" after its name:
// head "  - role "name"", rest " [a] [b]: text".
func SplitAttrs(line string) (head, rest string, ok bool) {
	body := strings.TrimLeft(line, " ")
	if !strings.HasPrefix(body, "- ") {
		return "", "", false
	}
	i := len(line) - len(body) + 2
	for i < len(line) && line[i] != ' ' && line[i] != ':' && line[i] != '"' {
		i++
	}
	if i+1 < len(line) && line[i] == ' ' && line[i+1] == '"' {
		// The name is JSON: skip it, escapes included.
		j := i + 2
		for j < len(line) && line[j] != '"' {
			if line[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(line) {
			return "", "", false
		}
		i = j + 1
	}
	return line[:i], line[i:], true
}
