package browser

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"sync"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/secretforms"
)

// Screenshots and PDFs are pixels: the secret masker, which works on text,
// cannot see into them. So before a capture of a session that holds secret
// values (Options.SecretValues), every element showing one is hidden in the
// page, and shown again afterwards:
//
//  1. collectJS reads, in every frame (iframes of any origin) and every
//     open shadow root, the text of each text node and the value of each
//     input and textarea, with whether it is rendered. No secret value goes
//     into the page: the page only returns what it already holds.
//  2. Go matches that text against the values and the forms they show in
//     (visibleForms), across text nodes (a value split over <b>, <span>...),
//     and picks the elements to hide: the owners of the matching text, the
//     <select> showing a matching option, every password input holding a
//     value.
//  3. hideJS gives those elements visibility:hidden !important (with
//     transitions and animations off, so the change is immediate). Hiding
//     rather than painting over boxes keeps the element's place and moves
//     with the layout, so it holds for full-page and element captures, any
//     device scale factor, and print layout.
//  4. The page is read again: a matching text still rendered (a descendant
//     that sets visibility:visible, an element the page re-rendered) is
//     hidden in a second round; if any is left, the capture is refused
//     with secret_leak. After the capture the check runs once more, and a
//     capture taken while a secret showed is discarded.
//  5. The elements' style attributes are put back as they were.
//
// A session with no secrets pays nothing: none of this runs.

// captureTextBudget bounds the text read from one frame (characters). A
// larger page is refused rather than captured unchecked.
const captureTextBudget = 8 << 20

// collectFn fills st.items from the frame's document and open shadow
// roots: [element index, root, kind, shown, text] per text node and field
// value. st.els keeps the elements, so indices stay valid across calls on
// the same state.
const collectFn = `function collect(st, max) {
	st.items = []; st.over = false;
	const id = (el) => {
		let i = st.idx.get(el);
		if (i === undefined) { i = st.els.length; st.els.push(el); st.idx.set(el, i); }
		return i;
	};
	const skip = new Set(["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE", "TITLE", "TEXTAREA"]);
	const noValue = new Set(["checkbox", "radio", "file", "hidden", "image", "range", "color"]);
	const visible = (el) => getComputedStyle(el).visibility === "visible";
	const range = document.createRange();
	let budget = max, roots = 0;
	const walk = (r) => {
		const me = roots++;
		const tw = document.createTreeWalker(r, NodeFilter.SHOW_ELEMENT | NodeFilter.SHOW_TEXT);
		const shadows = [];
		for (let n = tw.nextNode(); n; n = tw.nextNode()) {
			if (n.nodeType === 3) {
				const p = n.parentElement;
				const t = n.data;
				if (!p || skip.has(p.tagName) || !t.trim()) continue;
				// An option's text shows in its select, not in itself.
				const owner = p.closest("select") || p;
				range.selectNodeContents(n);
				const shown = (owner !== p || range.getClientRects().length > 0) && visible(owner);
				st.items.push([id(owner), me, 0, shown, t]);
				budget -= t.length;
			} else {
				const el = n;
				if (el.shadowRoot) shadows.push(el.shadowRoot);
				const tag = el.tagName;
				if ((tag === "INPUT" && !noValue.has(String(el.type).toLowerCase())) || tag === "TEXTAREA") {
					const v = String(el.value || "");
					const pass = tag === "INPUT" && String(el.type).toLowerCase() === "password";
					if (v) {
						st.items.push([id(el), me, pass ? 2 : 1, el.getClientRects().length > 0 && visible(el), v]);
						budget -= v.length;
					}
				}
			}
			if (budget < 0) { st.over = true; return; }
		}
		for (const s of shadows) { if (!st.over) walk(s); }
	};
	walk(document);
}`

const newState = `{els: [], idx: new Map(), saved: [], done: new Set(), items: [], over: false}`

// hideFn hides st.els[i] for each i in ids.
const hideFn = `function hide(st, ids) {
	for (const i of ids) {
		const el = st.els[i];
		if (!el || st.done.has(el)) continue;
		st.done.add(el);
		// Through the attribute, not el.style: Chromium writes a style
		// changed through CSSOM back to the attribute lazily, which would
		// leave style="" behind on an element that had none.
		const old = el.getAttribute("style");
		st.saved.push([el, old]);
		el.setAttribute("style", (old ? old + ";" : "") + "transition: none !important; animation: none !important; visibility: hidden !important");
	}
}`

// scanJS reads a frame without keeping anything in it: the first look,
// and the check after the capture.
const scanJS = `(max) => { const st = ` + newState + `; (` + collectFn + `)(st, max); return [st.items, st.over]; }`

// stateJS starts the state kept in the page (as a handle), walks the frame
// and hides the elements at ids of that walk.
const stateJS = `([max, ids]) => { const st = ` + newState + `; (` + collectFn + `)(st, max); (` + hideFn + `)(st, ids); return st; }`

// hideJS hides ids of st's latest walk (none for a plain re-read), walks
// the frame again and returns what it shows now.
const hideJS = `([st, ids, max]) => { (` + hideFn + `)(st, ids); (` + collectFn + `)(st, max); return [st.items, st.over]; }`

// restoreJS puts the style attributes back. Showing an element again goes
// through a style without transitions first, flushed, so a page's own
// "transition: all" does not fade it back in over seconds.
const restoreJS = `(st) => {
	const saved = st.saved.reverse();
	for (const [el, old] of saved) {
		el.setAttribute("style", (old ? old + ";" : "") + "transition: none !important");
		void getComputedStyle(el).visibility;
	}
	for (const [el, old] of saved) {
		if (old === null) el.removeAttribute("style"); else el.setAttribute("style", old);
	}
	st.saved = []; st.done = new Set();
}`

// captureItem is one text node or field value a frame returned.
type captureItem struct {
	el    int
	root  int
	kind  int // 0 text node, 1 field value, 2 password field value
	shown bool
	text  string
}

// frameScan is what one read of a frame returned.
type frameScan struct {
	items []captureItem
	over  bool
}

// decodeScan reads a [items, over] pair.
func decodeScan(v any) (*frameScan, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var raw [2]json.RawMessage
	var rows [][5]any
	if err := json.Unmarshal(b, &raw); err == nil {
		err = json.Unmarshal(raw[0], &rows)
	}
	if err != nil {
		return nil, fmt.Errorf("reading the page's text: %v", err)
	}
	fs := &frameScan{}
	json.Unmarshal(raw[1], &fs.over)
	for _, r := range rows {
		el, _ := r[0].(float64)
		root, _ := r[1].(float64)
		kind, _ := r[2].(float64)
		shown, _ := r[3].(bool)
		text, _ := r[4].(string)
		fs.items = append(fs.items, captureItem{el: int(el), root: int(root), kind: int(kind), shown: shown, text: text})
	}
	return fs, nil
}

func scanFrame(f pw.Frame) (*frameScan, error) {
	v, err := f.Evaluate(scanJS, captureTextBudget)
	if err != nil {
		return nil, err
	}
	return decodeScan(v)
}

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
		for _, f := range visibleForms(v) {
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

// visibleForms are the ways a page can show v as text: as is, as the text
// its bytes become when read in the wrong charset, and URL-encoded (a page
// printing its own address) from its UTF-8 or any legacy-charset bytes,
// with upper- or lower-case hex and a space as + or %20 (case is ignored
// when matching).
func visibleForms(v string) []string {
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

// concealment is the hidden state of one page, to restore: one state
// handle per frame where something was hidden.
type concealment struct {
	frames []pw.Frame
	states []pw.JSHandle
}

// errConceal is the refusal when a capture cannot be made without showing
// a secret.
func errConceal(what, why string) error {
	return abi.Errorf(abi.CodeSecretLeak, "the %s was not taken: this session holds credential values and %s. "+
		"Wait for the page to settle and retry, or navigate away from the page showing the credential first", what, why)
}

// conceal hides every element of p showing one of values (see the top of
// this file) and returns what to restore. On error nothing stays hidden.
// Frames are handled at once, each in its own goroutine; a frame showing
// nothing costs one read.
func conceal(p pw.Page, m *secretMatcher, what string) (*concealment, error) {
	frames := p.Frames()
	hs := make([]pw.JSHandle, len(frames))
	whys := make([]string, len(frames))
	var wg sync.WaitGroup
	for i, f := range frames {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hs[i], whys[i] = concealFrame(f, m)
		}()
	}
	wg.Wait()
	c := &concealment{}
	why := ""
	for i, h := range hs {
		if h != nil {
			c.frames, c.states = append(c.frames, frames[i]), append(c.states, h)
		}
		if why == "" {
			why = whys[i]
		}
	}
	if why != "" {
		c.restore()
		return nil, errConceal(what, why)
	}
	return c, nil
}

// concealFrame hides what f shows of the values. It returns the state to
// restore (nil when nothing was hidden), and why it failed, if it did.
func concealFrame(f pw.Frame, m *secretMatcher) (pw.JSHandle, string) {
	fs, err := scanFrame(f)
	if err != nil {
		if f.IsDetached() {
			return nil, "" // gone: it shows nothing
		}
		return nil, "a frame of the page could not be checked for them (" + cleanMsg(err.Error()) + ")"
	}
	if fs.over {
		return nil, "a frame of the page holds too much text to check for them"
	}
	ids := m.match(fs, false)
	if len(ids) == 0 {
		return nil, ""
	}
	// The state's own walk finds the same elements in the same order
	// unless the page changed in between; the re-read below catches that.
	h, err := f.EvaluateHandle(stateJS, []any{captureTextBudget, ids})
	if err != nil {
		if f.IsDetached() {
			return nil, ""
		}
		return nil, "an element showing one could not be hidden (" + cleanMsg(err.Error()) + ")"
	}
	ids = nil
	for round := 0; ; round++ {
		v, err := f.Evaluate(hideJS, []any{h, ids, captureTextBudget})
		if err != nil {
			if f.IsDetached() {
				return h, ""
			}
			return h, "an element showing one could not be hidden (" + cleanMsg(err.Error()) + ")"
		}
		fs, err := decodeScan(v)
		if err != nil {
			return h, "a frame of the page could not be checked for them (" + err.Error() + ")"
		}
		if fs.over {
			return h, "a frame of the page holds too much text to check for them"
		}
		if ids = m.match(fs, true); len(ids) == 0 {
			return h, ""
		}
		if round == 2 {
			return h, fmt.Sprintf("%d element(s) kept showing one after being hidden", len(ids))
		}
	}
}

// check reads the page again and reports whether no secret is rendered.
func (c *concealment) check(p pw.Page, m *secretMatcher) bool {
	frames := p.Frames()
	ok := make([]bool, len(frames))
	var wg sync.WaitGroup
	for i, f := range frames {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fs, err := scanFrame(f)
			if err != nil {
				ok[i] = f.IsDetached()
				return
			}
			ok[i] = !fs.over && len(m.match(fs, true)) == 0
		}()
	}
	wg.Wait()
	for _, o := range ok {
		if !o {
			return false
		}
	}
	return true
}

// restore shows the hidden elements again and lets go of the page handles.
func (c *concealment) restore() {
	if c == nil {
		return
	}
	var wg sync.WaitGroup
	for i, f := range c.frames {
		h := c.states[i]
		wg.Add(1)
		go func() {
			defer wg.Done()
			if !f.IsDetached() {
				f.Evaluate(restoreJS, h)
			}
			h.Dispose()
		}()
	}
	wg.Wait()
	c.frames, c.states = nil, nil
}

// concealed runs capture with every element showing one of values hidden,
// and checks afterwards that none showed during it. With no values it just
// runs capture.
func concealed[T any](p pw.Page, values []string, what string, capture func() (T, error)) (T, error) {
	var zero T
	if len(values) == 0 {
		return capture()
	}
	m := newSecretMatcher(values)
	c, err := conceal(p, m, what)
	if err != nil {
		return zero, err
	}
	defer c.restore()
	v, err := capture()
	if err != nil {
		return zero, err
	}
	if !c.check(p, m) {
		return zero, errConceal(what, "the page showed one of them again during the capture")
	}
	return v, nil
}

// holdsSecret returns why p may not be sent as pixels: one of its frames
// shows one of values or holds a filled password field, or could not be
// checked (fail closed). "" when it holds none.
func holdsSecret(p pw.Page, values []string) string {
	m := newSecretMatcher(values)
	for _, f := range p.Frames() {
		fs, err := scanFrame(f)
		switch {
		case err != nil && f.IsDetached():
			continue
		case err != nil:
			return "a frame could not be checked for filled secrets (" + cleanMsg(err.Error()) + ")"
		case fs.over:
			return "a frame holds too much text to check for filled secrets"
		case len(m.match(fs, false)) > 0:
			return "it holds a filled credential or password"
		}
	}
	return ""
}
