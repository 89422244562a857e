package conceal

import (
	"encoding/json"
	"strings"
	"sync"

	pw "github.com/mxschmitt/playwright-go"
)

// Closed shadow roots: no script of the page's, and none of ours in any
// world, sees into one, so the scan (every frame, every open root) never
// reads what a closed root shows: a held value a page echoes inside one
// showed in a capture. The protocol sees them: DOM.getDocument with pierce
// lists every shadow root, closed ones with their content, of the
// documents of one renderer process (the page's own and its same-process
// frames; each frame of another process has a session of its own). The
// host of each closed root whose text shows a value, or that holds a
// field (whose value the tree does not carry), gets opacity 0 !important
// in its style attribute for the capture, which no descendant can undo,
// and its style back after. It fails closed: a session that cannot be
// opened for a reason other than the frame being of its page's process,
// or a tree that cannot be read, refuses the capture.

// closedNode is DOM.Node as DOM.getDocument answers it, what of it this
// reads.
type closedNode struct {
	NodeID          int          `json:"nodeId"`
	NodeType        int          `json:"nodeType"`
	NodeName        string       `json:"nodeName"`
	NodeValue       string       `json:"nodeValue"`
	Attributes      []string     `json:"attributes"`
	Children        []closedNode `json:"children"`
	ShadowRoots     []closedNode `json:"shadowRoots"`
	ShadowRootType  string       `json:"shadowRootType"`
	ContentDocument *closedNode  `json:"contentDocument"`
}

// hiddenHost is a host hidden for a capture, and its style attribute
// before ("" with had false: none).
type hiddenHost struct {
	cdp   pw.CDPSession
	id    int
	style string
	had   bool
}

// closedHosts hides, in every process of p, the hosts of the closed roots
// that show one of m's values or hold a field; restore shows them again
// and ends the capture's hold on p's sessions (closedsessions.go); drawn
// are the frames whose renderers drew the hiding (for painted). why is
// set (and nothing left hidden) when that could not be done.
func closedHosts(p pw.Page, m *secretMatcher) (restore func(), drawn []pw.Frame, why string) {
	ps := holdSessions(p)
	var used []pw.CDPSession
	var hidden []hiddenHost
	var once sync.Once
	restore = func() {
		once.Do(func() {
			for _, h := range hidden {
				if h.had {
					h.cdp.Send("DOM.setAttributeValue", map[string]any{"nodeId": h.id, "name": "style", "value": h.style})
				} else {
					h.cdp.Send("DOM.removeAttribute", map[string]any{"nodeId": h.id, "name": "style"})
				}
			}
			for _, c := range used {
				c.Send("DOM.disable", nil)
			}
			ps.mu.Unlock()
		})
	}
	for _, target := range targetsOf(p) {
		root, cdp, skip, why := readTree(ps, p, target)
		if why != "" {
			restore()
			return func() {}, nil, why
		}
		if skip {
			continue
		}
		used = append(used, cdp)
		drew := false
		for _, host := range showingHosts(root, m) {
			style, had := attr(host.Attributes, "style")
			if _, err := cdp.Send("DOM.setAttributeValue", map[string]any{"nodeId": host.NodeID, "name": "style", "value": style + ";opacity:0 !important"}); err != nil {
				restore()
				return func() {}, nil, "an element showing one in a closed shadow root could not be hidden (" + brief(err) + ")"
			}
			hidden = append(hidden, hiddenHost{cdp, host.NodeID, style, had})
			drew = true
		}
		if drew {
			if f, ok := target.(pw.Frame); ok {
				drawn = append(drawn, f)
			} else {
				drawn = append(drawn, p.MainFrame())
			}
		}
	}
	return restore, drawn, ""
}

// closedHolds says why p may not be sent as pixels for what its closed
// shadow roots hold (Holds): a root that shows one of m's values, or holds
// a field (whose value the tree does not carry); "" for none. A tree that
// cannot be read is a reason too (fail closed).
func closedHolds(p pw.Page, m *secretMatcher) string {
	ps := holdSessions(p)
	defer ps.mu.Unlock()
	for _, target := range targetsOf(p) {
		root, cdp, skip, why := readTree(ps, p, target)
		if skip {
			continue
		}
		if why != "" {
			return "a frame could not be checked for filled secrets: " + why
		}
		cdp.Send("DOM.disable", nil)
		if len(showingHosts(root, m)) > 0 {
			return "it holds a filled credential or password, or a field, in a closed shadow root"
		}
	}
	return ""
}

// readTree reads target's pierced DOM tree on its session (the kept one;
// once more on a new one when that fails: its target may have gone, as a
// frame's does when it moves to another process). skip: the frame has no
// session of its own or is gone. why: it could not be read.
func readTree(ps *pageSessions, p pw.Page, target any) (root *closedNode, cdp pw.CDPSession, skip bool, why string) {
	for try := 0; ; try++ {
		c, none, err := ps.session(p, target, try > 0)
		if err != nil {
			return nil, nil, false, "its closed shadow roots could not be reached (" + brief(err) + ")"
		}
		if none {
			return nil, nil, true, ""
		}
		v, err := c.Send("DOM.getDocument", map[string]any{"depth": -1, "pierce": true})
		var doc struct {
			Root closedNode `json:"root"`
		}
		if err == nil {
			var b []byte
			if b, err = json.Marshal(v); err == nil {
				err = json.Unmarshal(b, &doc)
			}
		}
		if err == nil {
			return &doc.Root, c, false, ""
		}
		if f, ok := target.(pw.Frame); ok && f.IsDetached() {
			return nil, nil, true, ""
		}
		if try > 0 {
			return nil, nil, false, "its closed shadow roots could not be read (" + brief(err) + ")"
		}
	}
}

// showingHosts are the hosts under n (frames' documents included) of
// closed roots whose content shows one of m's values or holds a field.
func showingHosts(n *closedNode, m *secretMatcher) []*closedNode {
	var out []*closedNode
	var walk func(n *closedNode)
	walk = func(n *closedNode) {
		for i := range n.ShadowRoots {
			r := &n.ShadowRoots[i]
			if r.ShadowRootType == "closed" {
				var text strings.Builder
				if fields := textOf(r, &text); fields || m.shows(text.String()) {
					out = append(out, n)
				}
			}
			walk(r)
		}
		for i := range n.Children {
			walk(&n.Children[i])
		}
		if n.ContentDocument != nil {
			walk(n.ContentDocument)
		}
	}
	walk(n)
	return out
}

// textOf writes the text under n to b (each text node on a line of its
// own) and says whether n holds a field whose value the tree does not
// carry (an input, a textarea, a select, an editable element).
func textOf(n *closedNode, b *strings.Builder) (fields bool) {
	switch {
	case n.NodeType == 3:
		b.WriteString(n.NodeValue)
		b.WriteByte('\n')
	case n.NodeType == 1:
		switch strings.ToUpper(n.NodeName) {
		case "INPUT", "TEXTAREA", "SELECT":
			fields = true
		case "SCRIPT", "STYLE":
			return false
		}
		if v, ok := attr(n.Attributes, "contenteditable"); ok && v != "false" {
			fields = true
		}
	}
	for i := range n.ShadowRoots {
		fields = textOf(&n.ShadowRoots[i], b) || fields
	}
	for i := range n.Children {
		fields = textOf(&n.Children[i], b) || fields
	}
	return fields
}

// attr is the value of the attribute name in a DOM.Node's flat list.
func attr(attrs []string, name string) (string, bool) {
	for i := 0; i+1 < len(attrs); i += 2 {
		if strings.EqualFold(attrs[i], name) {
			return attrs[i+1], true
		}
	}
	return "", false
}

// shows says whether text shows one of m's values (as match finds them).
func (m *secretMatcher) shows(text string) bool {
	n := normText{lastSpace: true}
	n.add(text, 0)
	col, str := n.col.String(), n.str.String()
	for _, f := range m.forms {
		if strings.Contains(col, f) {
			return true
		}
	}
	for _, f := range m.stripped {
		if strings.Contains(str, f) {
			return true
		}
	}
	return false
}
