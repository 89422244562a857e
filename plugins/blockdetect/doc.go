package main

import (
	"html"
	"strings"
	"unicode/utf8"
)

// How much a page may hold and still be a wall. Walls say one thing and
// link to little (the 24 walls of the shared corpus: at most 917 visible
// runes once hidden elements are left out, and 4 links; a multilingual
// branded error page, 2,860 runes); a page past either is a page of its
// own, whatever scripts it loads.
const (
	wallMaxText  = 3000 // visible runes
	wallMaxLinks = 20   // <a href> elements
	// A stub shows at most a line ("Please enable JS and disable any ad
	// blocker"): below this many visible runes, a page whose only other
	// content is a vendor's script is that vendor's challenge.
	stubMaxText = 80
)

// docFacts is what one pass over a document finds: the title, the visible
// text, how much the page holds, and the markup a rule may search, split
// into what is built (elements outside scripts) and what is script.
type docFacts struct {
	title     string
	text      strings.Builder // visible text, whitespace collapsed, up to wallMaxText+1 runes
	textRunes int             // visible runes, counted up to where reading stopped
	links     int             // <a href>
	fields    int             // inputs a person types into or picks from
	srcs      int             // <script src>
	sheets    int             // <link rel=stylesheet>
	elements  int             // start tags shown: scripts and hidden elements left out
	// Where the markup a rule may search lies in the document, as spans
	// (not copies: a document may be megabytes of markup):
	built  []span // the tags outside scripts, and iframe fallback content
	script []span // inline scripts, and the start tags of scripts (src, id)
	doc    string
	// rich is set when the page holds more than any wall
	// (wallMaxText, wallMaxLinks): reading stopped there.
	rich bool
}

// rawText reports the elements whose content is text, not markup; it is
// skipped whole (script content goes to the script spans, iframe fallback
// to the built ones). None of it is visible in a browser that runs scripts.
func rawText(name string) bool {
	switch name {
	case "script", "style", "noscript", "template", "iframe", "xmp", "noembed", "noframes", "title":
		return true
	}
	return false
}

// void reports the elements that never have content, so hiding one hides
// nothing after it.
func void(name string) bool {
	switch name {
	case "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr":
		return true
	}
	return false
}

// readDoc reads doc once, front to back, and stops as soon as the page is
// rich (holds more text or links than any wall): cost is at most linear in
// the document, and for an ordinary page it is the cost of its first few
// thousand words. With withText false the visible text is not collected
// (the host gave the rendered text); the rest is.
func readDoc(doc string, withText bool) *docFacts {
	r := &docReader{f: &docFacts{doc: doc}, doc: doc, withText: withText}
	for r.i < len(doc) {
		if r.f.links > wallMaxLinks || r.f.textRunes > wallMaxText {
			r.f.rich = true
			return r.f
		}
		j := strings.IndexByte(doc[r.i:], '<')
		if j < 0 {
			j = len(doc) - r.i
		}
		if j > 0 {
			if withText && r.hidden == "" {
				r.f.addText(doc[r.i : r.i+j])
			}
			r.i += j
			continue
		}
		if !r.markup(doc[r.i:]) {
			return r.f
		}
	}
	return r.f
}

// docReader is readDoc's walk over one document: where it is, and the
// element that hides what it holds (display:none, hidden) with its
// nesting.
type docReader struct {
	f        *docFacts
	doc      string
	withText bool
	i        int
	hidden   string
	depth    int
}

// markup reads what starts at rest, doc[i:], which begins with '<': a
// comment, a declaration, an end tag, a start tag, or a lone '<'. It
// returns false when the document ends inside a comment.
func (r *docReader) markup(rest string) bool {
	switch {
	case strings.HasPrefix(rest, "<!--"):
		e := strings.Index(rest[4:], "-->")
		if e < 0 {
			return false
		}
		r.i += 4 + e + 3
	case len(rest) > 1 && (rest[1] == '!' || rest[1] == '?'):
		n, _ := tagEnd(rest)
		r.i += n
	case len(rest) > 1 && rest[1] == '/':
		n, _ := tagEnd(rest)
		if r.hidden != "" && tagName(rest[2:n]) == r.hidden {
			if r.depth--; r.depth == 0 {
				r.hidden = ""
			}
		}
		// End tags carry no marker; kept in the built spans, they join a
		// run of markup into one span.
		r.f.built = addSpan(r.doc, r.f.built, r.i, r.i+n)
		r.i += n
	case len(rest) < 2 || !isLetter(rest[1]):
		if r.withText && r.hidden == "" {
			r.f.addText("<")
		}
		r.i++
	default:
		r.startTag(rest)
	}
	return true
}

// startTag reads the start tag at the head of rest and, for a script or
// an element of raw text (title, iframe...), its content.
func (r *docReader) startTag(rest string) {
	f, doc := r.f, r.doc
	n, maybe := tagEnd(rest)
	tag := rest[:n]
	name := tagName(tag[1:])
	r.i += n
	if name == "script" {
		if attrValue(tag, "src") != "" {
			f.srcs++
		}
		end, closeAt := closing(doc, r.i, "</script")
		f.script = addSpan(doc, f.script, r.i-n, closeAt)
		r.i = end
		return
	}
	// What a hidden element holds is not what the page shows: padding a
	// challenge page with hidden markup does not make it rich.
	if r.hidden == "" && !(maybe && hides(tag)) {
		f.elements++
	}
	f.built = addSpan(doc, f.built, r.i-n, r.i)
	f.countElement(name, tag)
	if rawText(name) {
		end, closeAt := closing(doc, r.i, "</"+name)
		switch name {
		case "title":
			if f.title == "" {
				f.title = collapse(html.UnescapeString(doc[r.i:closeAt]))
			}
		case "iframe":
			f.built = addSpan(doc, f.built, r.i, closeAt)
		}
		r.i = end
		return
	}
	if void(name) || strings.HasSuffix(tag, "/>") {
		return
	}
	switch {
	case r.hidden == name:
		r.depth++
	case r.hidden == "" && maybe && hides(tag):
		r.hidden, r.depth = name, 1
	}
}

// countElement counts what element name (its start tag tag) adds to how
// much the page holds: links, stylesheets, form fields.
func (f *docFacts) countElement(name, tag string) {
	switch name {
	case "a":
		if attrValue(tag, "href") != "" {
			f.links++
		}
	case "link":
		if strings.Contains(asciiLower(attrValue(tag, "rel")), "stylesheet") {
			f.sheets++
		}
	case "input":
		switch asciiLower(attrValue(tag, "type")) {
		case "hidden", "submit", "button", "image", "reset", "checkbox", "radio":
		default:
			f.fields++
		}
	case "select", "textarea":
		f.fields++
	}
}

// span is a part of the document, doc[lo:hi].
type span struct{ lo, hi int }

// addSpan appends doc[lo:hi] to spans, joined to the last span when only a
// little white space lies between them (adjacent tags), so a run of markup
// is one span whatever its number of tags.
func addSpan(doc string, spans []span, lo, hi int) []span {
	if n := len(spans); n > 0 && lo-spans[n-1].hi <= 16 && strings.TrimSpace(doc[spans[n-1].hi:lo]) == "" {
		spans[n-1].hi = hi
		return spans
	}
	return append(spans, span{lo, hi})
}

// joined is the text of spans, one a line (for tests and messages).
func (f *docFacts) joined(spans []span) string {
	var b strings.Builder
	for _, s := range spans {
		b.WriteString(f.doc[s.lo:s.hi])
		b.WriteByte('\n')
	}
	return b.String()
}

// addText adds a run of character data to the visible text: entities
// decoded, whitespace collapsed, runes counted (past what is kept).
func (f *docFacts) addText(s string) {
	if strings.IndexByte(s, '&') >= 0 {
		s = html.UnescapeString(s)
	}
	space := f.text.Len() > 0
	for len(s) > 0 {
		r, size := utf8.DecodeRuneInString(s)
		if isSpace(r) {
			space = f.text.Len() > 0
			s = s[size:]
			continue
		}
		if f.textRunes <= wallMaxText {
			if space {
				f.text.WriteByte(' ')
			}
			f.text.WriteString(s[:size])
		}
		space = false
		f.textRunes++
		s = s[size:]
	}
	if space && f.textRunes <= wallMaxText {
		f.text.WriteByte(' ')
	}
}

func isSpace(r rune) bool {
	return r == ' ' || r == '\n' || r == '\t' || r == '\r' || r == '\f' || r == 0xa0
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// collapse joins s's words with single spaces.
func collapse(s string) string { return strings.Join(strings.Fields(s), " ") }

// countRunes counts the non-space runes of a rendered text, stopping past
// limit: a page's size is known from its first limit words.
func countRunes(s string, limit int) int {
	n := 0
	for _, r := range s {
		if !isSpace(r) {
			if n++; n > limit {
				break
			}
		}
	}
	return n
}

// tagEnd is the length of the tag at the start of s (through its '>'),
// quoted attribute values skipped, or len(s) when it does not end. maybe
// reports whether the tag says "none" or "hidden" (any case), the words
// that can hide an element: found in the same pass, since under the
// sandbox every pass over a byte is charged.
func tagEnd(s string) (n int, maybe bool) {
	var quote byte
	var window uint32 // the last four bytes, lower-cased
	const none, hidd, idde = 'n'<<24 | 'o'<<16 | 'n'<<8 | 'e', 'h'<<24 | 'i'<<16 | 'd'<<8 | 'd', 'i'<<24 | 'd'<<16 | 'd'<<8 | 'e'
	for k := 1; k < len(s); k++ {
		c := s[k]
		window = window<<8 | uint32(c|0x20)
		if window == none || window == hidd || window == idde {
			maybe = true
		}
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			// A quote opens a value only after '='.
			if s[k-1] == '=' || s[k-1] == ' ' && k > 1 && s[k-2] == '=' {
				quote = c
			}
		case c == '>':
			return k + 1, maybe
		}
	}
	return len(s), maybe
}

// tagName is the lower-cased name at the start of t (after '<' or '</').
func tagName(t string) string {
	j := 0
	for j < len(t) && (isLetter(t[j]) || j > 0 && t[j] >= '0' && t[j] <= '9' || j > 0 && t[j] == '-') {
		j++
	}
	return asciiLower(t[:j])
}

// closing finds the end tag that starts with prefix (case-insensitive, as
// "</script") at or after i: it returns the index past it and where it
// starts, or len(doc) twice.
func closing(doc string, i int, prefix string) (end, at int) {
	for i < len(doc) {
		k := strings.Index(doc[i:], "</")
		if k < 0 {
			break
		}
		i += k
		if hasPrefixFold(doc[i:], prefix) {
			n, _ := tagEnd(doc[i:])
			return i + n, i
		}
		i += 2
	}
	return len(doc), len(doc)
}

// attrValue is the value of attribute name (lower-case) in a start tag, or
// "" (also for an attribute without a value).
func attrValue(tag, name string) string {
	for k := 1; k+len(name) < len(tag); k++ {
		if !hasPrefixFold(tag[k:], name) {
			continue
		}
		if c := tag[k-1]; !(c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '/') {
			continue
		}
		v := strings.TrimLeft(tag[k+len(name):], " \t\n\r")
		if !strings.HasPrefix(v, "=") {
			continue
		}
		v = strings.TrimLeft(v[1:], " \t\n\r")
		if v == "" {
			return ""
		}
		if q := v[0]; q == '"' || q == '\'' {
			if e := strings.IndexByte(v[1:], q); e >= 0 {
				return v[1 : 1+e]
			}
			return v[1:]
		}
		e := strings.IndexAny(v, " \t\n\r>")
		if e < 0 {
			e = len(v)
		}
		return v[:e]
	}
	return ""
}

// hides reports a start tag whose element shows nothing: the hidden
// attribute, or an inline style with display: none.
func hides(tag string) bool {
	if s := attrValue(tag, "style"); s != "" {
		s = strings.ReplaceAll(asciiLower(s), " ", "")
		if strings.Contains(s, "display:none") {
			return true
		}
	}
	for k := 1; k+6 < len(tag); k++ {
		if hasPrefixFold(tag[k:], "hidden") && (tag[k-1] == ' ' || tag[k-1] == '\t' || tag[k-1] == '\n') {
			if c := tag[k+6]; c == ' ' || c == '>' || c == '/' || c == '=' || c == '\t' || c == '\n' {
				return true
			}
		}
	}
	return false
}
