package browser

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
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

// secretValues are the values the caller's session must not show.
func (s *concealer) secretValues(personality, session string) []string {
	if s.opts.SecretValues == nil {
		return nil
	}
	return s.opts.SecretValues(personality, key(personality, session).session)
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

// concealer keeps what a session must not show out of its results: the
// values typed into password inputs, by the agent (keepSecret) or by an
// operator (operatorTyped, settleTyped), go to the masker, and snapshots
// show them as masked (redact).
type concealer struct {
	*env

	typingMu sync.Mutex
	typing   map[sessKey]*operatorTyping
}

// keepSecret hands a value typed or filled into a password field to the
// masker (Options.OnSecret), under the caller's session.
func (s *concealer) keepSecret(c *hostfuncs.Caller, value string) {
	s.keep(c.Personality(), c.Session(), value)
}

// redact replaces the value of every secret field (secretFieldFn: a
// password input, or one the page marks as one, or one a "show password"
// button turned into text) in a snapshot: Playwright prints a filled
// password as the textbox's value. Each textbox
// line that carries a value is checked, all at once (a round trip per
// field, one after another, cost a form-heavy page tens of milliseconds);
// when a check fails the value is redacted anyway. A field in known (by
// ref: plain or not, learned from an earlier snapshot of the same
// document with nothing changed since but focus and values) is not asked
// again. It returns the snapshot redacted and what is known after it:
// known and every field it asked with an answer. Lines are scanned by
// hand (a regexp over a large snapshot cost tens of milliseconds);
// textboxValue is the same rule.
func (s *concealer) redact(t *tab, snap string, known map[string]bool) (string, map[string]bool) {
	fields := valueLines(snap)
	if len(fields) == 0 {
		return snap, known
	}
	// A page that stops answering must not cost a second per textbox: past
	// the deadline every remaining value is redacted without asking.
	deadline := time.Now().Add(s.cfg.actionWait())
	plain := make([]bool, len(fields))
	answered := make([]bool, len(fields))
	var wg sync.WaitGroup
	slots := make(chan struct{}, 16)
	for i, f := range fields {
		if p, ok := known[f.ref]; ok {
			plain[i] = p
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			if !time.Now().Before(deadline) {
				return
			}
			secretChecks.Add(1)
			v, err := t.page.GetByRef(f.ref).Locator(changeEngine + "=secret").TextContent(
				pw.LocatorTextContentOptions{Timeout: pw.Float(1000)})
			answered[i] = err == nil && (v == "plain" || v == "secret")
			plain[i] = answered[i] && v == "plain"
		}()
	}
	wg.Wait()
	// known is shared with the kept snapshot it came from: what was
	// learned goes into a copy.
	learned := known
	for i, f := range fields {
		if !answered[i] {
			continue
		}
		if len(learned) == len(known) {
			learned = make(map[string]bool, len(known)+1)
			maps.Copy(learned, known)
		}
		learned[f.ref] = plain[i]
	}
	var b strings.Builder
	last := 0 // snap[:last] is written to b
	for i, f := range fields {
		if plain[i] {
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(snap))
		}
		b.WriteString(snap[last:f.start])
		b.WriteString(f.head)
		b.WriteString(": " + abi.RedactedValue)
		last = f.end
	}
	if last == 0 {
		return snap, learned
	}
	b.WriteString(snap[last:])
	return b.String(), learned
}

// valueLine is a line of a snapshot that shows a textbox's value:
// snap[start:end], head the line up to the value, ref the field's.
type valueLine struct {
	start, end int
	head, ref  string
}

// valueLines finds the lines of snap that show a textbox's value: the
// textbox's own line, or a "- text:" child of a textbox with children (its
// value when the field also shows a placeholder).
func valueLines(snap string) []valueLine {
	if !strings.Contains(snap, "- textbox") {
		return nil
	}
	var fields []valueLine
	// open is the textbox whose children follow, and openIndent its line's
	// indent.
	open, openIndent := "", 0
	for pos := 0; pos < len(snap); {
		end := strings.IndexByte(snap[pos:], '\n')
		if end < 0 {
			end = len(snap)
		} else {
			end += pos
		}
		line := snap[pos:end]
		indent := len(line) - len(strings.TrimLeft(line, " "))
		if open != "" && indent <= openIndent {
			open = ""
		}
		if head, ref, ok := textboxLine(line); ok {
			fields = append(fields, valueLine{pos, end, head, ref})
		} else if ref, ok := textboxParent(line); ok {
			open, openIndent = ref, indent
		} else if open != "" && strings.HasPrefix(line[indent:], "- text: ") {
			fields = append(fields, valueLine{pos, end, line[:indent+len("- text")], open})
		}
		pos = end + 1
	}
	return fields
}

// secretChecks counts the fields redact asked the page about, for tests.
var secretChecks atomic.Int64

// textboxParent matches a textbox line with a ref and children ("- textbox
// "Name" [ref=e5]:"), whose value, if any, is a child line of its own.
func textboxParent(line string) (ref string, ok bool) {
	rest := strings.TrimSpace(line)
	if !strings.HasPrefix(rest, "- textbox") || !strings.HasSuffix(rest, ":") {
		return "", false
	}
	if after := rest[len("- textbox"):]; after != "" && isWordByte(after[0]) {
		return "", false
	}
	// The last [ref=...]: marks may follow it ("[ref=e5] [focusable]:").
	for i := strings.LastIndex(rest, "[ref="); i >= 0; i = strings.LastIndex(rest[:i], "[ref=") {
		if r, n := refAt(rest[i+len("[ref="):]); n > 0 && strings.HasPrefix(rest[i+len("[ref=")+n:], "]") {
			return r, true
		}
	}
	return "", false
}

// textboxLine matches one snapshot line against textboxValue: a textbox
// with a ref and a value. head is the line up to the value's ": ".
func textboxLine(line string) (head, ref string, ok bool) {
	rest := strings.TrimLeft(line, " \t\f\v\r")
	if !strings.HasPrefix(rest, "- textbox") {
		return "", "", false
	}
	if after := rest[len("- textbox"):]; after != "" && isWordByte(after[0]) {
		return "", "", false
	}
	// The regexp's greedy prefix takes the last [ref=...] that is followed
	// by a colon-free stretch, ": " and at least one character.
	for i := strings.LastIndex(line, "[ref="); i >= 0; i = strings.LastIndex(line[:i], "[ref=") {
		r, n := refAt(line[i+len("[ref="):])
		if n == 0 {
			continue
		}
		tail := line[i+len("[ref=")+n:]
		if !strings.HasPrefix(tail, "]") {
			continue
		}
		tail = tail[1:]
		c := strings.IndexByte(tail, ':')
		if c < 0 || !strings.HasPrefix(tail[c:], ": ") || len(tail) <= c+2 {
			continue
		}
		return line[:len(line)-len(tail)+c], r, true
	}
	return "", "", false
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// Secret fields. A value typed into a field the page marks as a password
// is a session secret, whoever types it: the agent (typeText, typeAt,
// fillForm) or an operator in the live view (operator.input). The rule and
// the search for the focused field are shared by both.

// secretFieldFn is the rule: an input of type password; one the page marks
// for a password or a one-time code (autocomplete); or a text input named
// for a password (password, passwd, passcode, pwd, pw), which is what a
// "show password" button leaves behind when it turns the type to text (the
// name and id stay).
const secretFieldFn = `function secretField(e) {
	if (!e || e.tagName !== "INPUT") return false;
	const type = String(e.type).toLowerCase();
	if (type === "password") return true;
	const ac = String(e.getAttribute("autocomplete") || "").toLowerCase().split(/\s+/);
	if (ac.includes("current-password") || ac.includes("new-password") || ac.includes("one-time-code")) return true;
	return type === "text" && /pass(word|wd|code)|pwd|(^|[\s_.\-\[])pw($|[\s_.\-\]])/i.test(String(e.name) + " " + String(e.id));
}`

// operatorTyping is what the concealer keeps of an operator's typing in a
// session: the secret field being typed into, with its value so far, and
// the fields seen as secret (so one a "show password" button turned into
// plain text stays secret).
type operatorTyping struct {
	field  *typedField
	secret map[fieldID]bool
}

// fieldID names a field: its frame and its key in the frame.
type fieldID struct {
	frame pw.Frame
	key   string
}

// typedField is a secret field an operator is typing into, and its value
// after the latest keystroke.
type typedField struct {
	id    fieldID
	value string
}

// keep hands value to the masker (Options.OnSecret) as a secret of
// personality's session.
func (s *concealer) keep(personality, session, value string) {
	if value != "" && s.opts.OnSecret != nil {
		s.opts.OnSecret(personality, key(personality, session).session, value)
	}
}

// operatorTyped records what the operator's latest input left in the
// focused element of k's session. A human types a password one key at a
// time, so the value is held until the typing ends (settleTyped) rather
// than kept at each key: every prefix would become a secret, and a two-
// letter prefix masked everywhere shreds every result. Typing moving to
// another field ends the typing in the last one.
func (s *concealer) operatorTyped(k sessKey, f focusedField) {
	s.typingMu.Lock()
	defer s.typingMu.Unlock()
	st := s.typing[k]
	if st == nil {
		st = &operatorTyping{secret: map[fieldID]bool{}}
		s.typing[k] = st
	}
	id := fieldID{f.frame, f.Key}
	if f.Secret {
		st.remember(id)
	}
	if st.field != nil && st.field.id != id {
		s.keep(k.personality, k.session, st.field.value)
		st.field = nil
	}
	if f.Field && st.secret[id] {
		st.field = &typedField{id: id, value: f.Value}
	}
}

// operatorFocused notes that the operator's input focused f (a click): a
// secret field is remembered as one before a "show password" button turns
// it into plain text.
func (s *concealer) operatorFocused(k sessKey, f focusedField) {
	if !f.Field || !f.Secret {
		return
	}
	s.typingMu.Lock()
	defer s.typingMu.Unlock()
	st := s.typing[k]
	if st == nil {
		st = &operatorTyping{secret: map[fieldID]bool{}}
		s.typing[k] = st
	}
	st.remember(fieldID{f.frame, f.Key})
}

// maxSecretFields bounds the secret fields remembered per session.
const maxSecretFields = 256

// remember marks id as a secret field. Past the bound the oldest
// memories go (all at once): a page with that many password fields is no
// login form, and a field forgotten is still secret while its type is.
func (st *operatorTyping) remember(id fieldID) {
	if len(st.secret) >= maxSecretFields && !st.secret[id] {
		clear(st.secret)
	}
	st.secret[id] = true
}

// settleTyped ends the operator's typing in k's session: the value of the
// secret field typed into becomes a session secret. It runs before
// anything the typing could reach leaves the service: before and after
// every host function call of the session, before an operator input that
// can submit or leave the field (a click, Enter, a navigation), when the
// human hands the session back, and before the session closes.
func (s *concealer) settleTyped(k sessKey) {
	s.typingMu.Lock()
	st := s.typing[k]
	var v string
	if st != nil && st.field != nil {
		v, st.field = st.field.value, nil
	}
	s.typingMu.Unlock()
	s.keep(k.personality, k.session, v)
}

// forgetTyped drops what was kept of k's session's typing (it closed);
// a value still held (typed since settleTyped) becomes a secret first.
func (s *concealer) forgetTyped(k sessKey) {
	s.typingMu.Lock()
	st := s.typing[k]
	delete(s.typing, k)
	s.typingMu.Unlock()
	if st != nil && st.field != nil {
		s.keep(k.personality, k.session, st.field.value)
	}
}
