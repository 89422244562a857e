// The snapshot's pass of the visibility judge (visibility.go): it walks
// the document with judgeOf (visibility.js), after the snapshot.

// judgeSnapshot: the snapshot's pass over one document, after the
// snapshot (Playwright keeps each element's ref on it, in this isolated
// world). It answers what the host takes out of the snapshot: drop, the
// refs of elements none of whose content can be seen (their lines go
// with what they hold); runs, hidden text as {ref, text}, the ref of the
// nearest element with one that holds the text ("" for none). A control
// a person sees keeps its accessible name whatever its text: a
// screen-reader-only label on a button stays.
//
// shownLetters ("e3:37,e5:12") is what the snapshot shows as each ref's own text,
// in letters (ownTexts, visibility.go). Where a ref shows more letters
// than its text nodes hold, the rest is generated (::before, ::after):
// its element's pseudo-elements are judged too. Reading them for every
// element would cost more than the rest of the pass.
const judgeSnapshot = (doc, shownLetters, frameWin) => judgeWalk(doc, frameWin).finish(shownLetters);

// judgeWalk is judgeSnapshot in two steps: the walk over the document
// (all of the reading of styles and boxes), then finish(shownLetters),
// what needs the snapshot's text (the letters each ref shows). The host
// walks the main frame's document while the snapshot is on its way to it
// (the walk waits for the snapshot's own pass in the page, not for its
// text: prejudge.go), and finishes once the text is there. max is the
// highest ref number the walk met and prefix their frame part (null when
// it met none), values the fields whose hidden value it answered (finish
// answers null when one has changed since).
const judgeWalk = (doc, frameWin) => {
	const t0 = performance.now();
	const J = judgeOf(doc, frameWin);
	// (Closed shadow roots the host handed over: closed.js.)
	const C = closedOf(doc, true);
	// letters: the letters of the texts a person sees under each ref (the
	// nearest ref holding them), counted as the snapshot counts them (no
	// white space, no invisible format character: the host takes those
	// out); finish gives each to the nearest ref above that shows text in
	// the snapshot. owners: each ref's element, style and context.
	const letters = new Map(), owners = new Map();
	const invisible = /[\s\p{Cf}\u{FE00}-\u{FE0F}\u{E0100}-\u{E01EF}\u034F\u115F\u1160\u17B4\u17B5\u180B-\u180D\u180F\u2800\u3164\uFFA0]/gu;
	const count = (ref, t) => { if (ref) letters.set(ref, (letters.get(ref) || 0) + t.replace(invisible, "").length); };
	// max: the highest ref number met (the host checks the walk came after
	// the snapshot that gave its refs).
	// prefix: the refs' frame part ("" or "f3": one per document).
	let max = 0, prefix = null;
	const noteRef = r => { if (r) { const i = r.lastIndexOf("e"), k = +r.slice(i + 1); prefix ??= r.slice(0, i); if (k > max) max = k; } };
	// deferred: the empty elements with refs the walk passed over (nothing
	// of theirs paints over others): finish judges those whose refs show
	// text (generated, or a name) in the snapshot. values: the fields whose
	// value the walk answered hidden, with that value.
	const deferred = [], values = [];
	// windows: the part each iframe (by ref) shows of its frame, where it
	// does not show all of it (frameWindow): the host asks that frame's
	// judge again with it.
	const out = {drop: [], runs: [], windows: {}}, shown = [];
	const controlRoles = /^(button|link|checkbox|radio|switch|tab|menuitem|menuitemcheckbox|menuitemradio|option|combobox|textbox|searchbox|slider|spinbutton|treeitem|listbox|gridcell)$/;
	const controlTags = /^(a|button|input|select|textarea|summary|label)$/;
	const replacedTags = /^(img|svg|canvas|video|iframe|frame|object|embed)$/, frameTags = /^(iframe|frame|object|embed)$/;
	const frames = [], pics = [];
	// parentOf: each ref the walk met, to the ref of the nearest element
	// above it that has one.
	const parentOf = new Map();
	const textFields = /^(input|textarea)$/, textTypes = /^(text|search|email|url|tel|number)$/;
	const fields = /^(INPUT|SELECT|TEXTAREA|IMG|CANVAS|VIDEO|IFRAME|svg|PICTURE|OBJECT|EMBED)$/;
	const refOf = e => e._ariaRef && e._ariaRef.ref;
	const isControl = e => { const r = e._ariaRef; return r ? controlRoles.test(r.role) : controlTags.test(e.localName) && (e.localName !== "a" || e.hasAttribute("href")); };
	const children = e => {
		const sr = e.shadowRoot || C.on && C.root(e);
		if (sr) return sr.childNodes;
		if (e.localName === "slot") { const a = e.assignedNodes(); if (a.length) return a; }
		return e.childNodes;
	};
	// nodes: the same, for the walk: null where the children are e's own,
	// which the walk follows by sibling (a NodeList's iterator costs a call
	// into the renderer a step).
	const nodes = e => e.shadowRoot || e.localName === "slot" || C.on && C.root(e) ? children(e) : null;
	const norm = t => t.replace(/\s+/g, " ").trim(), blank = /\S/, SLOTHID = {all: true};
	const skip = /^(SCRIPT|STYLE|NOSCRIPT|TEMPLATE|HEAD|TITLE)$/;
	// gone: x and all it holds are hidden: the refs of x and of every
	// element under it go (Playwright folds some wrappers into their
	// child's line, so a wrapper's ref may have no line), and every text
	// under it, by the nearest ref.
	const gone = (x, ref) => {
		const r = refOf(x);
		noteRef(r);
		// (A covered picture or frame is dropped with its own ref as ref:
		// its parent is the one the walk noted.)
		// An element holding one of the top layer keeps its line, which
		// holds the top layer's: what else it holds goes piece by piece.
		const keep = J.tops.size > 0 && [...J.tops].some(t => t !== x && J.holds(x, t));
		if (r) { if (ref && ref !== r) parentOf.set(r, ref); if (!keep) out.drop.push(r); ref = r; }
		else { const l = labelOf(x); if (l) out.runs.push({ref, text: l, label: true}); }
		for (const n of children(x)) {
			if (n.nodeType === 3) { if (C.on && C.inside(n)) continue; const t = norm(n.data); if (t) out.runs.push({ref, text: t}); continue; }
			// (An element of the top layer is none of x's to hide: walked
			// apart, from the document's context, when it has a box.)
			if (n.nodeType === 1 && J.tops.has(n)) { apart.push([n, ref]); continue; }
			if (n.nodeType === 1 && !skip.test(n.tagName) && !(J.unseen(n, J.style(n)) && !(C.on && C.inside(n)))) gone(n, ref);
		}
	};
	// apart: the top-layer elements under a hidden element, with the ref
	// above each.
	const apart = [];
	// labelOf: the label an element names itself by (aria-labelledby's
	// texts, else aria-label), normalized; "" for none.
	const labelOf = x => {
		if (x.nodeType !== 1) return "";
		const ids = x.getAttribute("aria-labelledby");
		if (ids) {
			const root = x.getRootNode();
			const t = norm(ids.split(/\s+/).map(id => { const y = id && root.getElementById ? root.getElementById(id) : null; return y ? y.textContent : ""; }).join(" "));
			if (t) return t;
		}
		const l = norm(x.getAttribute("aria-label") || "");
		if (l) return l;
		// (A picture's own text alternative: an img's alt, an SVG's title.)
		if (x.localName === "img") return norm(x.getAttribute("alt") || "");
		if (x.localName === "svg") { const t = x.querySelector(":scope > title"); if (t) return norm(t.textContent); }
		return "";
	};
	// unlabelled: an element with no ref (Playwright gave it none: no box,
	// or no pointer events) that is no control and shows a label its own
	// text does not hold: the label is a name no one sees (its line, if
	// any, carries it: label runs).
	// (A picture is judged as one: the walk's picture branch.)
	const isPicture = n => n.localName === "img" || n.localName === "svg" || n.getAttribute("role") === "img";
	const unlabelled = (n, ref) => {
		if (isPicture(n)) return;
		const l = labelOf(n);
		if (!l || isControl(n)) return;
		const own = norm(n.textContent).toLowerCase();
		if (!l.toLowerCase().split(" ").every(w => own.includes(w))) out.runs.push({ref, text: l, label: true});
	};
	// own: whether a control paints something of its own a person sees
	// (a field, an image or icon, a background or border that shows).
	const own = (e, s, ctx) => {
		if (!J.painted(e, s, ctx)) return false;
		if (fields.test(e.tagName) || e.querySelector("img, svg, canvas, video, picture, input, select, textarea")) return true;
		const b = s.backgroundColor, bw = parseFloat(s.borderTopWidth) + parseFloat(s.borderBottomWidth);
		if (s.backgroundImage !== "none" || !/^rgba\(0, 0, 0, 0\)$|^transparent$/.test(b) || (bw > 0 && s.borderTopStyle !== "none")) return true;
		for (const p of ["::before", "::after"]) { const c = J.style(e, p).content; if (c && c !== "none" && c !== "normal" && c !== '""') return true; }
		return false;
	};
	// walk: judges the content of e; returns how many of its texts show.
	// ctl: inside a control, whose texts are its name (judged as one).
	// ref: the nearest ref at or above e, under which e's texts' letters
	// count (a ref with no line of its own, as a figcaption folded into
	// its figure's name, counts for the line that shows it: finish).
	const walk = (e, s, ctx, ref, ctl) => {
		let seen = 0;
		// A closed details shows its summary only.
		const closed = e.localName === "details" && !e.open;
		const list = nodes(e);
		for (let i = 0, n = list ? list[0] : e.firstChild; n; n = list ? list[++i] : n.nextSibling) {
			// (A node's facts are read once: each read is a call into the
			// renderer.)
			const type = n.nodeType;
			if (closed && n.localName !== "summary") { if (!ctl) type === 1 ? gone(n, ref) : type === 3 && norm(n.data) && out.runs.push({ref, text: norm(n.data)}); continue; }
			if (type === 3) {
				// The text is made into one line only where it is answered
				// (most texts show; white space alone is no text).
				const d = n.data;
				if (!blank.test(d)) continue;
				if (C.on && C.inside(n)) { seen += C.text(J, n, e, s, ctx); continue; }
				// (What hides from everyone inside a closed root is no cause
				// the snapshot saw: light text slotted under it is in it.)
				const v0 = J.text(n, e, s, ctx), v = v0.unseen && C.on && C.inside(e) ? SLOTHID : v0;
				if (!v.unseen) count(ref, d);
				if (v.all) { if (!ctl && !v.unseen) out.runs.push({ref, text: norm(d)}); continue; }
				seen++;
				if (!ctl && v.hidden.length) out.runs.push({ref, text: v.hidden.join(" "), tail: true});
				if (!ctl) shown.push({e, ref, n, v});
				continue;
			}
			if (type !== 1 || skip.test(n.tagName)) continue;
			// Nothing to judge in an empty element (an image, a break) or
			// an SVG drawing with no text, unless it is a control or may
			// paint over others (positioned, or a shadow or outline).
			// (Each element is walked once: its style is not kept for
			// later asks, which are few.)
			const ns = J.fresh(n);
			// A picture, drawing or frame is entered for what it paints over
			// others (and a frame for whether its document shows at all).
			const name = n.localName, nref = refOf(n);
			noteRef(nref);
			if (nref && ref) parentOf.set(nref, ref);
			if (!nref && !ctl) unlabelled(n, ref);
			if (name.includes("-")) C.seen(n);
			// (A slot's content is what is assigned to it, when anything is.)
			const empty = (name === "slot" ? !children(n).length : !n.firstChild && !n.shadowRoot && !(C.on && C.root(n))) || name === "svg" && !n.querySelector("text, foreignObject");
			const frame = frameTags.test(name);
			// (An empty element that shows text in the snapshot holds
			// generated text: it is entered, for it to be judged.)
			// A picture keeps its name (its text alternative stands for
			// what is seen) only when it is seen: one hidden, too small,
			// clipped or covered goes, name and all.
			if (empty && !ctl && isPicture(n) && !isControl(n) && labelOf(n)) {
				const pin = J.enter(n, ns, ctx, false);
				if (!pin || !J.painted(n, ns, pin)) { if (!J.unseen(n, ns)) gone(n, ref); continue; }
				pics.push({e: n, ref: nref || ref, v: {rects: [J.box(n.getBoundingClientRect())], z: pin.z, sc: pin.sc}});
				J.inFlow(n, ns, ctx);
				continue;
			}
			if (empty && !frame && (ctl || !isControl(n)) && J.still(n, ns, ctx)) {
				if (nref) deferred.push([n, ns, ctx, ref, ctl]);
				else if (replacedTags.test(name)) J.inFlow(n, ns, ctx);
				continue;
			}
			const inner = J.enter(n, ns, ctx, false);
			const r = nref || ref;
			if (inner && !ctl && nref) owners.set(r, [n, ns, inner]);
			if (!inner) { if (!ctl && (!J.unseen(n, ns) || C.on && C.inside(n))) gone(n, ref); continue; }
			if (frame) {
				// A frame's document is judged in its own pass: a frame that
				// does not show here takes its whole document with it; one
				// shown in part is judged again with that part (windows).
				if (!ctl && !J.painted(n, ns, inner)) gone(n, ref);
				else if (!ctl) {
					const g = nref && J.frameWindow(n, ns, inner);
					frames.push({e: n, ref: r, nref, g, fc: J.frameContext(inner, ns), v: {rects: [J.box(n.getBoundingClientRect())], z: inner.z, sc: inner.sc}});
				}
				// (What an iframe element holds is never drawn: its frame's
				// document is. Playwright prints it as the frame's line's text
				// when the frame is not reached.)
				if (!ctl && name !== "object" && name !== "embed") for (let c = n.firstChild; c; c = c.nextSibling) if (c.nodeType === 3 && norm(c.data)) out.runs.push({ref: r, text: norm(c.data), value: !!nref});
				J.inFlow(n, ns, ctx);
				continue;
			}
			if (!ctl && isControl(n)) {
				const k = walk(n, ns, inner, r, true);
				if (k === 0 && !own(n, ns, inner)) gone(n, ref);
				else if (textFields.test(name)) {
					// (A field's value no one can read goes; its name stays.
					// So does a placeholder that does not show: it shows only
					// while the field is empty, in a style of its own.)
					if (n.value && (name === "textarea" || textTypes.test(n.type)) && !J.valueShows(n, ns, inner)) { out.runs.push({ref: r, text: norm(n.value), value: true}); values.push([n, n.value]); }
					if (n.placeholder && !J.placeholderShows(n, ns, inner)) out.runs.push({ref: r, text: norm(n.placeholder), placeholder: true});
				}
				seen += k;
				continue;
			}
			seen += walk(n, ns, inner, r, ctl);
		}
		return seen;
	};
	let ctx = J.base;
	const el = J.body || J.html;
	for (const a of el === J.html ? [J.html] : [J.html, el]) ctx = ctx && J.enter(a, J.style(a), ctx, true);
	if (ctx) {
		noteRef(refOf(el));
		if (refOf(el)) owners.set(refOf(el), [el, J.style(el), ctx]);
		walk(el, J.style(el), ctx, refOf(el) || "", false);
	} else gone(el, "");
	// The top layer under hidden elements: each walked as the walk walks
	// any element, from the document's context (enter starts it there).
	for (let i = 0; i < apart.length; i++) {
		const [n, ref] = apart[i];
		if (!n.getClientRects().length) { gone(n, ref); continue; }
		const ns = J.fresh(n), inner = J.enter(n, ns, J.base, false), nref = refOf(n), r = nref || ref;
		noteRef(nref);
		if (nref && ref) parentOf.set(nref, ref);
		if (!inner) { if (!J.unseen(n, ns)) gone(n, ref); continue; }
		if (nref) owners.set(r, [n, ns, inner]);
		walk(n, ns, inner, r, false);
	}
	const walked = performance.now() - t0;
	// finish: what needs the snapshot's letters, then the answer.
	const finish = shownLetters => {
		const t1 = performance.now();
		for (const [f, v] of values) if (f.value !== v) return null;
		const expect = new Map();
		for (const x of (shownLetters || "").split(",")) { const i = x.lastIndexOf(":"); if (i > 0) expect.set(x.slice(0, i), +x.slice(i + 1)); }
		// The empty elements passed over whose refs show text in the
		// snapshot: generated text, or a name (the walk's enter branch).
		for (const [n, ns, ctx, ref, ctl] of deferred) {
			const nref = refOf(n);
			if (!expect.has(nref)) { if (replacedTags.test(n.localName)) J.inFlow(n, ns, ctx); continue; }
			const inner = J.enter(n, ns, ctx, false);
			if (inner && !ctl) owners.set(nref, [n, ns, inner]);
			if (!inner) { if (!ctl && (!J.unseen(n, ns) || C.on && C.inside(n))) gone(n, ref); continue; }
			walk(n, ns, inner, nref, ctl);
		}
		// Each ref's letters go to the nearest ref at or above it that shows
		// text in the snapshot.
		const have = new Map();
		for (const [ref, k] of letters) {
			let y = ref;
			for (let i = 0; y && !expect.has(y) && i < 64; i++) y = parentOf.get(y);
			if (y && expect.has(y)) have.set(y, (have.get(y) || 0) + k);
		}
		// A ref that shows more letters than its text nodes and the
		// generated text a person sees hold shows a label no one sees (an
		// aria-label, a title): unexplained, its name goes (unseenNames).
		out.unexplained = [];
		for (const [ref, [e, s, c]] of owners) {
			if (!expect.has(ref)) continue;
			const got = have.get(ref) || 0;
			if (expect.get(ref) <= got) continue;
			const g = J.generated(e, s, c);
			for (const text of g.hidden) out.runs.push({ref, text});
			if (expect.get(ref) > got + g.shown) out.unexplained.push(ref);
		}
		const covered = new Set();
		if (J.painters.length) {
			for (const x of shown) if (J.shadowed(x.e, x.v)) out.runs.push({ref: x.ref, text: norm(x.n.data)});
			for (const x of frames) if (J.shadowed(x.e, x.v)) { gone(x.e, x.ref); covered.add(x); }
			for (const x of pics) if (J.shadowed(x.e, x.v)) gone(x.e, x.ref);
		}
		// The part of each frame its iframe shows, where not all of it, the
		// parts of that a painter above the iframe covers, and what the page
		// does to all of the frame (frameContext): the host asks the frame's
		// judge again with them.
		for (const x of frames) {
			if (!x.g || !x.nref || covered.has(x)) continue;
			const covers = J.painters.length ? J.frameCovers(x.e, x.v, x.g) : [];
			if (x.g.all && !covers.length && !x.fc) continue;
			out.windows[x.nref] = {l: x.g.l, t: x.g.t, r: x.g.r, b: x.g.b, covers, ctx: x.fc};
		}
		if (C.on) out.closed = C.finish(J);
		out.candidates = C.done();
		// The refs above each run's (and each dropped ref's), for the host to
		// find the nearest that has a line (Playwright folds some elements
		// into a line of their parent's).
		out.parents = {};
		for (const x of [...out.runs.map(r => r.ref), ...out.drop]) {
			for (let y = x, k = 0; y && k < 64 && !(y in out.parents); k++) {
				const p = parentOf.get(y);
				if (!p) break;
				out.parents[y] = p;
				y = p;
			}
		}
		// (Which document: the host reaches a frame of another process's
		// closed roots by it.)
		out.url = doc.URL;
		out.ms = walked + performance.now() - t1;
		return out;
	};
	return {finish, max, prefix, ms: walked, authored: J.authored};
};
