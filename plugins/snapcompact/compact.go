package main

import (
	"strconv"
	"strings"
)

// The output format, a thrifty dialect of Playwright's:
//
//	- navigation:
//	  - link "News" [ref=e24]
//	  - textbox "Search" [ref=e72] [placeholder="Search the site"]
//	## A heading (the number of # is its level)
//	A paragraph's text, joined from its text nodes, on one bare line.
//	- row: Name | Price | Stock
//	- list:
//	  - link "Item 1" [ref=e30]
//	  … 40 more items: browser_snapshot ref=e28
//
// Lines starting "- " are elements: role, "accessible name", states and,
// for what an agent can act on, [ref=...]. Bare lines are text. Wrappers that
// carry no meaning (unnamed generic, group, listitem, paragraph, inline
// formatting) disappear and their content moves up, unless they take input
// ([cursor=pointer], a mark such as [draggable], an item inside a pointer
// element: they keep their ref); link URLs go; text that only repeats an
// element's name goes.

// interactive roles keep their ref, role and name; so do plain elements an
// agent can act on (compactor.actionable).
var interactive = map[string]bool{
	"link": true, "button": true, "textbox": true, "checkbox": true, "radio": true,
	"combobox": true, "listbox": true, "menuitem": true, "menuitemcheckbox": true,
	"menuitemradio": true, "tab": true, "option": true, "slider": true, "searchbox": true,
	"switch": true, "spinbutton": true, "treeitem": true, "scrollbar": true,
}

// kept roles are structure that means something to an agent: landmarks,
// dialogs, tables, menus. They keep their line (without ref) and indent their
// content.
var kept = map[string]bool{
	"banner": true, "navigation": true, "main": true, "contentinfo": true, "complementary": true,
	"search": true, "form": true, "dialog": true, "alertdialog": true, "alert": true,
	"article": true, "region": true, "table": true, "grid": true, "treegrid": true, "tree": true,
	"tablist": true, "tabpanel": true, "menu": true, "menubar": true, "toolbar": true,
	"iframe": true, "status": true, "log": true, "marquee": true, "timer": true, "tooltip": true,
	"radiogroup": true, "math": true, "feed": true,
}

// inline roles are text-level: their text joins the surrounding text.
var inline = map[string]bool{
	"generic": true, "strong": true, "emphasis": true, "code": true, "superscript": true,
	"subscript": true, "insertion": true, "deletion": true, "mark": true, "time": true,
	"none": true, "presentation": true, "abbr": true, "LabelText": true, "text": true,
}

// dropped roles carry nothing worth a token.
var dropped = map[string]bool{"separator": true}

var cellRoles = map[string]bool{"cell": true, "gridcell": true, "columnheader": true, "rowheader": true}

// options tune folding.
type options struct {
	// scopeRef is the ref of a scoped snapshot's root (HookRequest.Args
	// {"ref": ...}): its children are never folded, so unfolding shows them.
	scopeRef string
	// A run of at least foldMin consecutive near-identical siblings keeps
	// its first foldKeep and folds the rest into one line.
	foldMin, foldKeep int
	indent            string
	// links keeps every link's URL as [url=...]; linkFilter, when set,
	// makes the output only the links whose URL or name contains it
	// (case-insensitive), with their URLs.
	links      bool
	linkFilter string
}

var defaultOptions = options{foldMin: 30, foldKeep: 10, indent: "  "}

// out is one output line with the lines nested under it.
type out struct {
	head   string // for an element: `role "name" [ref=e1]`; for text: the text
	text   bool   // a bare text line
	inline bool   // text that joins adjacent inline text
	value  string // inline value after ": " of an element line
	kids   []*out
	role   string
	inter  bool // holds an interactive element
}

// compactSnapshot rewrites a Playwright ai-mode snapshot.
func compactSnapshot(s string, o options) string {
	c := &compactor{o: o}
	var top []*out
	roots := parse(s)
	if o.linkFilter != "" {
		return matchingLinks(roots, o.linkFilter)
	}
	scoped := false
	if o.scopeRef != "" {
		for _, r := range roots {
			if r.ref == o.scopeRef {
				scoped = true
			}
		}
	}
	top = c.children(roots, nil, o.scopeRef != "" && !scoped)
	var b strings.Builder
	write(&b, top, 0, o.indent)
	return strings.TrimSuffix(b.String(), "\n")
}

type compactor struct {
	o options
	// inPointer counts the plain (non-interactive) [cursor=pointer]
	// elements being rendered around the current node.
	inPointer int
}

// marks are what the browser service adds to a snapshot line for an
// element that takes input without a role saying so: a drag source, a drop
// target, an element with a click or hover handler of its own, a plain
// element a keyboard may reach (tabindex).
var marks = map[string]bool{"draggable": true, "droppable": true, "clickable": true, "hoverable": true, "focusable": true}

// actionable reports whether a node that is no control by its role is one
// an agent can act on, so it keeps its ref: it has [cursor=pointer] or a
// mark, or it is an item of a plain clickable element (a hover menu's
// entries under a pointer container: Playwright marks only the outermost
// pointer element).
func (c *compactor) actionable(n *node) bool {
	if n.ref == "" {
		return false
	}
	if n.pointer {
		return true
	}
	for _, a := range n.attrs {
		if marks[a] {
			return true
		}
	}
	return c.inPointer > 0 && ownTextLeaf(n)
}

// ownTextLeaf: an element with text of its own and no elements inside.
func ownTextLeaf(n *node) bool {
	text := n.hasText && clean(n.text) != ""
	for _, k := range n.children {
		if !k.isText {
			return false
		}
		text = text || clean(k.text) != ""
	}
	return text
}

func clean(s string) string {
	if !strings.ContainsAny(s, "\n\r\t  ") {
		return strings.TrimSpace(s)
	}
	return strings.Join(strings.Fields(s), " ")
}

func quote(s string) string { return strconv.Quote(s) }

// children renders a node's children, folding long runs of near-identical
// siblings unless noFold, and joining adjacent inline text.
func (c *compactor) children(kids []*node, parent *node, noFold bool) []*out {
	rendered := make([][]*out, len(kids))
	sigs := make([]string, len(kids))
	for i, k := range kids {
		rendered[i] = c.node(k)
		sigs[i] = signature(k, rendered[i])
	}
	var res []*out
	canFold := !noFold && parent != nil && parent.ref != "" && c.o.foldMin > 0
	for i := 0; i < len(kids); {
		j := i + 1
		for j < len(kids) && sigs[j] == sigs[i] {
			j++
		}
		run := j - i
		if canFold && run >= c.o.foldMin && sigs[i] != "" {
			for k := i; k < i+c.o.foldKeep; k++ {
				res = append(res, rendered[k]...)
			}
			hidden := run - c.o.foldKeep
			res = append(res, &out{text: true, head: "… " + strconv.Itoa(hidden) + " more items: browser_snapshot ref=" + parent.ref})
		} else {
			for k := i; k < j; k++ {
				res = append(res, rendered[k]...)
			}
		}
		i = j
	}
	return joinInline(res)
}

// signature says which siblings are near-identical: same role and the same
// shape of rendered content. Text-only siblings never fold (text is what
// an agent reads).
func signature(n *node, r []*out) string {
	if len(r) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString(n.role)
	inter := false
	for _, o := range r {
		b.WriteByte('|')
		if o.text {
			b.WriteString("#")
		} else {
			b.WriteString(o.role)
		}
		inter = inter || o.inter
		for _, k := range o.kids {
			b.WriteByte(',')
			b.WriteString(k.role)
			inter = inter || k.inter
		}
	}
	if !inter {
		return ""
	}
	return b.String()
}

func joinInline(in []*out) []*out {
	var res []*out
	for _, o := range in {
		if o.text && o.inline && len(res) > 0 {
			last := res[len(res)-1]
			if last.text && last.inline {
				last.head = joinText(last.head, o.head)
				continue
			}
		}
		res = append(res, o)
	}
	return res
}

func joinText(a, b string) string {
	if a == "" {
		return b
	}
	if b == "" {
		return a
	}
	return a + " " + b
}

func (c *compactor) node(n *node) []*out {
	if n.raw != "" {
		return []*out{{text: true, head: clean(n.raw)}}
	}
	if n.isText {
		t := clean(n.text)
		if t == "" {
			return nil
		}
		return []*out{{text: true, inline: true, head: t}}
	}
	if dropped[n.role] {
		return nil
	}
	name := clean(n.name)
	isScope := c.o.scopeRef != "" && n.ref == c.o.scopeRef
	switch {
	case interactive[n.role] || c.actionable(n) || isScope:
		return []*out{c.element(n, name, true, isScope)}
	case n.role == "heading":
		return c.heading(n, name)
	case n.role == "row":
		return c.row(n)
	case kept[n.role] || (name != "" && !cellRoles[n.role] && n.role != "listitem" && n.role != "paragraph"):
		o := c.element(n, name, false, false)
		if len(o.kids) == 0 && o.value == "" && name == "" && !o.inter {
			return nil
		}
		return []*out{o}
	}
	// Transparent: the content moves up.
	kids := c.children(n.children, n, false)
	if n.hasText {
		if t := clean(n.text); t != "" {
			kids = append([]*out{{text: true, inline: true, head: t}}, kids...)
		}
	}
	if name != "" {
		// A named wrapper (a cell whose name is its text): the name is
		// the text, said once.
		kids = append([]*out{{text: true, inline: true, head: name}}, dedupe(kids, name)...)
	}
	if !inline[n.role] {
		// A block (paragraph, listitem, cell...): its text stays apart from
		// its siblings'.
		kids = joinInline(kids)
		for _, k := range kids {
			k.inline = false
		}
	}
	return kids
}

// element renders a node as a "- role ..." line.
func (c *compactor) element(n *node, name string, act, isScope bool) *out {
	var b strings.Builder
	b.WriteString(n.role)
	if name != "" {
		b.WriteByte(' ')
		b.WriteString(quote(name))
	}
	for _, a := range n.attrs {
		if strings.HasPrefix(a, "level=") && n.role != "heading" || marks[a] && interactive[n.role] {
			continue // a control's role already says it takes input
		}
		b.WriteString(" [")
		b.WriteString(a)
		b.WriteByte(']')
	}
	if act && n.ref != "" {
		b.WriteString(" [ref=")
		b.WriteString(n.ref)
		b.WriteByte(']')
		if n.pointer && !interactive[n.role] && !isScope {
			b.WriteString(" [cursor=pointer]")
		}
	}
	if c.o.links && n.url != "" {
		b.WriteString(" [url=")
		b.WriteString(n.url)
		b.WriteByte(']')
	}
	if n.hasPlace {
		if p := clean(n.place); p != "" && !strings.EqualFold(p, name) {
			b.WriteString(" [placeholder=")
			b.WriteString(quote(p))
			b.WriteByte(']')
		}
	}
	o := &out{head: b.String(), role: n.role, inter: act && interactive[n.role]}
	if n.hasText {
		if t := clean(n.text); t != "" && !strings.Contains(name, t) {
			o.value = t
		}
	}
	plainPointer := n.pointer && !interactive[n.role]
	if plainPointer {
		c.inPointer++
	}
	kids := c.children(n.children, n, isScope)
	if plainPointer {
		c.inPointer--
	}
	kids = dedupe(kids, name)
	for _, k := range kids {
		k.inline = false
		o.inter = o.inter || k.inter
	}
	// One leaf child goes on the same line: `- link [ref=e7]: img "Logo"`.
	if o.value == "" && len(kids) == 1 && len(kids[0].kids) == 0 && kids[0].value == "" {
		k := kids[0]
		if k.text {
			o.value = k.head
		} else if !k.inter {
			o.value = k.head
		} else {
			o.kids = kids
		}
	} else {
		o.kids = kids
	}
	return o
}

// matchingLinks lists the links whose URL or name contains filter
// (case-insensitive), one line each with ref and URL, in page order.
func matchingLinks(roots []*node, filter string) string {
	f := strings.ToLower(filter)
	var b strings.Builder
	var walk func([]*node)
	walk = func(ns []*node) {
		for _, n := range ns {
			if n.role == "link" && n.url != "" && (strings.Contains(strings.ToLower(n.url), f) || strings.Contains(strings.ToLower(linkText(n)), f)) {
				b.WriteString("- link")
				if t := linkText(n); t != "" {
					b.WriteString(" " + quote(t))
				}
				if n.ref != "" {
					b.WriteString(" [ref=" + n.ref + "]")
				}
				b.WriteString(" [url=" + n.url + "]\n")
			}
			walk(n.children)
		}
	}
	walk(roots)
	if b.Len() == 0 {
		return "No link's URL or name contains " + quote(filter) + "."
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// linkText is a link's accessible name, or else the names and text
// inside it.
func linkText(n *node) string {
	if name := clean(n.name); name != "" {
		return name
	}
	var parts []string
	var walk func(*node)
	walk = func(n *node) {
		parts = append(parts, n.name)
		if n.hasText {
			parts = append(parts, n.text)
		}
		for _, k := range n.children {
			walk(k)
		}
	}
	walk(n)
	return clean(strings.Join(parts, " "))
}

// dedupe drops text and non-interactive leaves that only repeat name.
func dedupe(kids []*out, name string) []*out {
	if name == "" {
		return kids
	}
	res := kids[:0]
	for _, k := range kids {
		if len(k.kids) == 0 && !k.inter && k.value == "" {
			if k.text && strings.Contains(name, k.head) {
				continue
			}
			if !k.text {
				if kn := leafName(k.head); kn != "" && strings.Contains(name, kn) {
					continue
				}
			}
		}
		res = append(res, k)
	}
	return res
}

// leafName is the quoted name of a rendered element line.
func leafName(head string) string {
	i := strings.IndexByte(head, '"')
	if i < 0 {
		return ""
	}
	s, err := strconv.QuotedPrefix(head[i:])
	if err != nil {
		return ""
	}
	u, _ := strconv.Unquote(s)
	return u
}

func (c *compactor) heading(n *node, name string) []*out {
	level := 2
	for _, a := range n.attrs {
		if strings.HasPrefix(a, "level=") {
			if v, err := strconv.Atoi(a[6:]); err == nil && v >= 1 && v <= 6 {
				level = v
			}
		}
	}
	kids := c.children(n.children, n, false)
	if n.hasText {
		if t := clean(n.text); t != "" {
			kids = append([]*out{{text: true, head: t}}, kids...)
		}
	}
	kids = joinInline(kids)
	kids = dedupe(kids, name)
	marks := strings.Repeat("#", level) + " "
	if name == "" && len(kids) > 0 && kids[0].text {
		name, kids = kids[0].head, kids[1:]
	}
	if name == "" && len(kids) == 0 {
		return nil
	}
	inter := false
	for _, k := range kids {
		k.inline = false
		inter = inter || k.inter
	}
	// A heading that is a link: `## link "Title" [ref=e5]`.
	if len(kids) == 1 && !kids[0].text && len(kids[0].kids) == 0 && kids[0].value == "" && (name == "" || leafName(kids[0].head) == name) {
		return []*out{{text: true, head: marks + "- " + kids[0].head, role: "heading", inter: inter}}
	}
	if name == "" {
		return kids
	}
	return []*out{{text: true, head: marks + name, kids: kids, role: "heading", inter: inter}}
}

// row renders a table row; a row of plain cells goes on one line.
func (c *compactor) row(n *node) []*out {
	var cells []string
	simple := true
	var all []*out
	for _, k := range n.children {
		r := c.node(k)
		all = append(all, r...)
		switch {
		case len(r) == 0:
			cells = append(cells, "")
		case len(r) == 1 && r[0].text && len(r[0].kids) == 0 && !r[0].inter:
			cells = append(cells, r[0].head)
		default:
			simple = false
		}
	}
	if len(all) == 0 {
		return nil
	}
	if simple {
		return []*out{{head: "row", role: "row", value: strings.Join(cells, " | ")}}
	}
	o := &out{head: "row", role: "row"}
	for _, k := range joinInline(all) {
		k.inline = false
		o.inter = o.inter || k.inter
		o.kids = append(o.kids, k)
	}
	return []*out{o}
}

func write(b *strings.Builder, outs []*out, depth int, ind string) {
	for _, o := range outs {
		for i := 0; i < depth; i++ {
			b.WriteString(ind)
		}
		if o.text {
			t := o.head
			if needsQuoting(t) {
				t = quote(t)
			}
			b.WriteString(t)
		} else {
			b.WriteString("- ")
			b.WriteString(o.head)
			if o.value != "" {
				b.WriteString(": ")
				b.WriteString(o.value)
			} else if len(o.kids) > 0 {
				b.WriteByte(':')
			}
		}
		b.WriteByte('\n')
		write(b, o.kids, depth+1, ind)
	}
}

// needsQuoting: a bare text line that would read as an element line.
func needsQuoting(t string) bool {
	return strings.HasPrefix(t, "- ") || t == "-" || strings.HasPrefix(t, "\"")
}
