package main

import (
	"net/url"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// skipped elements contribute no text at all.
var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Svg: true, atom.Math: true, atom.Nav: true, atom.Header: true, atom.Footer: true,
	atom.Aside: true, atom.Iframe: true, atom.Object: true, atom.Canvas: true,
	atom.Select: true, atom.Button: true, atom.Form: true, atom.Dialog: true,
	atom.Head: true,
}

// blocks start a new line.
var blocks = map[atom.Atom]bool{
	atom.P: true, atom.Div: true, atom.Section: true, atom.Article: true, atom.Main: true,
	atom.Br: true, atom.Tr: true, atom.Table: true, atom.Blockquote: true, atom.Pre: true,
	atom.Ul: true, atom.Ol: true, atom.Dl: true, atom.Dt: true, atom.Dd: true, atom.Figure: true,
	atom.Figcaption: true, atom.Hr: true, atom.Address: true, atom.Details: true, atom.Summary: true,
	atom.Caption: true, atom.Li: true,
	atom.H1: true, atom.H2: true, atom.H3: true, atom.H4: true, atom.H5: true, atom.H6: true,
}

var headings = map[atom.Atom]int{atom.H1: 1, atom.H2: 2, atom.H3: 3, atom.H4: 4, atom.H5: 5, atom.H6: 6}

// Readable returns a document's title and its readable text: headings as
// "# ...", list items as "- ...", links as "[text](url)" resolved against
// base, paragraphs separated by blank lines.
func Readable(doc, base string) (title, text string) {
	baseURL, _ := url.Parse(base)
	z := html.NewTokenizer(strings.NewReader(doc))
	r := &extractor{base: baseURL}
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		name, hasAttr := z.TagName()
		a := atom.Lookup(name)
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			r.startTag(z, tt, a, hasAttr)
		case html.EndTagToken:
			r.endTag(a)
		case html.TextToken:
			r.text(string(z.Text()))
		}
	}
	r.flush(false)
	return r.title, strings.TrimSpace(collapseBlank(r.out.String()))
}

// extractor is Readable's state while it walks the tokens.
type extractor struct {
	base     *url.URL
	title    string
	out      strings.Builder // the finished lines
	line     strings.Builder // the line being written
	skip     []atom.Atom     // open skipped elements
	inTitle  bool
	inPre    int
	linkHref []string
	linkText []int // start offset of the link's text in line
}

// flush ends the line (followed by a blank line when blank), dropping it
// when it is empty, and forgets the open links.
func (r *extractor) flush(blank bool) {
	s := strings.TrimSpace(r.line.String())
	r.line.Reset()
	r.linkHref, r.linkText = nil, nil
	if s != "" {
		r.out.WriteString(s)
		r.out.WriteString("\n")
		if blank {
			r.out.WriteString("\n")
		}
	}
}

// write adds text to the line, its runs of white space made one space
// (kept as they are inside <pre>).
func (r *extractor) write(s string) {
	if r.inPre > 0 {
		r.line.WriteString(s)
		return
	}
	f := strings.Fields(s)
	if len(f) == 0 {
		if s != "" && r.line.Len() > 0 && !strings.HasSuffix(r.line.String(), " ") {
			r.line.WriteString(" ")
		}
		return
	}
	lead := s[0] == ' ' || s[0] == '\n' || s[0] == '\t' || s[0] == '\r'
	if lead && r.line.Len() > 0 && !strings.HasSuffix(r.line.String(), " ") {
		r.line.WriteString(" ")
	}
	r.line.WriteString(strings.Join(f, " "))
	last := s[len(s)-1]
	if last == ' ' || last == '\n' || last == '\t' || last == '\r' {
		r.line.WriteString(" ")
	}
}

// startTag handles an opening (or self-closing) tag a, whose attributes
// z still holds when hasAttr.
func (r *extractor) startTag(z *html.Tokenizer, tt html.TokenType, a atom.Atom, hasAttr bool) {
	if a == atom.Title && len(r.skip) <= 1 {
		r.inTitle = tt == html.StartTagToken
		return
	}
	if len(r.skip) > 0 {
		if skipped[a] && tt == html.StartTagToken && !voidish(a) {
			r.skip = append(r.skip, a)
		}
		return
	}
	if skipped[a] {
		if tt == html.StartTagToken {
			r.skip = append(r.skip, a)
		}
		return
	}
	if blocks[a] {
		r.flush(a != atom.Li && a != atom.Br && a != atom.Tr && a != atom.Dt && a != atom.Dd)
	}
	if n, ok := headings[a]; ok {
		r.line.WriteString(strings.Repeat("#", n) + " ")
	}
	switch a {
	case atom.Li:
		r.line.WriteString("- ")
	case atom.Pre:
		r.inPre++
	case atom.Td, atom.Th:
		r.write(" | ")
	case atom.Img:
		for hasAttr {
			var k, v []byte
			k, v, hasAttr = z.TagAttr()
			if string(k) == "alt" && strings.TrimSpace(string(v)) != "" {
				r.write(" [image: " + strings.TrimSpace(string(v)) + "] ")
			}
		}
	case atom.A:
		href := ""
		for hasAttr {
			var k, v []byte
			k, v, hasAttr = z.TagAttr()
			if string(k) == "href" {
				href = strings.TrimSpace(string(v))
			}
		}
		r.linkHref = append(r.linkHref, resolve(r.base, href))
		r.linkText = append(r.linkText, r.line.Len())
	}
}

// endTag handles a closing tag a.
func (r *extractor) endTag(a atom.Atom) {
	if a == atom.Title {
		r.inTitle = false
		return
	}
	if len(r.skip) > 0 {
		if r.skip[len(r.skip)-1] == a {
			r.skip = r.skip[:len(r.skip)-1]
		}
		return
	}
	switch {
	case a == atom.A && len(r.linkHref) > 0:
		r.closeLink()
	case a == atom.Pre:
		if r.inPre > 0 {
			r.inPre--
		}
		r.flush(true)
	case blocks[a]:
		_, h := headings[a]
		r.flush(h || a == atom.P || a == atom.Blockquote || a == atom.Table || a == atom.Ul || a == atom.Ol)
	}
}

// closeLink rewrites the innermost open link's text on the line as
// [label](href), unless it has no label, no href or a javascript: one.
func (r *extractor) closeLink() {
	href := r.linkHref[len(r.linkHref)-1]
	start := r.linkText[len(r.linkText)-1]
	r.linkHref, r.linkText = r.linkHref[:len(r.linkHref)-1], r.linkText[:len(r.linkText)-1]
	cur := r.line.String()
	if start > len(cur) {
		start = len(cur)
	}
	label := strings.TrimSpace(cur[start:])
	if href == "" || label == "" || strings.HasPrefix(href, "javascript:") {
		return
	}
	trail := ""
	if strings.HasSuffix(cur, " ") {
		trail = " "
	}
	r.line.Reset()
	r.line.WriteString(cur[:start])
	if start > 0 && !strings.HasSuffix(cur[:start], " ") && cur[start] == ' ' {
		r.line.WriteString(" ")
	}
	r.line.WriteString("[" + label + "](" + href + ")" + trail)
}

// text handles a text token: the title's first text, else the line's,
// unless inside a skipped element.
func (r *extractor) text(s string) {
	if r.inTitle {
		if r.title == "" {
			r.title = strings.Join(strings.Fields(s), " ")
		}
		return
	}
	if len(r.skip) > 0 {
		return
	}
	r.write(s)
}

// voidish elements never have an end tag.
func voidish(a atom.Atom) bool {
	return a == atom.Img || a == atom.Br || a == atom.Input || a == atom.Hr
}

func resolve(base *url.URL, href string) string {
	if href == "" || strings.HasPrefix(href, "#") {
		return ""
	}
	u, err := url.Parse(href)
	if err != nil {
		return ""
	}
	if base != nil {
		u = base.ResolveReference(u)
	}
	return u.String()
}

func collapseBlank(s string) string {
	for strings.Contains(s, "\n\n\n") {
		s = strings.ReplaceAll(s, "\n\n\n", "\n\n")
	}
	return s
}
