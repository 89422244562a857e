package main

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// node is one line of a Playwright ARIA snapshot (ai mode) with its
// children. The grammar, from Playwright's renderAriaSnapshotAsYaml:
//
//   - role "name" [checked] [level=2] [ref=e5] [cursor=pointer]: inline text
//   - /url: https://...
//   - /placeholder: Search
//   - text: a text node
//
// The key (everything before ": ") is single-quoted YAML when it needs
// quoting (” escapes '), the name inside it is JSON, values are
// double-quoted YAML when they need quoting.
type node struct {
	role     string
	name     string
	hasName  bool
	attrs    []string // [level=2], [checked]... without ref and cursor, in order
	ref      string
	pointer  bool // [cursor=pointer]
	text     string
	hasText  bool // an inline value after ": "
	url      string
	place    string
	hasPlace bool
	children []*node
	isText   bool   // "- text: ..."
	raw      string // an unparseable line, kept as is
}

// parse reads a snapshot into its top-level nodes. It never fails: a line
// it cannot read is kept verbatim as raw text.
func parse(s string) []*node {
	root := &node{}
	type frame struct {
		indent int
		n      *node
	}
	stack := []frame{{-1, root}}
	for len(s) > 0 {
		var line string
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			line, s = s[:i], s[i+1:]
		} else {
			line, s = s, ""
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		ind := 0
		for ind < len(line) && line[ind] == ' ' {
			ind++
		}
		n := parseLine(line[ind:])
		for len(stack) > 1 && stack[len(stack)-1].indent >= ind {
			stack = stack[:len(stack)-1]
		}
		parent := stack[len(stack)-1].n
		switch {
		case n.role == "/url":
			parent.url = n.text
			continue
		case n.role == "/placeholder":
			parent.place, parent.hasPlace = n.text, true
			continue
		case strings.HasPrefix(n.role, "/"):
			// Another property: keep it as an attribute of its parent.
			parent.attrs = append(parent.attrs, n.role[1:]+"="+n.text)
			continue
		}
		parent.children = append(parent.children, n)
		stack = append(stack, frame{ind, n})
	}
	return root.children
}

func parseLine(l string) *node {
	if !strings.HasPrefix(l, "- ") {
		return &node{raw: l, isText: true, text: l}
	}
	key, val, hasVal := splitEntry(l[2:])
	if hasVal {
		val = unquoteValue(val)
	}
	if key == "text" {
		return &node{isText: true, text: val, hasText: true}
	}
	n := &node{}
	if strings.HasPrefix(key, "/") {
		n.role, n.text, n.hasText = key, val, hasVal
		return n
	}
	parseKey(n, key)
	n.text, n.hasText = val, hasVal
	return n
}

// splitEntry splits a YAML entry (after "- ") into its key and its value,
// still quoted; hasVal is false for a key alone ("key" or "key:").
func splitEntry(l string) (key, val string, hasVal bool) {
	if !strings.HasPrefix(l, "'") {
		if i := strings.Index(l, ": "); i >= 0 {
			return l[:i], l[i+2:], true
		}
		return strings.TrimSuffix(l, ":"), "", false
	}
	// A single-quoted key: '' is a quote.
	var b strings.Builder
	i := 1
	for i < len(l) {
		if l[i] == '\'' {
			if i+1 < len(l) && l[i+1] == '\'' {
				b.WriteByte('\'')
				i += 2
				continue
			}
			break
		}
		b.WriteByte(l[i])
		i++
	}
	rest := ""
	if i < len(l) {
		rest = l[i+1:]
	}
	if strings.HasPrefix(rest, ": ") {
		return b.String(), rest[2:], true
	}
	return b.String(), "", false
}

// parseKey reads a node's key into n: role "name" [ref=...]
// [cursor=pointer] [other attributes].
func parseKey(n *node, key string) {
	i := 0
	for i < len(key) && key[i] != ' ' {
		i++
	}
	n.role = key[:i]
	rest := strings.TrimLeft(key[i:], " ")
	if strings.HasPrefix(rest, "\"") {
		if name, used, ok := jsonString(rest); ok {
			n.name, n.hasName = name, true
			rest = strings.TrimLeft(rest[used:], " ")
		}
	}
	for strings.HasPrefix(rest, "[") {
		j := strings.IndexByte(rest, ']')
		if j < 0 {
			break
		}
		a := rest[1:j]
		rest = strings.TrimLeft(rest[j+1:], " ")
		switch {
		case strings.HasPrefix(a, "ref="):
			n.ref = a[4:]
		case a == "cursor=pointer":
			n.pointer = true
		default:
			n.attrs = append(n.attrs, a)
		}
	}
	if rest != "" {
		// Something we do not know: keep the whole key as the name's tail.
		n.attrs = append(n.attrs, strings.TrimSpace(rest))
	}
}

// jsonString decodes the JSON string at the start of s and returns it and
// how many bytes it took.
func jsonString(s string) (string, int, bool) {
	var b strings.Builder
	for i := 1; i < len(s); {
		c := s[i]
		switch {
		case c == '"':
			return b.String(), i + 1, true
		case c == '\\' && i+1 < len(s):
			switch e := s[i+1]; e {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'u':
				if i+6 <= len(s) {
					if v, err := strconv.ParseUint(s[i+2:i+6], 16, 32); err == nil {
						r := rune(v)
						used := 6
						if r >= 0xD800 && r < 0xDC00 && i+12 <= len(s) && s[i+6] == '\\' && s[i+7] == 'u' {
							if lo, err := strconv.ParseUint(s[i+8:i+12], 16, 32); err == nil && lo >= 0xDC00 && lo < 0xE000 {
								r = (r-0xD800)<<10 | (rune(lo) - 0xDC00) + 0x10000
								used = 12
							}
						}
						if !utf8.ValidRune(r) {
							r = utf8.RuneError
						}
						b.WriteRune(r)
						i += used
						continue
					}
				}
				b.WriteByte('u')
			default:
				b.WriteByte(e)
			}
			i += 2
		default:
			b.WriteByte(c)
			i++
		}
	}
	return "", 0, false
}

// unquoteValue reads a YAML value as Playwright writes it: plain, or
// double-quoted with \\ \" \b \f \n \r \t \xHH escapes.
func unquoteValue(v string) string {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return v
	}
	var b strings.Builder
	in := v[1 : len(v)-1]
	for i := 0; i < len(in); i++ {
		c := in[i]
		if c != '\\' || i+1 >= len(in) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := in[i]; e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'x':
			if i+2 < len(in) {
				if x, err := strconv.ParseUint(in[i+1:i+3], 16, 8); err == nil {
					b.WriteRune(rune(x))
					i += 2
					continue
				}
			}
			b.WriteByte('x')
		default:
			b.WriteByte(e)
		}
	}
	return b.String()
}
