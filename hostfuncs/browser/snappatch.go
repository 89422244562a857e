package browser

import (
	"slices"
	"strings"

	"github.com/wasmwright/wasmwright/internal/snapactive"
)

// Patching a kept snapshot to the text a new one would have (changes.go:
// unchangedSnapshot), line by line, as Playwright renders the lines.

// moveActive moves the [active] mark of snap to the line of ref: taken
// off the one line that has it, put on that line where Playwright renders
// it (after [checked], [disabled] and [expanded], before the others). It
// fails, so the page is snapshot, when the ref is not on exactly one
// line, or [active] on more than one; but with unseen (the focused
// element shows nowhere unless on its line, watchAnswer.Unseen), a ref
// on no line only takes the mark off.
func moveActive(snap, ref string, unseen bool) (string, bool) {
	lines := strings.Split(snap, "\n")
	want := "[ref=" + ref + "]"
	target, from := -1, -1
	for i, l := range lines {
		attrs := lineAttrs(l)
		if slices.Contains(attrs, want) {
			if target >= 0 {
				return "", false
			}
			target = i
		}
		if slices.Contains(attrs, "[active]") {
			if from >= 0 {
				return "", false
			}
			from = i
		}
	}
	if target < 0 && !unseen {
		return "", false
	}
	if from >= 0 {
		lines[from] = setActive(lines[from], false)
	}
	if target >= 0 {
		lines[target] = setActive(lines[target], true)
	}
	return strings.Join(lines, "\n"), true
}

// focusPlace is where the line of a focused element without a ref is
// (changes.go, placeOf): the role its line has, and the elements around
// it in the document's order: refs, "self" (it), "same" (another element
// without a ref whose line would have that role), "start" and "end".
type focusPlace struct {
	Role string   `json:"role"`
	Seq  []string `json:"seq"`
}

// placeActive moves the [active] mark of snap to the line of the focused
// element of p: between the lines of the nearest refs around it that are
// each on exactly one line (or the snapshot's start or end, when the
// walk reached the document's), the lines without a ref whose key is of
// p's role must be exactly as many as the elements p counted there, in
// the same order; the element's is then the one at its place. Anything
// else fails, so the page is snapshot.
func placeActive(snap string, p *focusPlace) (string, bool) {
	self := slices.Index(p.Seq, "self")
	if p.Role == "" || self < 0 {
		return "", false
	}
	lines := strings.Split(snap, "\n")
	lo, from, ok := placeBound(lines, p.Seq, self, -1)
	hi, to, ok2 := placeBound(lines, p.Seq, self, 1)
	if !ok || !ok2 || from >= to {
		return "", false
	}
	nth, count := -1, 0
	for _, e := range p.Seq[lo+1 : hi] {
		switch e {
		case "self":
			nth = count
			count++
		case "same":
			count++
		}
	}
	var found []int
	for i := from + 1; i < to; i++ {
		if roleLine(lines[i], p.Role) {
			found = append(found, i)
		}
	}
	if len(found) != count || nth < 0 {
		return "", false
	}
	active := -1
	for i, l := range lines {
		if slices.Contains(lineAttrs(l), "[active]") {
			if active >= 0 {
				return "", false
			}
			active = i
		}
	}
	if active >= 0 {
		lines[active] = setActive(lines[active], false)
	}
	lines[found[nth]] = setActive(lines[found[nth]], true)
	return strings.Join(lines, "\n"), true
}

// placeBound is the nearest bound of a focused element's line one way
// (step -1 or 1 from self in seq): the first ref on exactly one line (its
// index in seq and its line), or the document's edge ("start" or "end":
// the line just outside the snapshot). A ref on no line is passed over;
// one on several lines, or no bound, is not ok.
func placeBound(lines, seq []string, self, step int) (at, line int, ok bool) {
	edge, outside := "start", -1
	if step > 0 {
		edge, outside = "end", len(lines)
	}
	for i := self + step; i >= 0 && i < len(seq); i += step {
		switch e := seq[i]; e {
		case edge:
			return i, outside, true
		case "same", "self", "start", "end":
			continue
		}
		want, at := "[ref="+seq[i]+"]", -1
		for j, l := range lines {
			if slices.Contains(lineAttrs(l), want) {
				if at >= 0 {
					return 0, 0, false
				}
				at = j
			}
		}
		if at >= 0 {
			return i, at, true
		}
	}
	return 0, 0, false
}

// roleLine reports whether line is an element's line of role with no
// ref: "- link", "- link \"Name\"", with attributes or a colon after.
// A key YAML quotes whole ("- 'link ...'") is not read: no match.
func roleLine(line, role string) bool {
	body, ok := strings.CutPrefix(strings.TrimLeft(line, " "), "- "+role)
	if !ok || body != "" && body[0] != ' ' && body[0] != ':' {
		return false
	}
	for _, a := range lineAttrs(line) {
		if strings.HasPrefix(a, "[ref=") {
			return false
		}
	}
	return true
}

// setValue gives the line of a text field (ref v.Ref) the text v.Now, as
// Playwright renders it: "- textbox "Name" [ref=e5]: text", or, when the
// field has a placeholder other than its name, a "- /placeholder: ..."
// line under it and the text on a "- text: ..." line after that; no text
// when it is empty. It fails, so the page is snapshot, unless the ref is
// on exactly one line, whose key is not quoted, and which shows v.Was
// rendered the same way: what the line shows is then known to be what
// this renders.
func setValue(snap string, v valueChange) (string, bool) {
	lines := strings.Split(snap, "\n")
	want := "[ref=" + v.Ref + "]"
	at := -1
	for i, l := range lines {
		if slices.Contains(lineAttrs(l), want) {
			if at >= 0 {
				return "", false
			}
			at = i
		}
	}
	if at < 0 {
		return "", false
	}
	line := lines[at]
	head, rest, ok := splitAttrs(line)
	body := strings.TrimLeft(line, " ")
	if !ok || strings.HasPrefix(body, "- '") {
		return "", false
	}
	n := 0
	for _, a := range lineAttrs(line) {
		n += 1 + len(a)
	}
	key := head + rest[:n]
	ind := strings.Repeat(" ", len(line)-len(body)+2)
	end := at + 1
	for end < len(lines) && strings.HasPrefix(lines[end], ind) {
		end++
	}
	placeholder := ""
	if end > at+1 {
		placeholder = lines[at+1]
		if !strings.HasPrefix(placeholder, ind+"- /placeholder: ") {
			return "", false
		}
	}
	render := func(text string) []string {
		if placeholder == "" {
			if text == "" {
				return []string{key}
			}
			return []string{key + ": " + yamlValue(text)}
		}
		out := []string{key + ":", placeholder}
		if text != "" {
			out = append(out, ind+"- text: "+yamlValue(text))
		}
		return out
	}
	if !slices.Equal(lines[at:end], render(v.Was)) {
		return "", false
	}
	out := append(append(slices.Clone(lines[:at]), render(v.Now)...), lines[end:]...)
	return strings.Join(out, "\n"), true
}

// lineAttrs and splitAttrs read a snapshot line as the host's compaction
// patch does (snapactive).
var (
	lineAttrs  = snapactive.LineAttrs
	splitAttrs = snapactive.SplitAttrs
)

// setActive puts [active] on a line, or takes it off.
func setActive(line string, on bool) string {
	head, attrs, tail := snapactive.Parts(line)
	var kept []string
	placed := false
	for _, a := range attrs {
		if a == "[active]" {
			continue
		}
		if on && !placed && !strings.HasPrefix(a, "[checked") && a != "[disabled]" && a != "[expanded]" {
			kept, placed = append(kept, "[active]"), true
		}
		kept = append(kept, a)
	}
	if on && !placed {
		kept = append(kept, "[active]")
	}
	out := head
	for _, a := range kept {
		out += " " + a
	}
	return out + tail
}
