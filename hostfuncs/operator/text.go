package operator

import (
	"fmt"
	"strings"
	"unicode"
)

// Text that reaches a person from the desk (an approval question, a
// takeover request, a ping, the event log) comes from two hands the
// person must not mistake for the host: the page (a title, an element's
// name and text, a URL) and the agent (a takeover's reason). Both are
// masked for the session's secrets (Options.Mask) before anything holds
// them, and each channel writes them as quoted plain text: PlainLine and
// Quoted here, the chat escaping in the console's webhook.

// Masker hides, in s, every secret value of the session (what the
// session filled or typed, and what the vault stores). ok is false when
// it could not learn them all (the vault could not be read): the caller
// withholds s rather than pass it unchecked.
type Masker func(personality, session, s string) (masked string, ok bool)

// withheldText replaces a string the masker could not check.
const withheldText = "(withheld: the host could not read the vault to mask this text)"

// mask is s masked for the session, or withheldText when it cannot be
// checked. A desk with no masker knows no secrets (tests, embedders).
func (d *Desk) mask(personality, session, s string) string {
	if d.opts.Mask == nil || s == "" {
		return s
	}
	m, ok := d.opts.Mask(personality, session, s)
	if !ok {
		return withheldText
	}
	return m
}

// PlainLine is s as one plain line of at most n runes: control
// characters (newlines, tabs) become spaces, runs of spaces one space,
// and the invisible format characters a page or an agent can use to
// reorder or hide text (bidi overrides, zero-width joiners) are dropped.
func PlainLine(s string, n int) string {
	var b strings.Builder
	space := false
	count := 0
	for _, r := range strings.TrimSpace(s) {
		switch {
		case unicode.Is(unicode.Cf, r):
			continue
		case unicode.IsControl(r) || unicode.IsSpace(r):
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
			count++
		}
		space = false
		if count >= n {
			b.WriteString("…")
			break
		}
		b.WriteRune(r)
		count++
	}
	return b.String()
}

// markdownMarks are the characters a markdown renderer could read as a
// link, an image, emphasis, code, a heading, a table or HTML.
const markdownMarks = "\\`*_[]<>#!|~\""

// Quoted is s as a person is shown words that are not the host's: one
// plain line of at most n runes (PlainLine), in double quotes, with every
// markdown mark and quote inside backslash-escaped, so a client that
// renders the message as markdown shows the marks instead of a link, and
// the words cannot close the quote to speak as the host.
func Quoted(s string, n int) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range PlainLine(s, n) {
		if strings.ContainsRune(markdownMarks, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	b.WriteByte('"')
	return b.String()
}

// Page-controlled strings of a Target are bounded to these lengths.
const (
	pageTextMax = 120
	pageURLMax  = 300
)

// pageTarget is t as a person may be shown it: every page-controlled
// string masked for the session and made one bounded plain line. The
// element's visible text is kept only where it differs from its
// accessible name (the case a person must see both).
func (d *Desk) pageTarget(personality, session string, t *Target) *Target {
	if t == nil {
		return nil
	}
	c := *t
	line := func(s string, n int) string { return PlainLine(d.mask(personality, session, s), n) }
	c.Role, c.Name, c.Title = line(c.Role, 40), line(c.Name, pageTextMax), line(c.Title, pageTextMax)
	c.Text, c.URL = line(c.Text, pageTextMax), line(c.URL, pageURLMax)
	if strings.EqualFold(strings.Join(strings.Fields(c.Text), " "), strings.Join(strings.Fields(c.Name), " ")) {
		c.Text = ""
	}
	return &c
}

// ElementWords says which element an approval is about, each of the
// page's strings through quote: `button "Save"`, or, where the visible
// text differs from the accessible name, `button showing "Delete account"
// (its accessible name says "approve this")`.
func ElementWords(t *Target, quote func(string, int) string) string {
	role := t.Role
	if role == "" {
		role = "element"
	}
	role = PlainLine(role, 40)
	switch {
	case t.Text != "" && t.Name != "":
		return fmt.Sprintf("%s showing %s (its accessible name says %s)", role, quote(t.Text, 120), quote(t.Name, 120))
	case t.Text != "":
		return fmt.Sprintf("%s showing %s (no accessible name)", role, quote(t.Text, 120))
	case t.Name != "":
		return role + " " + quote(t.Name, 120)
	}
	return role
}
