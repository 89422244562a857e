package browser

import (
	"strconv"
	"strings"
	"unicode"
)

// The host's side of the visibility judge (visibility.go): the snapshot's
// lines, parsed, and what is taken out of them: the judge's hidden refs
// and runs (filterHidden), and names no one sees (unseenNames).

// controlRoles are the roles whose accessible name stays when the control
// shows: the name is how an agent tells it, whatever paints it.
var controlRoles = map[string]bool{
	"button": true, "link": true, "checkbox": true, "radio": true, "switch": true, "tab": true,
	"menuitem": true, "menuitemcheckbox": true, "menuitemradio": true, "option": true, "combobox": true,
	"textbox": true, "searchbox": true, "slider": true, "spinbutton": true, "treeitem": true,
	"listbox": true, "gridcell": true, "img": true, "iframe": true,
}

// snapLine is one line of a snapshot, split where hidden text is taken
// out: `- role "name" [attrs]: value`, or `- text: value`.
type snapLine struct {
	indent   int
	role     string
	name     string // unquoted; hasName tells an empty name from none
	hasName  bool
	attrs    string // ` [level=1] [ref=e5]`, as is
	value    string // unquoted
	hasValue bool
	raw      string // the line as it was, when it is not one of these
	ref      string
	dropped  bool
	edited   bool
	hidden   bool // marked hidden (hidden_text = "mark")
	unnamed  bool // its name, which no one sees, taken out (unseenNames)
}

// parseSnapLine splits a line; raw lines (`- /url: ...`, anything not
// understood) are kept as they are.
func parseSnapLine(line string) snapLine {
	body := strings.TrimLeft(line, " ")
	l := snapLine{indent: len(line) - len(body), raw: line}
	if !strings.HasPrefix(body, "- ") || strings.HasPrefix(body, "- /") {
		return l
	}
	rest := body[2:]
	i := strings.IndexAny(rest, " :")
	if i <= 0 {
		l.role = rest
		return l
	}
	l.role, rest = rest[:i], rest[i:]
	if strings.HasPrefix(rest, ` "`) {
		n, ok := quotedPrefix(rest[1:])
		if !ok {
			l.role = ""
			return l
		}
		name, err := strconv.Unquote(n)
		if err != nil {
			l.role = ""
			return l
		}
		l.name, l.hasName, rest = name, true, rest[1+len(n):]
	}
	if j := strings.Index(rest, ": "); j >= 0 && !strings.Contains(rest[:j], `"`) {
		l.attrs, l.hasValue = rest[:j], true
		v := rest[j+2:]
		if strings.HasPrefix(v, `"`) {
			u, err := strconv.Unquote(v)
			if err != nil {
				l.role = ""
				return l
			}
			v = u
		}
		l.value = v
	} else {
		l.attrs = strings.TrimSuffix(rest, ":")
	}
	if k := strings.Index(l.attrs, "[ref="); k >= 0 {
		l.ref, _ = refAt(l.attrs[k+len("[ref="):])
	}
	return l
}

// quotedPrefix is the double-quoted string at the start of s, quotes
// included.
func quotedPrefix(s string) (string, bool) {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return s[:i+1], true
		}
	}
	return "", false
}

// render writes the line back: as it was unless hidden text was taken out.
func (l snapLine) render(hadChildren, children bool) string {
	if !l.edited {
		if hadChildren && !children {
			return strings.TrimSuffix(l.raw, ":")
		}
		return l.raw
	}
	var b strings.Builder
	b.WriteString(strings.Repeat(" ", l.indent))
	b.WriteString("- " + l.role)
	if l.hasName {
		b.WriteString(" " + strconv.Quote(l.name))
	}
	b.WriteString(l.attrs)
	if l.hidden {
		b.WriteString(" [hidden]")
	}
	switch {
	case l.hasValue && l.value != "":
		b.WriteString(": " + yamlValue(l.value))
	case children:
		b.WriteString(":")
	}
	return b.String()
}

// filterHidden takes out of a snapshot what the judge found hidden: the
// lines of dropped refs with all they hold, and each hidden run from the
// text (values, and the names of elements that are not controls) of the
// first line under its ref that holds it (of the whole snapshot when its
// ref has no line). A line left with no text, name or children goes.
// With mark, nothing goes: a dropped ref's line carries [hidden] (what it
// holds is under it) and a hidden run reads [hidden: ...] where it stood.
//
// Names no one sees go the same way (unseenNames).
func filterHidden(snap string, j judgement, mark bool) string {
	return parseSnapshot(snap).filter(j, mark)
}

// parsedSnapshot is a snapshot split into lines once (splitSnapshot), for
// the judge's question (ownTexts) and its answer (filter) alike.
type parsedSnapshot struct {
	snap  string
	lines []snapLine
	ends  []int
	at    map[string]int
}

func parseSnapshot(snap string) *parsedSnapshot {
	lines, ends, at := splitSnapshot(snap)
	return &parsedSnapshot{snap, lines, ends, at}
}

// filter is filterHidden on a parsed snapshot (its lines are edited).
func (p *parsedSnapshot) filter(j judgement, mark bool) string {
	snap, lines, ends, at := p.snap, p.lines, p.ends, p.at
	for _, r := range j.Drop {
		if i, ok := at[r]; ok {
			if mark {
				lines[i].hidden, lines[i].edited = true, true
				continue
			}
			for k := i; k < ends[i]; k++ {
				lines[k].dropped = true
			}
		}
	}
	for _, run := range j.Runs {
		p.takeRun(run, j.Parents, mark)
	}
	if !unseenNames(lines, ends, mark, j.Unexplained) && len(j.Drop) == 0 && len(j.Runs) == 0 {
		return snap
	}
	hasChildren := func(i int) bool {
		for k := i + 1; k < ends[i]; k++ {
			if !lines[k].dropped {
				return true
			}
		}
		return false
	}
	if !mark {
		p.dropEmptied(hasChildren)
	}
	var b strings.Builder
	b.Grow(len(snap))
	for i, l := range lines {
		if l.dropped {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l.render(ends[i] > i+1, hasChildren(i)))
	}
	return b.String()
}

// takeRun takes one hidden run out of the lines (or marks it): a
// placeholder from its field's lines, a label from a line with no ref, a
// field's value from its line, any other text from the first line under
// its ref that holds it. The text is under its ref's line when that has
// one; when not (Playwright folds some elements into a line of their
// parent's), under the line of the nearest ref above it that has one
// (parents, the judge's); failing that, it is looked for in the whole
// snapshot.
func (p *parsedSnapshot) takeRun(run hiddenRun, parents map[string]string, mark bool) {
	lines, ends, at := p.lines, p.ends, p.at
	text := strings.Join(strings.Fields(visibleChars(run.Text)), " ")
	if text == "" {
		return
	}
	edit := cutText
	if mark {
		edit = markText
	}
	i, ok := at[run.Ref]
	own := ok
	for x, k := run.Ref, 0; !ok && k < 64; k++ {
		up, has := parents[x]
		if !has {
			break
		}
		i, ok = at[up]
		x = up
	}
	switch {
	case run.Placeholder:
		if own {
			takePlaceholder(lines[i+1:ends[i]], text, mark)
		}
	case run.Label:
		scope := lines
		if ok {
			scope = lines[i:ends[i]]
		}
		takeLabel(scope, text, mark)
	case own && run.Value:
		// (A field's value: on its own line only, a control's too.)
		if l := &lines[i]; !l.dropped && l.hasValue {
			if v, ok := edit(l.value, text); ok {
				l.value, l.edited = v, true
			}
		}
	case ok && !run.Value:
		takeOut(lines[i:ends[i]], text, edit, true)
		// A name made of content above it (a list item's, of its hidden
		// link's text) holds the text too.
		for k, in := i-1, lines[i].indent; k >= 0 && in > 0; k-- {
			if lines[k].indent < in {
				in = lines[k].indent
				cutLine(&lines[k], text, edit)
			}
		}
	case !run.Value:
		takeOut(lines, text, edit, false)
	}
}

// dropEmptied drops, children before parents, a line left with nothing
// (its text taken out, or all it held dropped: a wrapper of hidden text
// has no text of its own), and a control with no ref whose name went
// (hidden whole) with what is under it (its URL).
func (p *parsedSnapshot) dropEmptied(hasChildren func(int) bool) {
	lines, ends := p.lines, p.ends
	for i := len(lines) - 1; i >= 0; i-- {
		l := &lines[i]
		if !l.dropped && l.ref == "" && l.edited && controlRoles[l.role] && strings.TrimSpace(l.name) == "" && l.value == "" {
			for k := i; k < ends[i]; k++ {
				lines[k].dropped = true
			}
			continue
		}
		if !l.dropped && !l.unnamed && (l.edited || ends[i] > i+1) && !hasChildren(i) && l.role != "" && !controlRoles[l.role] && (l.role == "text" || l.name == "") && l.value == "" {
			l.dropped = true
		}
	}
}

// unseenNames takes out the names no one sees: an element that is no
// control or picture (a region, a list, a figure, a dialog, a heading, a
// generic box with a title) shows its text, not its label, so a name
// none of whose words are in its visible text (an aria-label, a title)
// goes, or is marked; the line stays (a box a person sees). A name that is
// the element's content stays, and so do the names of controls and of what
// an agent acts on (actedOn), and of pictures (their text alternative
// stands for what is seen). Reports whether it changed a line.
func unseenNames(lines []snapLine, ends []int, mark bool, unexplained []string) bool {
	changed, labels := false, make(map[string]bool, len(unexplained))
	for _, r := range unexplained {
		labels[r] = true
	}
	for i := range lines {
		l := &lines[i]
		if !l.hasName || l.name == "" || l.dropped || l.role == "" || l.role == "text" || controlRoles[l.role] || actedOn(l.attrs) {
			continue
		}
		if !l.hasValue && ends[i] == i+1 {
			// A name alone: Playwright prints an element's content so (a
			// heading, a summary); a label it is only when the judge found
			// no text in the document to show it.
			if !labels[l.ref] {
				continue
			}
		} else if wordsShown(l.name, lines[i:ends[i]]) {
			continue
		}
		if mark {
			l.name = "[hidden: " + l.name + "]"
		} else {
			l.hasName, l.name = false, ""
		}
		l.edited, l.unnamed, changed = true, true, true
	}
	return changed
}

// actedOn: a line whose marks say an agent acts on it (dragging, dropping,
// clicking, hovering, focusing) is a control in all but its role.
func actedOn(attrs string) bool {
	for _, m := range []string{"[draggable]", "[droppable]", "[clickable]", "[hoverable]", "[focusable]", "[cursor=pointer]"} {
		if strings.Contains(attrs, m) {
			return true
		}
	}
	return false
}

// wordsShown reports whether every word of name is in the text lines
// shows (values, text lines, the names of what it holds).
func wordsShown(name string, lines []snapLine) bool {
	words := func(s string) []string {
		return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	}
	shown := map[string]bool{}
	for k, c := range lines {
		if c.dropped {
			continue
		}
		if c.hasValue {
			for _, w := range words(c.value) {
				shown[w] = true
			}
		}
		if k > 0 && c.hasName {
			for _, w := range words(c.name) {
				shown[w] = true
			}
		}
	}
	for _, w := range words(name) {
		if !shown[w] {
			return false
		}
	}
	return true
}

// splitSnapshot parses the lines of snap; ends[i] is the index after the
// last line nested under line i, at the line of each ref.
func splitSnapshot(snap string) (lines []snapLine, ends []int, at map[string]int) {
	for line := range strings.Lines(snap) {
		lines = append(lines, parseSnapLine(strings.TrimSuffix(line, "\n")))
	}
	ends = make([]int, len(lines))
	var open []int
	for i, l := range lines {
		for len(open) > 0 && lines[open[len(open)-1]].indent >= l.indent {
			ends[open[len(open)-1]] = i
			open = open[:len(open)-1]
		}
		open = append(open, i)
	}
	for _, i := range open {
		ends[i] = len(lines)
	}
	at = map[string]int{}
	for i, l := range lines {
		if l.ref != "" {
			at[l.ref] = i
		}
	}
	return lines, ends, at
}

// ownTexts says, for each line of snap with a ref, how many letters (not
// white space) it shows as text of its own: its value and its direct
// "text:" lines, or else the name of an element that is no control
// (a heading's name is its content). "e3:37,e5:12": the judge's
// selector body. Generated text (::before, ::after) is in these and not
// in the document's text nodes, which is how the judge finds where to
// look for it (a pseudo-element's style costs too much to read for every
// element).
func ownTexts(snap string) string { return parseSnapshot(snap).ownTexts() }

// ownTexts is ownTexts of a parsed snapshot (read only).
func (p *parsedSnapshot) ownTexts() string {
	lines, ends := p.lines, p.ends
	var b strings.Builder
	for i, l := range lines {
		if l.ref == "" {
			continue
		}
		n, text := 0, false
		if l.hasValue {
			n, text = letterCount(l.value), true
		}
		for k := i + 1; k < ends[i]; k = ends[k] {
			if c := lines[k]; c.role == "text" && c.hasValue {
				n, text = n+letterCount(c.value), true
			}
		}
		if !text && l.hasName && !controlRoles[l.role] {
			n = letterCount(l.name)
		}
		addCount(&b, l.ref, n)
	}
	return b.String()
}

// quickOwnTexts is ownTexts without keeping the snapshot's lines: one pass,
// the ref lines' counts and the open lines' indents only. The judge's
// question is asked with it while the snapshot is parsed beside the
// judge's pass (seen); the parsed snapshot's own ownTexts checks it after.
func quickOwnTexts(snap string) string {
	type count struct {
		ref, name string
		n         int
		text      bool // a value or a direct text line: the name is not its text
	}
	type open struct{ indent, at int } // at: the line's count, -1 without a ref
	var counts []count
	var stack []open
	for line := range strings.Lines(snap) {
		l := parseSnapLine(strings.TrimSuffix(line, "\n"))
		for len(stack) > 0 && stack[len(stack)-1].indent >= l.indent {
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 && l.role == "text" && l.hasValue {
			if at := stack[len(stack)-1].at; at >= 0 {
				counts[at].n += letterCount(l.value)
				counts[at].text = true
			}
		}
		at := -1
		if l.ref != "" {
			c := count{ref: l.ref}
			if l.hasValue {
				c.n, c.text = letterCount(l.value), true
			}
			if l.hasName && !controlRoles[l.role] {
				c.name = l.name
			}
			counts = append(counts, c)
			at = len(counts) - 1
		}
		stack = append(stack, open{l.indent, at})
	}
	var b strings.Builder
	for _, c := range counts {
		n := c.n
		if !c.text {
			n = letterCount(c.name)
		}
		addCount(&b, c.ref, n)
	}
	return b.String()
}

// addCount adds ref:n to the judge's question (ownTexts), n above 0 only.
func addCount(b *strings.Builder, ref string, n int) {
	if n <= 0 {
		return
	}
	if b.Len() > 0 {
		b.WriteByte(',')
	}
	b.WriteString(ref)
	b.WriteByte(':')
	b.WriteString(strconv.Itoa(n))
}

// letterCount is how many letters (not white space) s holds.
func letterCount(s string) int {
	n := 0
	for _, r := range s {
		if !unicode.IsSpace(r) {
			n++
		}
	}
	return n
}
