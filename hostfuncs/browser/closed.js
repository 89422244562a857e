// Closed shadow roots (closedroots.go): the host hands this world (the
// isolated one Playwright's scripts and ours run in, which the page cannot
// reach) the closed shadow roots of its document, as
// globalThis.__wwClosedRoots = {doc, roots: Map(host -> root)}; the walks
// of the judge (judgesnap.js) and of browser_read (readjs.go) enter them
// as they enter open roots, so their text is judged like any other.

// closedOf: the closed roots handed to this world for doc, for a walk
// (on: in the isolated world only; off, it knows none and finds none).
// root(e) is e's closed root; inside(n), whether n is in a closed tree
// (a closed root's, or an open one's inside it).
//
// Which roots are handed over: before each pass, every closed root that
// holds a slot, whatever its host (a div, a p, a span: the protocol's
// search for slot elements, closedroots.go's reachSlotted), so light
// text a root slots into a wrapper that hides it (opacity, a filter, a
// clip, a cover) is judged under that wrapper. For roots that hold no
// slot, the walk also finds hosts to ask about one by one. No script can
// tell a closed root from none, so every custom element the walk meets
// with no open root is one (seen), and any element with a child that
// names a slot (done); each is asked about once per document
// (closedroots.go): done answers how many are new, kept for the host. A
// closed root with no slot on a plain element is not found: it slots
// nothing (its host's light content has no box, and is judged hidden),
// and its own text stays out (shown text lost; RATIONALE, "Closed shadow
// roots").
//
// For the snapshot: the page's snapshot has no line for anything in a
// closed tree (Playwright walks open roots only), so its text shown is
// answered apart (text), under the refs of the elements around it,
// nearest first; its hidden text needs no answer (it is in no snapshot).
const closedOf = (doc, on) => {
	const m = on ? globalThis.__wwClosedRoots : null;
	const roots = m && m.doc === doc && m.roots.size ? m.roots : null;
	const checked = on ? globalThis.__wwChecked : null, cands = new Set();
	// (At most this many are asked about a pass; the next takes the rest.)
	const MAX = 256;
	const seen = e => {
		if (on && cands.size < MAX && !e.shadowRoot && !(roots && roots.has(e)) && !(checked && checked.has(e))) cands.add(e);
	};
	const done = () => {
		if (!on) return 0;
		for (const x of doc.querySelectorAll("[slot]")) { const h = x.parentElement; if (h) seen(h); }
		// Each is handed over once: a frame the host's session cannot
		// reach (another process's) does not make every pass ask again.
		const c = globalThis.__wwChecked ??= new WeakSet();
		for (const e of cands) c.add(e);
		// (Added to those of an earlier pass not yet handed over: a frame
		// judged twice before the host reaches its roots keeps them.)
		const prev = globalThis.__wwCand || [];
		globalThis.__wwCand = prev.length + cands.size ? [...prev, ...cands].slice(-4 * MAX) : undefined;
		return cands.size;
	};
	if (!roots) return {on: false, seen, done};
	const closed = new Set(roots.values()), memo = new Map(), chains = new Map(), shown = [];
	const inside = n => {
		const r = n.getRootNode();
		if (r === doc || !r.host) return false;
		let v = memo.get(r);
		if (v === undefined) { v = closed.has(r) || inside(r.host); memo.set(r, v); }
		return v;
	};
	// refsOf: the refs of e and the elements around it, nearest first
	// (refs), and of the elements before each of those (after, nearest
	// first): where its text goes in the snapshot.
	const refOf = x => x._ariaRef && x._ariaRef.ref;
	const refsOf = e => {
		let v = chains.get(e);
		if (v) return v;
		v = {refs: [], after: []};
		for (let x = e; x && v.refs.length < 8; x = x.assignedSlot || x.parentElement || (x.parentNode && x.parentNode.host) || null) {
			const r = refOf(x);
			if (r && v.refs[v.refs.length - 1] !== r) v.refs.push(r);
			for (let p = x.previousElementSibling, k = 0; p && k < 8 && v.after.length < 8; p = p.previousElementSibling, k++) {
				const q = refOf(p) || (p.lastElementChild && refOf(p.lastElementChild));
				if (q) v.after.push(q);
			}
		}
		chains.set(e, v);
		return v;
	};
	const norm = t => t.replace(/\s+/g, " ").trim();
	return {
		on: true, inside, seen, done,
		root: e => roots.get(e),
		// text: judges a text node of a closed tree (J.text); answers 1 when
		// it shows, and keeps what shows.
		text: (J, n, e, s, ctx) => {
			const v = J.text(n, e, s, ctx);
			if (v.all) return 0;
			const t = v.hidden.length ? v.kept : norm(n.data);
			if (t) shown.push({e, v, at: refsOf(e), text: t});
			return 1;
		},
		// finish: the text shown, less what a box painted over it covers
		// (known once the whole document is walked).
		finish: J => shown.filter(x => !(J.painters.length && J.shadowed(x.e, x.v))).map(x => ({refs: x.at.refs, after: x.at.after, text: x.text})),
	};
};
