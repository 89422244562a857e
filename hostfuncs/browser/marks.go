package browser

import (
	"slices"
	"strings"
	"time"

	pw "github.com/mxschmitt/playwright-go"
)

// Marks: an ARIA snapshot says what an element is, not that it takes
// input. A plain <div> that is a drag source, a drop target or has a click
// or hover handler of its own is a "generic" like any wrapper, and a
// compactor drops it. The snapshot is taken with boxes; the page's main
// frame is asked, at the same time, for the boxes of such elements; lines
// with a matching box get marks ([draggable], [droppable], [clickable],
// [hoverable], [focusable]), and every [box=...] goes.
//
// What counts, per mark:
//   - draggable: draggable=true, aria-grabbed, and the markers of common
//     drag libraries (react-beautiful-dnd and its fork, dnd-kit, jQuery UI);
//   - droppable: ondrop/ondragover/ondragenter, aria-dropeffect, those
//     libraries' drop zones, and drop/dragover/dragenter listeners added
//     with addEventListener (listenersJS records them);
//   - clickable: onclick/onmousedown/onpointerdown and such listeners;
//   - hoverable: onmouseenter/onmouseover/onpointerenter and such
//     listeners, a CSS :hover rule that shows or moves something else
//     (".menu:hover .dropdown { display: block }"), and a title tooltip
//     on an element that is no control (a control's title is its name);
//   - focusable: tabindex >= 0 on an element that is no control, the
//     way a hand-made menu button or card says a keyboard may reach it.
//
// Delegated listeners (one on document for every card) cannot be told
// apart from the page: such a page is left to its [cursor=pointer].
//
// Playwright gives no line to two kinds of element an agent needs:
//   - an inline element whose only child is its text (a "(?)" tooltip
//     span): the pass appends an empty text node to each marked one, the
//     one change it makes to a page (no layout, no text, no markup
//     changes), so Playwright gives it a line and a ref; the snapshot is
//     then taken again (markSet.changed);
//   - a plain element wrapping a single element (a "Done" column holding
//     only its heading), or the single element of a plain wrapper (a
//     focusable span alone in its menu's box): Playwright folds the two
//     into one line. The marks of the one without a line go to the
//     other's (markSet.inner): a drop or hover on the child reaches the
//     parent, and the parent's box is the child's.

// listenersJS runs in every document before the page's scripts: it records
// which elements get drag, drop, click and hover listeners through
// addEventListener, in a WeakMap the marks pass reads (keyed by a symbol
// so no page name is taken). The listener itself is registered unchanged.
const listenersJS = `(() => {
	const key = Symbol.for("wasmwright.listeners");
	if (window[key]) return;
	const seen = new WeakMap();
	Object.defineProperty(window, key, { value: seen });
	const wanted = new Set(["drop", "dragover", "dragenter", "dragstart", "click", "mousedown", "pointerdown", "mouseenter", "mouseover", "pointerenter"]);
	const add = EventTarget.prototype.addEventListener;
	EventTarget.prototype.addEventListener = function (type, ...rest) {
		if (wanted.has(type) && this instanceof Element) {
			let s = seen.get(this);
			if (!s) seen.set(this, s = new Set());
			s.add(type);
		}
		return add.call(this, type, ...rest);
	};
})()`

// marksJS returns the main frame's marked elements: marks, box -> marks,
// each box rounded as Playwright rounds [box=...]; inner, a box -> the
// boxes its marks go to when it has no line (markSet.inner); changed, whether an inline element got
// its empty text node; frames, the iframes the snapshot taken next may
// hold (markSet.frames).
const marksJS = `() => {
	const seen = window[Symbol.for("wasmwright.listeners")];
	const on = (e, ...types) => { const s = seen && seen.get(e); return !!s && types.some(t => s.has(t)); };
	const control = "a[href],button,input,select,textarea,summary,iframe,[contenteditable=''],[contenteditable=true],[role]";
	const hovered = new Set();
	const reveals = st => ["display", "visibility", "opacity", "max-height", "height", "transform", "clip-path", "left", "top"].some(p => st.getPropertyValue(p));
	const scan = (rules, depth) => {
		for (const r of rules) {
			if (r.cssRules && !r.selectorText) { if (depth < 4) scan(r.cssRules, depth + 1); continue; }
			if (!r.selectorText || !r.selectorText.includes(":hover") || !r.style || !reveals(r.style)) continue;
			for (const part of r.selectorText.split(",")) {
				const i = part.indexOf(":hover");
				if (i < 0 || !/^[\s>+~]/.test(part.slice(i + 6))) continue; // the element's own look, not something it reveals
				const own = part.slice(0, i).replace(/:[a-z-]+(\([^)]*\))?$/i, "").trim();
				try { for (const e of document.querySelectorAll(own || "*")) { hovered.add(e); if (hovered.size > 2000) return; } } catch (_) {}
			}
		}
	};
	for (const sheet of document.styleSheets) { try { scan(sheet.cssRules, 0); } catch (_) {} }
	const drag = "[data-rbd-draggable-id],[data-rfd-draggable-id],[aria-roledescription=draggable],[aria-roledescription=sortable],.ui-draggable,[aria-grabbed]";
	const drop = "[data-rbd-droppable-id],[data-rfd-droppable-id],.ui-droppable";
	const kinds = [
		["draggable", e => e.getAttribute("draggable") === "true" || e.matches(drag) || on(e, "dragstart")],
		["droppable", e => e.ondrop || e.ondragover || e.ondragenter || (e.hasAttribute("aria-dropeffect") && e.getAttribute("aria-dropeffect") !== "none") || e.matches(drop) || on(e, "drop", "dragover", "dragenter")],
		["clickable", e => e.onclick || e.onmousedown || e.onpointerdown || on(e, "click", "mousedown", "pointerdown")],
		["hoverable", e => e.onmouseenter || e.onmouseover || e.onpointerenter || on(e, "mouseenter", "mouseover", "pointerenter") || hovered.has(e) || (e.title && !e.matches(control))],
		["focusable", e => e.hasAttribute("tabindex") && e.tabIndex >= 0 && !e.matches(control)],
	];
	const boxOf = e => { const r = e.getBoundingClientRect(); return r.width && r.height ? [r.x, r.y, r.width, r.height].map(Math.round).join(",") : ""; };
	const marks = {}, inner = {};
	let changed = false, shadow = false;
	for (const e of document.querySelectorAll("body *")) {
		if (e.shadowRoot) shadow = true;
		const m = kinds.filter(([, f]) => f(e)).map(([k]) => k);
		if (!m.length) continue;
		const box = boxOf(e);
		if (!box) continue;
		marks[box] = [...new Set([...(marks[box] || []), ...m])];
		const alone = p => p.children.length === 1 && ![...p.childNodes].some(n => n.nodeType === 3 && n.textContent.trim());
		const alt = [];
		if (alone(e)) alt.push(boxOf(e.children[0]));
		if (e.parentElement && e.parentElement !== document.body && alone(e.parentElement)) alt.push(boxOf(e.parentElement));
		const others = alt.filter(b => b && b !== box);
		if (others.length) inner[box] = others;
		if (e.childNodes.length === 1 && e.firstChild.nodeType === 3 && !e.matches(control) && getComputedStyle(e).display === "inline") {
			e.appendChild(document.createTextNode(""));
			changed = true;
		}
	}
	// frames: the indexes, among the document's iframes in document
	// order, of those that are rendered (an iframe display or visibility
	// hides is in no snapshot); null when an element this cannot place may
	// hold a frame (a frame, object or embed element, an open shadow root).
	let frames = null;
	if (!shadow && !document.querySelector("frame,object,embed")) {
		frames = [];
		const all = document.querySelectorAll("iframe");
		for (let i = 0; i < all.length; i++) {
			let shown = true;
			try { shown = all[i].checkVisibility({ visibilityProperty: true }); } catch (_) {}
			if (shown) frames.push(i);
		}
	}
	return {marks, inner, changed, frames};
}`

// watchListeners has every document of bctx record its listeners
// (listenersJS). Without it, marks are read from attributes only: a
// failure costs the marks of listeners, not the session.
func watchListeners(bctx pw.BrowserContext) {
	_ = bctx.AddInitScript(pw.Script{Content: pw.String(listenersJS)})
}

// markSet is what the marks pass found on a page.
type markSet struct {
	marks map[string][]string // box -> marks
	// inner: box -> where its marks go when Playwright gave the element no
	// line: the box of the only element inside it, then of the element
	// it is the only element of.
	inner map[string][]string
	// changed: inline elements got their empty text node, so a snapshot
	// taken alongside lacks their lines.
	changed bool
	// frames guesses which of the main frame's iframes (their indexes in
	// document order) the snapshot taken next holds: those rendered. nil
	// when the pass could not tell (it failed, or the page has frames it
	// cannot place). The first check of a new document asks only those
	// (changedSince): a guess, never trusted for what a check answers.
	frames []int
}

// of resolves the marks against snap: an element Playwright unwrapped (its
// box is on no line) hands its marks to the only element inside it.
func (m markSet) of(snap string) map[string][]string {
	if len(m.inner) == 0 {
		return m.marks
	}
	shown := map[string]bool{}
	for line := range strings.Lines(snap) {
		if i, box, _ := boxAttr(line); i >= 0 {
			shown[box] = true
		}
	}
	out := make(map[string][]string, len(m.marks))
	for box, ks := range m.marks {
		out[box] = append(out[box], ks...)
	}
	for box, alts := range m.inner {
		if shown[box] {
			continue
		}
		for _, alt := range alts {
			if shown[alt] {
				out[alt] = append(out[alt], m.marks[box]...)
				break
			}
		}
	}
	for box, ks := range out {
		slices.Sort(ks)
		out[box] = slices.Compact(ks)
	}
	return out
}

// findMarks starts reading the page's marked elements and returns a
// function that waits for them at most wait; on a failure or past wait
// there are none (the snapshot is still right, only less helpful).
func findMarks(p pw.Page) func(wait time.Duration) markSet {
	return background(func() markSet {
		v, err := p.Evaluate(marksJS)
		obj, ok := v.(map[string]any)
		if err != nil || !ok {
			return markSet{marks: map[string][]string{}, inner: map[string][]string{}}
		}
		m := markSet{marks: boxLists(obj["marks"]), inner: boxLists(obj["inner"])}
		m.changed, _ = obj["changed"].(bool)
		if list, ok := obj["frames"].([]any); ok {
			m.frames = make([]int, 0, len(list))
			for _, v := range list {
				switch n := v.(type) {
				case int:
					m.frames = append(m.frames, n)
				case float64:
					m.frames = append(m.frames, int(n))
				}
			}
		}
		return m
	})
}

// boxLists reads the page's {box: [string...]} (what is not a string is
// left out).
func boxLists(v any) map[string][]string {
	out := map[string][]string{}
	byBox, _ := v.(map[string]any)
	for box, items := range byBox {
		list, _ := items.([]any)
		for _, it := range list {
			if s, ok := it.(string); ok {
				out[box] = append(out[box], s)
			}
		}
	}
	return out
}

// markLines replaces each line's [box=...] with the marks of that box (on
// main-frame elements only: a frame's boxes are in its own coordinates).
// A line is in a frame when it is nested under an iframe line; refs do not
// tell (once a page has had frames, Playwright prefixes the main frame's
// refs too, f3e2).
func markLines(snap string, marks map[string][]string) string {
	if !strings.Contains(snap, " [box=") {
		return snap
	}
	var b strings.Builder
	b.Grow(len(snap))
	frame := -1 // the indent of the iframe line whose content this is
	for line := range strings.Lines(snap) {
		body := strings.TrimLeft(line, " ")
		indent := len(line) - len(body)
		inFrame := frame >= 0 && indent > frame
		if !inFrame {
			frame = -1
			if strings.HasPrefix(body, "- iframe") {
				frame = indent
			}
		}
		i, box, rest := boxAttr(line)
		if i < 0 {
			b.WriteString(line)
			continue
		}
		b.WriteString(line[:i])
		if !inFrame {
			for _, m := range marks[box] {
				b.WriteString(" [" + m + "]")
			}
		}
		b.WriteString(rest)
	}
	return b.String()
}

// boxAttr finds the [box=x,y,w,h] attribute of a snapshot line: four
// integers, at the end of the line's key (then the line ends, or ":" or
// the closing quote of a quoted key follows), so that a name or text
// holding "[box=" is not taken for it. It returns where " [box=" starts,
// the box and what follows the attribute; i < 0 when there is none.
func boxAttr(line string) (i int, box, rest string) {
	for from := 0; ; {
		k := strings.Index(line[from:], " [box=")
		if k < 0 {
			return -1, "", ""
		}
		i = from + k
		from = i + 1
		tail := line[i+len(" [box="):]
		j := strings.IndexByte(tail, ']')
		if j < 0 || !isBox(tail[:j]) {
			continue
		}
		rest = tail[j+1:]
		if r := strings.TrimRight(rest, "\r\n"); r == "" || r[0] == ':' || r[0] == '\'' {
			return i, tail[:j], rest
		}
	}
}

// isBox: four comma-separated integers.
func isBox(s string) bool {
	parts := strings.Split(s, ",")
	if len(parts) != 4 {
		return false
	}
	for _, p := range parts {
		p = strings.TrimPrefix(p, "-")
		if p == "" || strings.Trim(p, "0123456789") != "" {
			return false
		}
	}
	return true
}
