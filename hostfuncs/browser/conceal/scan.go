package conceal

import (
	"encoding/json"
	"fmt"

	pw "github.com/mxschmitt/playwright-go"
)

// Reading a frame: the text each text node and field value shows, with
// whether it is rendered, and the scripts that hide and restore elements.

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
