package browser

import (
	"strconv"
	"strings"
)

// Taking the judge's hidden text out of a snapshot's lines
// (parsedSnapshot.takeRun): where it stands in a line's value or name,
// a placeholder's line, a label on a line with no ref.

// takeOut edits text out of the first line of lines that holds it (edit:
// cutText or markText), in its value or, for an element that is not a
// control, its name.
//
// A control's name stays (the judge keeps the names of controls a person
// sees), except on a line with no ref: Playwright gives none to an
// element with no box or no pointer events, and the judge answers the
// text of such a control only when the control is hidden whole.
//
// With nested (the text's own element is under lines, its ref's), a name
// made of its content (a row's, of its cells) holds the text again on the
// lines under it: it goes from those too. Not where the text is looked for
// in the whole snapshot (its ref has no line): the first line that holds
// it may be another element's, shown, that reads the same.
func takeOut(lines []snapLine, text string, edit func(s, text string) (string, bool), nested bool) bool {
	for i := range lines {
		if !cutLine(&lines[i], text, edit) {
			continue
		}
		for k := i + 1; nested && k < len(lines) && lines[k].indent > lines[i].indent; k++ {
			cutLine(&lines[k], text, edit)
		}
		return true
	}
	return false
}

// cutLine edits text out of l's value or, failing that, its name (not a
// control's that has a ref).
func cutLine(l *snapLine, text string, edit func(s, text string) (string, bool)) bool {
	if l.dropped || l.role == "" || controlRoles[l.role] && l.ref != "" {
		return false
	}
	if l.hasValue {
		if v, ok := edit(l.value, text); ok {
			l.value, l.edited = v, true
			return true
		}
	}
	if l.hasName {
		if v, ok := edit(l.name, text); ok {
			// (A name left empty is no name: `navigation ""` says nothing.)
			l.name, l.hasName, l.edited = v, strings.TrimSpace(v) != "", true
			return true
		}
	}
	return false
}

// takePlaceholder takes out the /placeholder line of lines (a field's
// own) that reads text; with mark, marks its text.
func takePlaceholder(lines []snapLine, text string, mark bool) {
	for i := range lines {
		l := &lines[i]
		v, ok := strings.CutPrefix(strings.TrimSpace(l.raw), "- /placeholder: ")
		if u, err := strconv.Unquote(v); err == nil && strings.HasPrefix(v, `"`) {
			v = u
		}
		if l.dropped || !ok || strings.Join(strings.Fields(visibleChars(v)), " ") != text {
			continue
		}
		if mark {
			l.raw = strings.Repeat(" ", l.indent) + "- /placeholder: " + yamlValue("[hidden: "+text+"]")
		} else {
			l.dropped = true
		}
		return
	}
}

// takeLabel takes the name text (a label no one sees) from the first line
// of lines that has no ref and is named exactly so; with mark, marks it.
func takeLabel(lines []snapLine, text string, mark bool) {
	for i := range lines {
		l := &lines[i]
		if l.dropped || l.ref != "" || !l.hasName || strings.Join(strings.Fields(visibleChars(l.name)), " ") != text {
			continue
		}
		if mark {
			l.name = "[hidden: " + l.name + "]"
		} else {
			l.hasName, l.name = false, ""
		}
		l.edited = true
		return
	}
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
