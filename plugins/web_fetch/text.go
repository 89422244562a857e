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
	var (
		out      strings.Builder
		line     strings.Builder
		skip     []atom.Atom // open skipped elements
		inTitle  bool
		inPre    int
		linkHref []string
		linkText []int // start offset of the link's text in line
	)
	flush := func(blank bool) {
		s := strings.TrimSpace(line.String())
		line.Reset()
		linkHref, linkText = nil, nil
		if s != "" {
			out.WriteString(s)
			out.WriteString("\n")
			if blank {
				out.WriteString("\n")
			}
		}
	}
	write := func(s string) {
		if inPre > 0 {
			line.WriteString(s)
			return
		}
		f := strings.Fields(s)
		if len(f) == 0 {
			if s != "" && line.Len() > 0 && !strings.HasSuffix(line.String(), " ") {
				line.WriteString(" ")
			}
			return
		}
		lead := s[0] == ' ' || s[0] == '\n' || s[0] == '\t' || s[0] == '\r'
		if lead && line.Len() > 0 && !strings.HasSuffix(line.String(), " ") {
			line.WriteString(" ")
		}
		line.WriteString(strings.Join(f, " "))
		last := s[len(s)-1]
		if last == ' ' || last == '\n' || last == '\t' || last == '\r' {
			line.WriteString(" ")
		}
	}
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		name, hasAttr := z.TagName()
		a := atom.Lookup(name)
		switch tt {
		case html.StartTagToken, html.SelfClosingTagToken:
			if a == atom.Title && len(skip) <= 1 {
				inTitle = tt == html.StartTagToken
				continue
			}
			if len(skip) > 0 {
				if skipped[a] && tt == html.StartTagToken && !voidish(a) {
					skip = append(skip, a)
				}
				continue
			}
			if skipped[a] {
				if tt == html.StartTagToken {
					skip = append(skip, a)
				}
				continue
			}
			if blocks[a] {
				flush(a != atom.Li && a != atom.Br && a != atom.Tr && a != atom.Dt && a != atom.Dd)
			}
			if n, ok := headings[a]; ok {
				line.WriteString(strings.Repeat("#", n) + " ")
			}
			switch a {
			case atom.Li:
				line.WriteString("- ")
			case atom.Pre:
				inPre++
			case atom.Td, atom.Th:
				write(" | ")
			case atom.Img:
				for hasAttr {
					var k, v []byte
					k, v, hasAttr = z.TagAttr()
					if string(k) == "alt" && strings.TrimSpace(string(v)) != "" {
						write(" [image: " + strings.TrimSpace(string(v)) + "] ")
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
				linkHref = append(linkHref, resolve(baseURL, href))
				linkText = append(linkText, line.Len())
			}
		case html.EndTagToken:
			if a == atom.Title {
				inTitle = false
				continue
			}
			if len(skip) > 0 {
				if skip[len(skip)-1] == a {
					skip = skip[:len(skip)-1]
				}
				continue
			}
			switch {
			case a == atom.A && len(linkHref) > 0:
				href := linkHref[len(linkHref)-1]
				start := linkText[len(linkText)-1]
				linkHref, linkText = linkHref[:len(linkHref)-1], linkText[:len(linkText)-1]
				cur := line.String()
				if start > len(cur) {
					start = len(cur)
				}
				label := strings.TrimSpace(cur[start:])
				if href != "" && label != "" && !strings.HasPrefix(href, "javascript:") {
					trail := ""
					if strings.HasSuffix(cur, " ") {
						trail = " "
					}
					line.Reset()
					line.WriteString(cur[:start])
					if start > 0 && !strings.HasSuffix(cur[:start], " ") && cur[start] == ' ' {
						line.WriteString(" ")
					}
					line.WriteString("[" + label + "](" + href + ")" + trail)
				}
			case a == atom.Pre:
				if inPre > 0 {
					inPre--
				}
				flush(true)
			case blocks[a]:
				_, h := headings[a]
				flush(h || a == atom.P || a == atom.Blockquote || a == atom.Table || a == atom.Ul || a == atom.Ol)
			}
		case html.TextToken:
			if inTitle {
				if title == "" {
					title = strings.Join(strings.Fields(string(z.Text())), " ")
				}
				continue
			}
			if len(skip) > 0 {
				continue
			}
			write(string(z.Text()))
		}
	}
	flush(false)
	return title, strings.TrimSpace(collapseBlank(out.String()))
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
