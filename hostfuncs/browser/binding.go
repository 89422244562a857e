package browser

import (
	"context"
	"fmt"
	"strings"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/weborigin"
)

// Aim is one element a call will act on, as the host reads it from the
// call's arguments before judging it: a ref, a viewport point (the element
// under it receives a click, a drag's end), or the focused element (where
// a key press without a ref goes). Part says what it is to the call
// ("drop target", "field 2"), "" for the one element of most calls.
type Aim struct {
	Part    string
	Ref     string
	X, Y    *float64
	Focused bool
}

// Binding is what an approval was asked for: the page, and each element
// that receives the act (its frame's origin, what it shows, and a handle
// on the very node). The host asks with it, passes it to the call
// (hostfuncs.CallerInfo.Bound), and the acting host functions check it
// right before they act (stillJudged): a page that swapped, renamed,
// moved or covered the element meanwhile is refused, not acted on. An
// origin grant covers the call by the same facts: the frame that holds
// each element, never the top page around it.
//
// The check and the act are two round trips: a ref's act lands on the
// node the ref names (the same node the check compared), but a click by
// x/y lands on whatever is under the point when it runs, so a page that
// swaps the element in the few milliseconds between is not caught. An
// element is compared by node, frame origin, role, name and text, never
// by a value typed into it.
type Binding struct {
	// PageOrigin is the top page's origin (weborigin spelling, "" when
	// opaque), URL the page's, for the question (and PageTitle).
	PageOrigin, URL string
	// Targets describe the receivers, in the order of the Aims.
	Targets []TargetInfo

	tab   *tab
	aims  []Aim
	nodes []boundNode
}

// boundNode is one receiver as bound: the node and its facts.
type boundNode struct {
	h     pw.ElementHandle
	facts nodeFacts
}

// nodeFacts is what an approval names of an element and compares at act
// time. Never a value typed or filled: the text of a control that holds
// one (input, select) is not read.
type nodeFacts struct {
	Origin, Role, Name, Text, Tag string
	// Secret: a field the page marks for a password (secretFieldFn): an
	// approval shows the text to be typed into it masked.
	Secret bool
}

func (f nodeFacts) String() string {
	s := strings.TrimSpace(f.Role + " " + quote(f.Name))
	if f.Text != "" && f.Text != f.Name {
		s += " showing " + quote(f.Text)
	}
	return s + " in a frame of " + orNull(f.Origin)
}

func quote(s string) string {
	if s == "" {
		return ""
	}
	return fmt.Sprintf("%q", s)
}

func orNull(o string) string {
	if o == "" {
		return "null (an opaque origin)"
	}
	return o
}

// nodeFactsJS reads an element's facts in its own frame. Not its origin:
// a page can replace self.origin, so the origin is the frame's, as the
// browser reports it (frameOrigin). The name is the label a person reads beside
// the control (aria-label, title, alt, placeholder, its <label>); the text
// what it shows, never a form control's value.
const nodeFactsJS = `e => {
	const secretField = ` + secretFieldFn + `;
	const clean = s => (s || "").replace(/\s+/g, " ").trim().slice(0, 200);
	const tag = e.tagName.toLowerCase();
	const type = (e.getAttribute("type") || "").toLowerCase();
	const labelled = e.getAttribute("aria-labelledby");
	let name = e.getAttribute("aria-label") || (labelled && labelled.split(/\s+/).map(id => { const l = e.ownerDocument.getElementById(id); return l ? l.textContent : ""; }).join(" "))
		|| (e.labels && e.labels.length ? e.labels[0].textContent : "") || e.getAttribute("title") || e.getAttribute("alt") || e.getAttribute("placeholder") || "";
	const control = tag === "input" || tag === "select" || tag === "textarea";
	let text = "";
	if (tag === "input" && ["button", "submit", "reset"].includes(type)) text = e.value;
	else if (!control && tag !== "body" && tag !== "html") text = e.innerText ?? e.textContent;
	const implicit = {a: e.hasAttribute("href") ? "link" : "generic", button: "button", select: "combobox", textarea: "textbox", body: "page", html: "page", img: "img",
		input: ({checkbox: "checkbox", radio: "radio", button: "button", submit: "button", reset: "button", file: "button", range: "slider"})[type] || "textbox"};
	return {role: e.getAttribute("role") || implicit[tag] || tag, name: clean(name), text: clean(text), tag, secret: secretField(e)};
}`

// nameless are the roles not named by their content: a field is named by
// its label (its content is a value), the page and a generic box by none.
var nameless = map[string]bool{"textbox": true, "combobox": true, "page": true, "generic": true, "slider": true}

// bindWait bounds resolving and checking the receivers: an approval must
// not wait on a stuck page to be asked, and an act fails closed when the
// element cannot be read in time.
const bindWait = 3 * time.Second

// Bind resolves aims on the session's current tab (each to its node and
// the frame that holds it) and records them for an approval. With no
// session or tab it returns nil: the call has nothing to act on and fails
// on its own. An aim that cannot be resolved (a stale ref, no element at
// the point) is an error to the agent: nobody is asked about an element
// that is not there. Release it when the call ends.
func (s *Service) Bind(ctx context.Context, personality, session string, aims []Aim) (*Binding, error) {
	s.sessions.mu.Lock()
	ss := s.sessions.byKey[key(personality, session)]
	s.sessions.mu.Unlock()
	if ss == nil {
		return nil, nil
	}
	if err := s.sessions.lockSession(ctx, ss); err != nil {
		return nil, err
	}
	defer ss.mu.Unlock()
	t := ss.current()
	if t == nil {
		return nil, nil
	}
	// The question describes the page: only a document judged clean
	// (gate.go). A withheld one answers its failure; one not judged yet
	// (the page loaded another since the agent's snapshot) is judged by
	// the agent's next read, not by a question.
	switch st, e := t.document().verdict(); st {
	case docWithheld:
		return nil, e
	case docUnjudged:
		return nil, abi.Errorf(abi.CodeRefused, "the page loaded a new document since it was last judged, so nothing can be asked about it yet: take a snapshot (the page is judged then) and call again with its refs")
	}
	b := &Binding{tab: t, aims: aims, URL: t.page.URL(), PageOrigin: pageOriginOf(t.page.URL())}
	for _, a := range aims {
		n, err := resolveAim(t, a)
		if err != nil {
			b.Release()
			return nil, err
		}
		b.nodes = append(b.nodes, n)
		info := TargetInfo{Part: a.Part, Role: n.facts.Role, Name: n.facts.Name, Text: n.facts.Text, Origin: n.facts.Origin, Secret: n.facts.Secret}
		if r, err := normRef(a.Ref); err == nil && a.Ref != "" {
			info.Ref = r
			// The snapshot's role and accessible name are what the agent
			// saw; the live facts stay for the check.
			if role, name := roleAndName(t.refLines[r]); role != "" {
				info.Role, info.Name = role, name
			}
		}
		b.Targets = append(b.Targets, info)
	}
	return b, nil
}

// PageTitle is the page's title for the question, read when asking (a
// call a grant covers never waits for it); "" when the page does not say
// in time.
func (b *Binding) PageTitle() string {
	var title string
	if bounded(targetWait, func() (err error) { title, err = b.tab.page.Title(); return err }) != nil {
		return ""
	}
	return title
}

// Origins are the receivers' frame origins, each once, "" for an opaque
// one; the page's origin when the call names no element.
func (b *Binding) Origins() []string {
	if len(b.nodes) == 0 {
		return []string{b.PageOrigin}
	}
	var out []string
	for _, n := range b.nodes {
		if !containsStr(out, n.facts.Origin) {
			out = append(out, n.facts.Origin)
		}
	}
	return out
}

func containsStr(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Release lets go of the bound nodes (the call ended).
func (b *Binding) Release() {
	if b == nil {
		return
	}
	for _, n := range b.nodes {
		go n.h.Dispose() // the page may be stuck or gone: nobody waits on it
	}
	b.nodes = nil
}

// pageOriginOf is weborigin.Of with "" for an opaque origin.
func pageOriginOf(u string) string {
	if o := weborigin.Of(u); o != weborigin.Opaque {
		return o
	}
	return ""
}

// check refuses an act on t unless everything the approval was asked for
// still holds: the same tab and page origin, and each receiver the same
// node, in a frame of the same origin, showing the same role, name and
// text. The acting host functions call it (stillJudged) right before they
// act; what changed is named, and nothing was done.
func (b *Binding) check(t *tab) error {
	if err := b.checkPage(t); err != nil {
		return err
	}
	for i, a := range b.aims {
		if i >= len(b.nodes) {
			return abi.Errorf(abi.CodeRefused, "the element this call was approved for was released; nothing was done: call again")
		}
		if err := b.nodes[i].still(t, a); err != nil {
			return err
		}
	}
	return nil
}

// checkPage is check's first half: the same tab, on the same origin.
func (b *Binding) checkPage(t *tab) error {
	if b.tab != t {
		return abi.Errorf(abi.CodeRefused, "the current tab changed after this call was judged for approval; nothing was done. Take a new snapshot and call again: it will be judged for the tab it is on now")
	}
	if now := pageOriginOf(t.page.URL()); now != b.PageOrigin {
		return abi.Errorf(abi.CodeRefused, "the page moved from %s to %s after this call was judged for approval; nothing was done on the new page. Take a new snapshot and call again: it will be judged for the page it is on now", orNullShort(b.PageOrigin), orNullShort(now))
	}
	return nil
}

func orNullShort(o string) string {
	if o == "" {
		return "null"
	}
	return o
}

// still checks that aim resolves to the bound node with the same facts,
// in one round trip once the node is found.
func (n boundNode) still(t *tab, a Aim) error {
	what := "the element"
	if a.Part != "" {
		what = "the " + a.Part
	}
	changed := func(how string) error {
		return abi.Errorf(abi.CodeRefused, "%s changed after this call was judged for approval (%s); nothing was done. Take a new snapshot and call again: it will be asked about the element as it is now", what, how)
	}
	h, f, err := resolveNode(t, a)
	if err != nil {
		return changed("it can no longer be found: " + abi.AsError(err).Message)
	}
	defer func() { go h.Dispose() }()
	origin := frameOrigin(f)
	var v any
	err = bounded(bindWait, func() (err error) {
		v, err = h.Evaluate(`(e, old) => ({facts: (`+nodeFactsJS+`)(e), same: e === old})`, n.h)
		return err
	})
	m, _ := v.(map[string]any)
	if err != nil || m == nil {
		// A node in another frame than the bound one cannot be compared
		// with it: read its facts alone, to say what is there now.
		now, ferr := readFacts(h, origin)
		if ferr != nil {
			return changed("it could not be read in time")
		}
		if now != n.facts {
			return changed(fmt.Sprintf("it was %s, now %s", n.facts, now))
		}
		return changed("another node took its place")
	}
	fm, _ := m["facts"].(map[string]any)
	if now := factsOf(fm, origin); now != n.facts {
		return changed(fmt.Sprintf("it was %s, now %s", n.facts, now))
	}
	if m["same"] != true {
		return changed("another node took its place")
	}
	return nil
}

// resolveAim finds the node a receives on t, with its facts.
func resolveAim(t *tab, a Aim) (boundNode, error) {
	h, fr, err := resolveNode(t, a)
	if err != nil {
		return boundNode{}, err
	}
	f, err := readFacts(h, frameOrigin(fr))
	if err != nil {
		go h.Dispose()
		return boundNode{}, abi.Errorf(abi.CodeRefused, "the element this call acts on could not be read in time to judge it (%v): take a new snapshot and call again", err)
	}
	return boundNode{h: h, facts: f}, nil
}

// resolveNode finds the node a receives on t, and the frame it is in.
func resolveNode(t *tab, a Aim) (pw.ElementHandle, pw.Frame, error) {
	switch {
	case a.Ref != "":
		h, err := refNode(t, a.Ref)
		if err != nil {
			return nil, nil, err
		}
		var f pw.Frame
		if err := bounded(bindWait, func() (err error) { f, err = h.OwnerFrame(); return err }); err != nil || f == nil {
			go h.Dispose()
			return nil, nil, abi.Errorf(abi.CodeRefused, "the frame of %s could not be told in time to judge the act: take a new snapshot and call again", a.Ref)
		}
		return h, f, nil
	case a.X != nil && a.Y != nil:
		return nodeAt(t.page.MainFrame(), *a.X, *a.Y)
	}
	return focusedNode(t.page.MainFrame())
}

// frameOrigin is the origin of the document in f, from the URL the
// browser reports for it (weborigin spelling, "" when opaque): a frame
// on about:blank or about:srcdoc has its parent's origin.
func frameOrigin(f pw.Frame) string {
	for f != nil && strings.HasPrefix(f.URL(), "about:") && f.ParentFrame() != nil {
		f = f.ParentFrame()
	}
	if f == nil {
		return ""
	}
	return pageOriginOf(f.URL())
}

// readFacts reads h's facts (nodeFactsJS); origin is its frame's.
func readFacts(h pw.ElementHandle, origin string) (nodeFacts, error) {
	var v any
	if err := bounded(bindWait, func() (err error) { v, err = h.Evaluate(nodeFactsJS); return err }); err != nil {
		return nodeFacts{}, err
	}
	m, _ := v.(map[string]any)
	return factsOf(m, origin), nil
}

// factsOf is nodeFactsJS's answer as nodeFacts, in a frame of origin.
func factsOf(m map[string]any, origin string) nodeFacts {
	str := func(k string) string { s, _ := m[k].(string); return s }
	secret, _ := m["secret"].(bool)
	f := nodeFacts{Origin: origin, Role: cut(str("role"), 40), Name: str("name"), Text: str("text"), Tag: str("tag"), Secret: secret}
	if f.Name == "" && !nameless[f.Role] {
		// A button, link or the like is named by what it shows, as the
		// accessibility tree names it.
		f.Name = f.Text
	}
	return f
}

// refNode is the node of ref in t's latest snapshot.
func refNode(t *tab, ref string) (pw.ElementHandle, error) {
	r, err := normRef(ref)
	if err != nil {
		return nil, err
	}
	if !t.refs[r] {
		return nil, abi.Errorf(abi.CodeStaleRef, "ref %s is not in the latest snapshot of this tab: take a new snapshot (browser_snapshot) and use its refs", r)
	}
	var h pw.ElementHandle
	if err := bounded(bindWait, func() (err error) {
		h, err = t.page.GetByRef(r).ElementHandle(pw.LocatorElementHandleOptions{Timeout: pw.Float(float64(bindWait.Milliseconds()) / 2)})
		return err
	}); err != nil {
		return nil, abi.Errorf(abi.CodeStaleRef, "ref %s is no longer on the page (the page changed or navigated since the snapshot): take a new snapshot and use its refs", r)
	}
	return h, nil
}

// frameDepth bounds following frames into frames.
const frameDepth = 8

// nodeAt is the element a click at viewport point (x, y) lands on, and
// its frame: the topmost under the point, followed into the frame it is
// when it is an iframe (the point moved into that frame's viewport).
func nodeAt(f pw.Frame, x, y float64) (pw.ElementHandle, pw.Frame, error) {
	return intoFrames(f, x, y, `([x, y]) => document.elementFromPoint(x, y)`, true,
		abi.Errorf(abi.CodeRefused, "no element is at (%.0f, %.0f) to act on (the point is outside the page, or the page did not answer): take a screenshot and pick a point on an element", x, y),
		abi.Errorf(abi.CodeRefused, "the point (%.0f, %.0f) is inside frames nested too deep to judge: act on an element by its ref", x, y))
}

// focusedNode is the element a key press goes to: the focused element,
// followed into the frame that holds the focus.
func focusedNode(f pw.Frame) (pw.ElementHandle, pw.Frame, error) {
	return intoFrames(f, 0, 0, `() => document.activeElement || document.body || document.documentElement`, false,
		abi.Errorf(abi.CodeRefused, "the page did not say which element has the focus in time to judge the key press: take a new snapshot and press on a ref"),
		abi.Errorf(abi.CodeRefused, "the focus is inside frames nested too deep to judge: press on an element by its ref"))
}

// intoFrames finds the element js names in f (given the point x, y when
// atPoint) and, while that element is an iframe, the one js names in the
// frame it shows (the point moved into that frame's viewport), at most
// frameDepth frames deep. lost is the error when the page names none,
// deep when the frames go deeper.
func intoFrames(f pw.Frame, x, y float64, js string, atPoint bool, lost, deep *abi.Error) (pw.ElementHandle, pw.Frame, error) {
	for range frameDepth {
		var h pw.JSHandle
		if err := bounded(bindWait, func() (err error) {
			if atPoint {
				h, err = f.EvaluateHandle(js, []float64{x, y})
			} else {
				h, err = f.EvaluateHandle(js)
			}
			return err
		}); err != nil || h == nil || h.AsElement() == nil {
			return nil, nil, lost
		}
		e := h.AsElement()
		inner, ox, oy, err := innerFrame(e)
		if err != nil {
			go e.Dispose()
			return nil, nil, err
		}
		if inner == nil {
			return e, f, nil
		}
		go e.Dispose()
		f, x, y = inner, x-ox, y-oy
	}
	return nil, nil, deep
}

// innerFrame is the frame e shows when it is an iframe or frame (nil
// otherwise), and where that frame's viewport starts in e's.
func innerFrame(e pw.ElementHandle) (pw.Frame, float64, float64, error) {
	var v any
	if err := bounded(bindWait, func() (err error) {
		v, err = e.Evaluate(`e => { if (!(e instanceof HTMLIFrameElement || e instanceof HTMLFrameElement)) return null;
			const r = e.getBoundingClientRect(), s = getComputedStyle(e);
			return [r.left + e.clientLeft + parseFloat(s.paddingLeft || 0), r.top + e.clientTop + parseFloat(s.paddingTop || 0)]; }`)
		return err
	}); err != nil {
		return nil, 0, 0, abi.Errorf(abi.CodeRefused, "the page did not answer in time to judge what the act lands on: take a new snapshot and call again")
	}
	off, ok := v.([]any)
	if !ok || len(off) != 2 {
		return nil, 0, 0, nil
	}
	var f pw.Frame
	if err := bounded(bindWait, func() (err error) { f, err = e.ContentFrame(); return err }); err != nil || f == nil {
		// A frame whose document cannot be reached is not judged as its
		// parent's: fail closed.
		return nil, 0, 0, abi.Errorf(abi.CodeRefused, "the act lands in a frame whose page could not be reached to judge it: wait for the frame to load, take a new snapshot and call again")
	}
	return f, num(off[0]), num(off[1]), nil
}

func num(v any) float64 {
	switch x := v.(type) {
	case float64:
		return x
	case int:
		return float64(x)
	}
	return 0
}
