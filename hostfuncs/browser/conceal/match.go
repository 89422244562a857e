package conceal

import (
	"net/url"
	"sort"
	"strings"

	"github.com/wasmwright/wasmwright/internal/secretforms"
)

// Matching: which elements of a frame's text show a secret value, in any
// of the forms a page can show it in.

// secretMatcher finds the session's values in page text. It matches
// loosely, as a reader of the capture would see them: ignoring case (a
// page may show an address in other case, or style it uppercase), with any
// run of white space as one space (source line breaks, &nbsp;), and, for
// values with no space, with white space removed (a code shown "493 817").
// Hiding too much is harmless; missing a value is not.
type secretMatcher struct {
	forms    []string // collapsed forms, longest first
	stripped []string // forms of values without white space
}

func newSecretMatcher(values []string) *secretMatcher {
	seen := map[string]bool{}
	m := &secretMatcher{}
	for _, v := range values {
		for _, f := range VisibleForms(v) {
			f = collapse(f)
			if len(f) < 2 || seen[f] {
				continue
			}
			seen[f] = true
			m.forms = append(m.forms, f)
			if !strings.Contains(f, " ") {
				m.stripped = append(m.stripped, f)
			}
		}
	}
	longest := func(fs []string) {
		sort.Slice(fs, func(i, j int) bool { return len(fs[i]) > len(fs[j]) })
	}
	longest(m.forms)
	longest(m.stripped)
	return m
}

func isSpace(r rune) bool {
	switch r {
	case ' ', '\t', '\n', '\r', '\f', '\v', 0xA0, 0x2007, 0x202F, 0x200B:
		return true
	}
	return false
}

// normText builds a root's text in two normal forms: lower case with white
// space collapsed, and lower case with white space removed. Each piece
// written is recorded as a span of each, so a match maps back to the
// elements showing it.
type normText struct {
	col, str     strings.Builder
	colSp, strSp []span
	lastSpace    bool
}

type span struct{ from, to, el int }

func (n *normText) add(text string, el int) {
	c0, s0 := n.col.Len(), n.str.Len()
	for _, r := range strings.ToLower(text) {
		if isSpace(r) {
			if !n.lastSpace {
				n.col.WriteByte(' ')
			}
			n.lastSpace = true
			continue
		}
		n.lastSpace = false
		n.col.WriteRune(r)
		n.str.WriteRune(r)
	}
	n.colSp = append(n.colSp, span{c0, n.col.Len(), el})
	n.strSp = append(n.strSp, span{s0, n.str.Len(), el})
}

// boundary ends the collapsed text there: no match runs across it.
func (n *normText) boundary() {
	n.col.WriteByte(0)
	n.lastSpace = true
}

// collapse lowers s and turns each run of white space into one space.
func collapse(s string) string {
	var n normText
	n.add(s, 0)
	return n.col.String()
}

// find marks the elements of every span overlapping a match of any form.
func find(text string, spans []span, forms []string, hide map[int]bool) {
	for _, f := range forms {
		for off := 0; ; {
			i := strings.Index(text[off:], f)
			if i < 0 {
				break
			}
			from, to := off+i, off+i+len(f)
			// The spans are in text order: find the first that ends after
			// from, then take all that start before to.
			k := sort.Search(len(spans), func(k int) bool { return spans[k].to > from })
			for ; k < len(spans) && spans[k].from < to; k++ {
				hide[spans[k].el] = true
			}
			off = from + 1
		}
	}
}

// VisibleForms are the ways a page can show v as text: as is, as the text
// its bytes become when read in the wrong charset, and URL-encoded (a page
// printing its own address) from its UTF-8 or any legacy-charset bytes,
// with upper- or lower-case hex and a space as + or %20 (case is ignored
// when matching).
func VisibleForms(v string) []string {
	out := []string{v}
	out = append(out, secretforms.Misdecoded(v)...)
	byteForms := append([][]byte{[]byte(v)}, secretforms.Charsets(v)...)
	for _, b := range byteForms {
		q := url.QueryEscape(string(b))
		if q == v {
			continue
		}
		out = append(out, q, strings.ReplaceAll(q, "+", "%20"))
	}
	return out
}

// match returns the elements of fs to hide: the owners of every text node
// and the fields overlapping a match of any form (the text nodes and field
// values of one root are matched as one text, so a value split over
// elements, or over one-digit code fields, is found), and every password
// field holding a value. shownOnly keeps only the items still rendered
// (the check after hiding).
func (m *secretMatcher) match(fs *frameScan, shownOnly bool) []int {
	hide := map[int]bool{}
	roots := map[int]*normText{}
	for _, it := range fs.items {
		if shownOnly && !it.shown {
			continue
		}
		if it.kind == 2 {
			hide[it.el] = true
			continue
		}
		n := roots[it.root]
		if n == nil {
			n = &normText{lastSpace: true}
			roots[it.root] = n
		}
		if it.kind == 1 {
			// A field is a box of its own: in the collapsed text it joins
			// neither the text before it nor after it; in the text without
			// white space it does, so a code in one box per digit reads on.
			n.boundary()
			n.add(it.text, it.el)
			n.boundary()
			continue
		}
		n.add(it.text, it.el)
	}
	for _, n := range roots {
		find(n.col.String(), n.colSp, m.forms, hide)
		find(n.str.String(), n.strSp, m.stripped, hide)
	}
	delete(hide, -1)
	out := make([]int, 0, len(hide))
	for el := range hide {
		out = append(out, el)
	}
	sort.Ints(out)
	return out
}
