package snapdiff

import (
	"fmt"
	"hash/maphash"
	"strings"
)

// CollapseMin is the fewest lines a subtree must hold to be collapsed;
// it must also print at least twice the bytes of the line that says so.
const CollapseMin = 4

// CollapseHint ends the first collapsed subtree's line: how to see them.
const CollapseHint = `; snapshot "full" prints them`

// Collapse shortens next, the snapshot of a new page, by the subtrees it
// shares with prev, the snapshot of the page before it on the same site:
// its header, navigation and footer, typically. A subtree of at least
// CollapseMin lines whose every line is the same in prev (at any depth),
// but for its refs, keeps its own line, and its children become one line
// saying how many there were (when that is at most half their bytes). The largest shared subtrees are collapsed,
// outermost first. Playwright gives each new document's refs a prefix of
// their own (an old page's refs must not reach the new one), so the
// collapsed lines' refs differ from the ones the agent read: aliases maps
// each of those (prev's) to the same element's ref in next, for the
// caller to accept in their place. It returns next unchanged, 0 and nil
// when nothing is shared.
func Collapse(prev, next string) (out string, saved int, aliases map[string]string) {
	if prev == "" || next == "" {
		return next, 0, nil
	}
	seed := maphash.MakeSeed()
	pt := parseTree(strings.Split(prev, "\n"), seed)
	at := map[uint64]int{} // a subtree's hash -> its first line in prev
	for i := range pt.nodes {
		if n := pt.nodes[i]; n.size >= CollapseMin {
			if _, ok := at[n.hash]; !ok {
				at[n.hash] = i
			}
		}
	}
	if len(at) == 0 {
		return next, 0, nil
	}
	nt := parseTree(strings.Split(next, "\n"), seed)
	var b strings.Builder
	b.Grow(len(next))
	hinted := false
	for i := 0; i < len(nt.lines); {
		n := &nt.nodes[i]
		b.WriteString(nt.lines[i])
		b.WriteByte('\n')
		pi, ok := at[n.hash]
		if n.size < CollapseMin || !ok {
			i++
			continue
		}
		hint := ""
		if !hinted {
			hint = CollapseHint
		}
		line := fmt.Sprintf("%s  - (%d lines as on the previous page; its refs work here%s)", strings.Repeat(" ", n.indent), n.size-1, hint)
		hidden := 0
		for _, l := range nt.lines[i+1 : i+n.size] {
			hidden += len(l) + 1
		}
		// Worth it only when the line is much shorter than what it hides.
		if hidden < 2*len(line) || !sameButRefs(pt.lines[pi:pi+n.size], nt.lines[i:i+n.size], &aliases) {
			i++
			continue
		}
		hinted = true
		b.WriteString(line)
		b.WriteByte('\n')
		saved += n.size - 2
		i += n.size
	}
	if saved <= 0 {
		return next, 0, nil
	}
	return strings.TrimSuffix(b.String(), "\n"), saved, aliases
}

// sameButRefs checks that old and new are the same lines but for their
// refs (the hash said so; a collision must not collapse what differs),
// and adds each old ref that differs to aliases.
func sameButRefs(old, new []string, aliases *map[string]string) bool {
	if len(old) != len(new) {
		return false
	}
	for k := range old {
		if stripRefs(strings.TrimLeft(old[k], " ")) != stripRefs(strings.TrimLeft(new[k], " ")) {
			return false
		}
	}
	for k := range old {
		o, n := refRE.FindAllStringSubmatch(old[k], -1), refRE.FindAllStringSubmatch(new[k], -1)
		for j := range min(len(o), len(n)) {
			if o[j][1] != n[j][1] {
				if *aliases == nil {
					*aliases = map[string]string{}
				}
				(*aliases)[o[j][1]] = n[j][1]
			}
		}
	}
	return true
}

// tree is a snapshot's lines as nodes: a line's children are the lines
// after it indented deeper.
type tree struct {
	lines []string
	nodes []node // one per line
}

type node struct {
	indent int
	// size is the lines of the subtree, the node's own included.
	size int
	// hash is of the subtree's text without its refs, its indentation
	// taken relative to the node's: equal subtrees at different depths
	// hash alike.
	hash uint64
}

func parseTree(lines []string, seed maphash.Seed) tree {
	t := tree{lines: lines, nodes: make([]node, len(lines))}
	for i, l := range lines {
		t.nodes[i].indent = indent(l)
	}
	// From the last line up, so a node's children are done before it:
	// its subtree is the lines after it indented deeper, its hash its
	// text then its children's hashes in order.
	var w [8]byte
	for i := len(lines) - 1; i >= 0; i-- {
		n := &t.nodes[i]
		var h maphash.Hash
		h.SetSeed(seed)
		h.WriteString(stripRefs(strings.TrimLeft(lines[i], " ")))
		n.size = 1
		// Each child's subtree is counted already: jump over it.
		for j := i + 1; j < len(lines) && t.nodes[j].indent > n.indent; j += t.nodes[j].size {
			for k := range w {
				w[k] = byte(t.nodes[j].hash >> (8 * k))
			}
			h.WriteByte(1)
			h.Write(w[:])
			n.size += t.nodes[j].size
		}
		n.hash = h.Sum64()
	}
	return t
}

// stripRefs is l with each "[ref=...]" as "[ref]".
func stripRefs(l string) string {
	if !strings.Contains(l, "[ref=") {
		return l
	}
	return refRE.ReplaceAllString(l, "[ref]")
}
