package browser

import (
	_ "embed"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
)

// Visibility: what reaches the model is what a sighted user sees on the
// page, plus the accessible names of controls (DESIGN, "Seen, not
// hidden"). One judge (visibility.js) decides it from what the renderer
// lays out and paints, for the snapshot and browser_read alike:
//
//   - the styles that pass down (display, visibility, content-visibility,
//     the product of opacities with filter opacity() and masks that hide
//     all, aria-hidden), and 3D (a face turned away, a box behind the
//     viewer);
//   - the boxes of each text node (Range.getClientRects) after the clips
//     that apply (overflow, clip, clip-path shapes, paint containment,
//     the scrollable areas: nothing left of or above a scroll origin
//     shows), word by word for a text only partly shown (a clipped
//     tail, an ellipsis, a line clamp);
//   - its colours as the browser resolves them (any colour space, drawn on
//     a 1x1 canvas), through the colour filters and blend modes on the
//     way, against the background colours below it (gradient stops
//     included; an image background is taken to show anything), with a
//     stroke or a close shadow that shows where the fill does not, and
//     the ::first-line colour; a heavy blur hides it;
//   - what covers it, by geometry and paint order, not hit tests (a hit
//     test sees only the viewport, and a kept snapshot must not depend on
//     where the page is scrolled): a positioned box painting opaque
//     (background, picture, a backdrop filter that hides, an opaque
//     positioned ::before/::after), a wide opaque shadow or outline,
//     above the text by z-index or document order; an in-flow background
//     over a negative z-index; a modal's opaque backdrop or an opaque box
//     fixed over the whole viewport covers all the rest.
//
// The snapshot is not changed in the page: the judge runs after it, in
// Playwright's isolated world where each element keeps its snapshot ref,
// and answers the refs of elements nothing of which shows and the hidden
// text runs under the nearest element with a ref; the host takes them out
// of the snapshot's lines (filterHidden). Nothing is written to the page,
// so neither the page nor the change watcher sees the pass.
//
// Invisible format characters (tags, zero-width, bidi controls) are taken
// out of every string the page gives (visibleChars).

//go:embed visibility.js
var visibilityJS string

//go:embed judgesnap.js
var judgeSnapshotJS string

// visibilityEngineJS is the judge as a selector engine Playwright runs in
// its isolated world of every document: ww-visible=snapshot answers
// judgeSnapshot's result as the text of an element made for it, never
// inserted into the document.
var visibilityEngineJS = `(() => {
` + visibilityJS + judgeSnapshotJS + `
	const queryAll = (root, body) => {
		if (!body.startsWith("snapshot")) return [];
		const e = document.createElement("span");
		e.textContent = JSON.stringify(judgeSnapshot(document, body.slice(9)));
		return [e];
	};
	return { query: (root, body) => queryAll(root, body)[0], queryAll };
})()`

// visibilityEngine is the selector engine's name.
const visibilityEngine = "ww-visible"

// registerVisibility installs the judge on a driver, as registerChanges
// does the change watcher.
func registerVisibility(p *pw.Playwright) error {
	src := visibilityEngineJS
	return p.Selectors.Register(visibilityEngine, pw.Script{Content: &src}, pw.SelectorsRegisterOptions{ContentScript: pw.Bool(true)})
}

// judgement is what the judge answers of a document: the refs of the
// elements none of whose content shows, and hidden text under refs.
type judgement struct {
	Drop []string    `json:"drop"`
	Runs []hiddenRun `json:"runs"`
	MS   float64     `json:"ms"` // the pass's time in the page
}

// hiddenRun is hidden text (white space as one space) under the element
// of Ref (the nearest holding it that has a ref; "" for none). Tail: the
// hidden words of a text otherwise shown.
type hiddenRun struct {
	Ref  string `json:"ref"`
	Text string `json:"text"`
	Tail bool   `json:"tail,omitempty"`
}

// judgePage asks the judge of every frame of t's page, at the same time.
// A frame whose judge does not answer fails the whole: its hidden text
// would reach the agent unchecked.
//
// own is what the snapshot shows as each ref's own text (ownTexts): the
// judge looks for generated text (::before, ::after) where a ref shows
// more than its document holds.
func judgePage(t *tab, wait time.Duration, own string) (judgement, error) {
	frames := t.page.Frames()
	answers := make([]judgement, len(frames))
	errs := make([]error, len(frames))
	var wg sync.WaitGroup
	for i, f := range frames {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i], errs[i] = judgeFrame(f, wait, own)
		}()
	}
	wg.Wait()
	var all judgement
	for i, f := range frames {
		if errs[i] != nil && !f.IsDetached() {
			// Once more: a frame loading another document meanwhile
			// loses its judge's context.
			answers[i], errs[i] = judgeFrame(f, wait, own)
		}
		if errs[i] != nil {
			if f.IsDetached() {
				continue // gone meanwhile: its content is not in the next snapshot either
			}
			return all, abi.Errorf(abi.CodeExecutionFailed, "judging what the page shows failed (%s): take a new snapshot", firstLine(errs[i].Error()))
		}
		all.MS += answers[i].MS
		all.Drop = append(all.Drop, answers[i].Drop...)
		all.Runs = append(all.Runs, answers[i].Runs...)
	}
	return all, nil
}

func judgeFrame(f pw.Frame, wait time.Duration, own string) (judgement, error) {
	var j judgement
	text, err := f.Locator(visibilityEngine + "=snapshot;" + own).TextContent(pw.LocatorTextContentOptions{Timeout: pw.Float(float64(wait.Milliseconds()))})
	if err == nil {
		err = json.Unmarshal([]byte(text), &j)
	}
	return j, err
}

// visibleChars takes out of s the characters that draw nothing and that a
// model still reads: format characters (Unicode's Cf: zero-width spaces
// and joiners, bidi controls, the tag characters U+E0000-E007F, soft
// hyphens) and variation selectors.
func visibleChars(s string) string {
	clean := true
	for _, r := range s {
		if invisibleRune(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	return strings.Map(func(r rune) rune {
		if invisibleRune(r) {
			return -1
		}
		return r
	}, s)
}

func invisibleRune(r rune) bool {
	if r < 0xad {
		return false
	}
	return unicode.Is(unicode.Cf, r) || r >= 0xfe00 && r <= 0xfe0f || r >= 0xe0100 && r <= 0xe01ef
}

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
func filterHidden(snap string, j judgement, mark bool) string {
	if len(j.Drop) == 0 && len(j.Runs) == 0 {
		return snap
	}
	lines, ends, at := splitSnapshot(snap)
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
		text := strings.Join(strings.Fields(visibleChars(run.Text)), " ")
		if text == "" {
			continue
		}
		// The text is under its ref's line when that has one; when not
		// (Playwright folds some wrappers into their child's line), it is
		// looked for in the whole snapshot.
		edit := cutText
		if mark {
			edit = markText
		}
		if i, ok := at[run.Ref]; ok {
			takeOut(lines[i:ends[i]], text, edit)
		} else {
			takeOut(lines, text, edit)
		}
	}
	// Children before parents: a line left with nothing (its text taken
	// out, or all it held dropped: a wrapper of hidden text has no text
	// of its own) goes.
	hasChildren := func(i int) bool {
		for k := i + 1; k < ends[i]; k++ {
			if !lines[k].dropped {
				return true
			}
		}
		return false
	}
	for i := len(lines) - 1; i >= 0 && !mark; i-- {
		l := &lines[i]
		if !l.dropped && (l.edited || ends[i] > i+1) && !hasChildren(i) && l.role != "" && !controlRoles[l.role] && (l.role == "text" || l.name == "") && l.value == "" {
			l.dropped = true
		}
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

// takeOut edits text out of the first line of lines that holds it (edit:
// cutText or markText), in its value or, for an element that is not a
// control, its name.
func takeOut(lines []snapLine, text string, edit func(s, text string) (string, bool)) bool {
	for i := range lines {
		l := &lines[i]
		if l.dropped || l.role == "" || controlRoles[l.role] {
			continue
		}
		if l.hasValue {
			if v, ok := edit(l.value, text); ok {
				l.value, l.edited = v, true
				return true
			}
		}
		if l.hasName {
			if v, ok := edit(l.name, text); ok {
				l.name, l.edited = v, true
				return true
			}
		}
	}
	return false
}

// cutText removes text from s where it stands (findText), and tidies the
// spaces left.
func cutText(s, text string) (string, bool) {
	at := findText(s, text)
	if at < 0 {
		return s, false
	}
	return strings.Join(strings.Fields(s[:at]+" "+s[at+len(text):]), " "), true
}

// markText marks text in s where it stands (findText) as [hidden: text].
func markText(s, text string) (string, bool) {
	at := findText(s, text)
	if at < 0 {
		return s, false
	}
	return strings.Join(strings.Fields(s[:at]+" [hidden: "+text+"] "+s[at+len(text):]), " "), true
}

// findText is where text stands in s as words of its own (or, for a text
// of 12 bytes or more, anywhere: Playwright joins the texts of inline
// elements with no space; a shorter one could be part of a word that
// shows), or -1.
func findText(s, text string) int {
	at := -1
	for from := 0; from <= len(s)-len(text); {
		i := strings.Index(s[from:], text)
		if i < 0 {
			break
		}
		i += from
		if (i == 0 || s[i-1] == ' ') && (i+len(text) == len(s) || strings.ContainsRune(" .,;:!?)", rune(s[i+len(text)]))) {
			at = i
			break
		}
		if at < 0 && len(text) >= 12 {
			at = i
		}
		from = i + 1
	}
	return at
}

// seen judges the page of a snapshot just taken and takes out of it what
// a person cannot see. A judge that fails fails the snapshot (fail
// closed): the agent is told to take it again.
// With mark, the hidden text stays, marked (filterHidden).
func (s *pages) seen(t *tab, snap string, wait time.Duration, mark bool) (string, error) {
	t0 := time.Now()
	snap = visibleChars(snap)
	j, err := judgePage(t, wait, ownTexts(snap))
	if err != nil {
		return "", err
	}
	out := filterHidden(snap, j, mark)
	judged.add(time.Since(t0), j.MS, len(snap), len(out))
	return out, nil
}

// ownTexts says, for each line of snap with a ref, how many letters (not
// white space) it shows as text of its own: its value and its direct
// "text:" lines, or else the name of an element that is no control
// (a heading's name is its content). "e3:37,e5:12": the judge's
// selector body. Generated text (::before, ::after) is in these and not
// in the document's text nodes, which is how the judge finds where to
// look for it (a pseudo-element's style costs too much to read for every
// element).
func ownTexts(snap string) string {
	lines, ends, _ := splitSnapshot(snap)
	letters := func(s string) int {
		n := 0
		for _, r := range s {
			if !unicode.IsSpace(r) {
				n++
			}
		}
		return n
	}
	var b strings.Builder
	for i, l := range lines {
		if l.ref == "" {
			continue
		}
		n, text := 0, false
		if l.hasValue {
			n, text = letters(l.value), true
		}
		for k := i + 1; k < ends[i]; k = ends[k] {
			if c := lines[k]; c.role == "text" && c.hasValue {
				n, text = n+letters(c.value), true
			}
		}
		if !text && l.hasName && !controlRoles[l.role] {
			n = letters(l.name)
		}
		if n > 0 {
			if b.Len() > 0 {
				b.WriteByte(',')
			}
			b.WriteString(l.ref)
			b.WriteByte(':')
			b.WriteString(strconv.Itoa(n))
		}
	}
	return b.String()
}

// marksHidden says the call holding ss asks for hidden text marked in its
// snapshots (hidden_text = "mark"), not taken out.
func marksHidden(ss *session) bool {
	if ss.ctx == nil {
		return false
	}
	c := hostfuncs.CallerFrom(ss.ctx)
	return c != nil && c.MarkHidden()
}

// judged counts the judge's passes over snapshots, their time and the
// bytes they took out, for the cost measurement (TestVisibilityCost).
var judged judgeStats

type judgeStats struct{ passes, nanos, pageNanos, before, after atomic.Int64 }

func (j *judgeStats) add(d time.Duration, pageMS float64, before, after int) {
	j.passes.Add(1)
	j.nanos.Add(int64(d))
	j.pageNanos.Add(int64(pageMS * 1e6))
	j.before.Add(int64(before))
	j.after.Add(int64(after))
}
