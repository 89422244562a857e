package main

import (
	"html"
	"net/url"
	"strings"
)

// Extract finds <a href> elements in src and returns them with their text,
// whitespace collapsed and tags stripped. It is a tolerant scanner, not a
// full HTML parser: it handles quoted and unquoted attributes, nested tags
// inside links, entities and comments, which is what real pages need.
func Extract(src, base string) []Link {
	var baseURL *url.URL
	if base != "" {
		baseURL, _ = url.Parse(base)
	}
	var out []Link
	lower := strings.ToLower(src)
	i := 0
	for {
		j := strings.Index(lower[i:], "<a")
		if j < 0 {
			break
		}
		start := i + j
		end := strings.IndexByte(lower[start:], '>')
		if end < 0 {
			break
		}
		tagEnd := start + end
		// <abbr>, <area>, <article>... are not links.
		if c := lower[start+2]; c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '>' && c != '/' {
			i = start + 2
			continue
		}
		href, ok := attr(src[start+2:tagEnd], "href")
		closeIdx := strings.Index(lower[tagEnd:], "</a")
		var inner string
		if closeIdx < 0 {
			inner = src[tagEnd+1:]
			i = len(src)
		} else {
			inner = src[tagEnd+1 : tagEnd+closeIdx]
			i = tagEnd + closeIdx + 3
		}
		if !ok {
			continue
		}
		href = html.UnescapeString(href)
		if baseURL != nil {
			if u, err := baseURL.Parse(href); err == nil {
				href = u.String()
			}
		}
		out = append(out, Link{Href: href, Text: text(inner)})
		if i >= len(src) {
			break
		}
	}
	return out
}

func attr(tag, name string) (string, bool) {
	l := strings.ToLower(tag)
	for k := 0; k < len(l); {
		idx := strings.Index(l[k:], name)
		if idx < 0 {
			return "", false
		}
		p := k + idx
		k = p + len(name)
		if p > 0 && !isSpace(l[p-1]) {
			continue
		}
		q := k
		for q < len(l) && isSpace(l[q]) {
			q++
		}
		if q >= len(l) || l[q] != '=' {
			continue
		}
		q++
		for q < len(l) && isSpace(l[q]) {
			q++
		}
		if q >= len(l) {
			return "", true
		}
		switch tag[q] {
		case '"', '\'':
			e := strings.IndexByte(tag[q+1:], tag[q])
			if e < 0 {
				return tag[q+1:], true
			}
			return tag[q+1 : q+1+e], true
		default:
			e := q
			for e < len(tag) && !isSpace(tag[e]) && tag[e] != '>' {
				e++
			}
			return tag[q:e], true
		}
	}
	return "", false
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }

// text strips tags and comments, decodes entities and collapses whitespace.
func text(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case strings.HasPrefix(s[i:], "<!--"):
			e := strings.Index(s[i+4:], "-->")
			if e < 0 {
				i = len(s)
			} else {
				i += 4 + e + 3
			}
		case s[i] == '<':
			e := strings.IndexByte(s[i:], '>')
			if e < 0 {
				i = len(s)
			} else {
				i += e + 1
			}
			b.WriteByte(' ')
		default:
			e := strings.IndexByte(s[i:], '<')
			if e < 0 {
				e = len(s) - i
			}
			b.WriteString(s[i : i+e])
			i += e
		}
	}
	return strings.Join(strings.Fields(html.UnescapeString(b.String())), " ")
}
