package browser

import pw "github.com/mxschmitt/playwright-go"

// Changes: an ARIA snapshot walks the whole document, and most of an
// action's time on a large page is that walk. A page an action did not
// change needs none: the snapshot taken last is still the page's. Each
// document gets a change watcher (changesJS), a selector engine Playwright
// runs in its isolated world, out of the page's reach: a page's scripts
// can neither see it nor silence it. Asking it "check" answers whether the
// document may have changed since the previous check, and how, and starts
// a new period; aria asks right before each whole-page snapshot, so a
// change made while the snapshot is taken counts for the next one. Once
// Playwright has asked a document's main-frame watcher, the host asks
// that watcher directly, through the protocol, in the same isolated world
// (direct.go).
//
// It decides conservatively. Changed is: any DOM mutation (childList,
// attributes, text) in the document; another hovered element, checked or
// selected state, open popover, or the document gaining or losing focus
// (compared at each check, so no page handler can hide them); resizing, a
// hash or history change, the document leaving its frame, an element or
// font loading, a transition or animation event, a content-visibility
// change, a popover or details toggle, a transition of anything but colours, outlines and shadows (the
// events, caught before the page's own listeners see them). Unsure, so
// changed every time: a document with an open shadow root, a custom
// element, a known closed root or an element naming a slot (a shadow tree
// is not watched; a custom element may attach one when defined; a slot's
// host may hold a closed root), and running or filling animations other than such
// transitions (they can change visibility with no event). Each frame's
// document has its own watcher, asked at the same time when the kept
// snapshot holds that frame (changedSince). A new document has a new
// watcher, which starts changed.
//
// Two changes are answered from the kept snapshot, patched to the text a
// new snapshot has (the tests compare the two):
//   - the focus moved: its [active] mark moves (moveActive) to the newly
//     focused element's line, found by the ref Playwright keeps on that
//     element in the same isolated world, or, when the visibility judge
//     left that line out and no focus style applies to the element or
//     what holds it (focusStyled), is taken off; an element Playwright
//     gave no ref (an empty or zero-size link: it has a line, without a
//     ref) is found by the refs around it (placeOf, placeActive);
//   - a text field's value changed (typing): the text of its line
//     (setValue), rendered as Playwright renders it, once the line's
//     present text is found to be the old value rendered the same way.
//
// Unless a stylesheet could make that focus or value change more than
// that line (cssShows: :focus-within, :has(), a combinator after the
// pseudo-class, a rule on display, visibility, content, cursor, pointer
// events or size, or a stylesheet it cannot read; focusStyled: a focus
// rule setting more than colours, outlines and shadows on the element
// that gained or lost focus, or what holds it), or the value could be
// part of another element's name (the field inside a link, button, cell,
// heading, label of another control, or an element an aria-labelledby
// names), or the field's line is not a plain one: then changed.
//
// Each answer that is not "unchanged" says why (a short reason, counted in
// watchFallbacks and logged at debug level), so what still costs a
// snapshot on real pages can be told.
//
// Not seen: an event handler property assigned by script with nothing else
// changing ([clickable] and its kin, hints, come with the next change).
//
// It also answers redact's question of one field (secretFieldFn), the
// field being the element a ref before it names (aria-ref=e5 >>
// ww-changes=secret): asked in this world, which the snapshot that gave
// the ref has made ready, a new document's first question does not pay
// for readying the page's own world.
const changesJS = `(() => {
	const doc = document;
	const secretField = ` + secretFieldFn + `;
	const probe = ` + probeFn + `;
	// dirty is why the page may have changed since the last check (a
	// class of reason, and what it was), or null.
	let dirty = { changed: "new document" };
	// __wwMarks counts every change seen, for the judge split in two
	// (judgesnap.js's judgeWalk): its walk holds only while none came.
	globalThis.__wwMarks = 0;
	const mark = (changed, detail) => { globalThis.__wwMarks++; if (!dirty) dirty = { changed, detail }; };
	// A mutation's detail names the first one: its kind, node, attribute.
	const what = rs => rs[0].type + " " + rs[0].target.nodeName + (rs[0].attributeName ? " " + rs[0].attributeName : "");
	const mo = new MutationObserver(rs => mark("mutation", what(rs)));
	mo.observe(doc, { subtree: true, childList: true, attributes: true, characterData: true });
	// A transition of colours, outlines or shadows (as :focus styles
	// start) changes no line of a snapshot; any other may.
	const harmless = /^(color|background-color|border(-(top|right|bottom|left|block|inline)(-(start|end))?)?-color|outline(-color|-width|-style|-offset)?|text-decoration-color|caret-color|fill|stroke|box-shadow|text-shadow|accent-color)$/;
	for (const type of ["transitionrun", "transitionend", "transitioncancel"]) {
		window.addEventListener(type, e => { if (!harmless.test(e.propertyName)) mark("transition", e.propertyName); }, true);
	}
	for (const type of ["toggle", "resize", "hashchange", "popstate",
		"pageshow", "pagehide", "load", "error", "animationstart", "animationend",
		"animationcancel", "animationiteration", "mouseover", "mouseout", "contentvisibilityautostatechange",
		"fullscreenchange", "visibilitychange", "close", "cancel", "slotchange", "reset"]) {
		window.addEventListener(type, e => mark("event", type + (e.target && e.target.nodeName ? " " + e.target.nodeName : "")), true);
	}
	try { doc.fonts.addEventListener("loadingdone", () => mark("event", "font loaded")); } catch (e) { dirty = { changed: "fonts not watched" }; }
	const ids = new WeakMap();
	let nextID = 0;
	const id = e => {
		if (!ids.has(e)) ids.set(e, ++nextID);
		return ids.get(e);
	};
	// pointer is the state a check compares rather than trusts an event
	// for: document focus, hover, open popovers.
	const pointer = () => {
		let s = doc.hasFocus() ? "F|" : "f|";
		for (const e of doc.querySelectorAll(":hover")) s += id(e) + ",";
		s += "|";
		try { for (const e of doc.querySelectorAll(":popover-open")) s += id(e) + ","; } catch (e) { s += "?"; }
		return s;
	};
	// sheets: the document's style sheets as the CSSOM holds them (each
	// sheet, its rule count, whether it is disabled, its media, in order;
	// then the adopted ones): a script that inserts or deletes a rule, or
	// adopts, replaces, disables or reorders a sheet, changes what is drawn
	// with no mutation of the document. Not seen: a rule's declarations
	// edited in place (rule.style.x = ...) or a rule inserted into a
	// grouping rule (reading every rule costs 8-72 ms a check on the
	// corpus's largest pages, where this costs about 0.3 ms).
	const sheetPrint = sh => {
		let n;
		try { n = sh.cssRules.length; } catch (e) { n = "x"; }
		return id(sh) + ":" + n + (sh.disabled ? "d" : "") + ":" + sh.media.mediaText + ",";
	};
	const sheets = () => {
		let s = "";
		const list = doc.styleSheets, adopted = doc.adoptedStyleSheets || [];
		for (let i = 0; i < list.length; i++) s += sheetPrint(list[i]);
		s += "|";
		for (let i = 0; i < adopted.length; i++) s += sheetPrint(adopted[i]);
		return s;
	};
	// userState: whether field e holds user validity (:user-invalid "i",
	// :user-valid "v"). It changes with no mutation when a field the user
	// changed loses focus, and a rule on it may show an error.
	const userState = e => {
		try { return e.matches(":user-invalid") ? "i" : e.matches(":user-valid") ? "v" : ""; } catch (x) { return ""; }
	};
	// fields are the form controls' values, checked, indeterminate and
	// selected states, and user validity (a type=hidden input shows
	// nowhere).
	const fields = () => {
		const m = new Map();
		const all = doc.querySelectorAll("input,textarea,select,option");
		for (let i = 0; i < all.length; i++) {
			const e = all[i];
			if (e.type === "hidden") continue;
			m.set(e, { v: e.value ?? "", f: (e.checked ? "c" : "") + (e.indeterminate ? "i" : "") + (e.selected ? "s" : ""), u: userState(e) });
		}
		return m;
	};
	const unsure = () => {
		if (doc.getAnimations && doc.getAnimations().some(a => !harmless.test(a.transitionProperty || ""))) return { changed: "animation" };
		// An indexed loop: a list's iterator costs about three times as
		// much per element, and this runs at every check of an unchanged
		// page.
		const all = doc.querySelectorAll("*");
		for (let i = 0; i < all.length; i++) {
			const e = all[i];
			if (e.shadowRoot) return { changed: "shadow root", detail: e.localName };
			if (e.localName.includes("-")) return { changed: "custom element", detail: e.localName };
		}
		// A closed shadow root: no observer of the document sees inside
		// one. Known (handed to this world for the snapshot) or possible
		// (an element naming a slot: its host may hold one, as on a plain
		// element), the page is unsure.
		const closed = globalThis.__wwClosedRoots;
		if (closed && closed.doc === doc && closed.roots.size) return { changed: "closed shadow root" };
		if (doc.querySelector("[slot]")) return { changed: "slotted content" };
		return null;
	};
	// cssShows: why a stylesheet may make the pseudo-classes pseudo (a
	// regexp source) change more than the line of the element they match
	// (a selector that shows or hides another element by them: :has(), a
	// combinator after them, nesting; a rule on that element's display,
	// visibility, content, cursor, pointer events or size, but on a
	// focus move, where focusStyled judges such rules on the elements
	// whose focus changed), or "" when none can. A sheet it cannot read (another origin's) is added to
	// unread, by address: the host knows whether it loaded at all. The
	// rules whose selectors have the pseudo-classes go into found (when
	// given), for focusStyled.
	// pseudoElements: a selector's pseudo-elements (focusStyled tests the
	// element that has them).
	const pseudoElements = /::[a-z-]+(\([^)]*\))?|:(before|after|first-line|first-letter)\b/gi;
	const shows = /^(display|visibility|content|content-visibility|cursor|pointer-events|(min-|max-)?(width|height|inline-size|block-size)|transform|scale|zoom|font-size|field-sizing)$/;
	const cssShows = (pseudo, unread, found) => {
		const has = new RegExp(":(" + pseudo + ")");
		const after = new RegExp(":(" + pseudo + ")[a-z-]*[^,]*?[\\s>+~)]");
		const sheets = [...doc.styleSheets, ...(doc.adoptedStyleSheets || [])];
		const rules = [];
		const add = sh => {
			try { rules.push(...sh.cssRules); } catch (e) { if (!sh.href) throw e; unread.add(sh.href); }
		};
		try {
			for (const sh of sheets) add(sh);
			for (let i = 0; i < rules.length; i++) {
				const r = rules[i];
				if (r.cssRules) rules.push(...r.cssRules);
				if (r.styleSheet) add(r.styleSheet);
				const sel = r.selectorText;
				if (!sel || !has.test(sel)) continue;
				if (found) found.push(r);
				if (/:has\(|&/.test(sel) || after.test(sel)) return "css " + sel;
				const st = r.style;
				if (!st) return "css " + sel;
				// On a focus move (found given), a rule with nothing after
				// its focus pseudo-class but a pseudo-element styles only
				// an element whose focus changed, or what holds it (its
				// ::after too): focusStyled judges it on those. Anywhere
				// else on the page it changes nothing (a button's :focus
				// transform while a field gains focus).
				if (found) continue;
				for (let k = 0; k < st.length; k++) if (shows.test(st[k])) return "css " + sel + " { " + st[k] + " }";
			}
		} catch (e) {
			return "css unreadable";
		}
		return "";
	};
	const focusPseudo = "focus[a-z-]*";
	// focusStyled: why a rule with a focus pseudo-class in its selector
	// may have changed how one of els (the elements that gained or lost
	// focus) or what holds them is drawn beyond the line's [active] mark,
	// or "": such a rule that would match one of them or an ancestor in
	// either focus state (its selector without the focus pseudo-classes
	// and pseudo-elements) and sets more than colours, outlines, shadows and their transitions
	// (with any, anything at all). Such a rule may move, clip or fade what
	// it styles, which the visibility judge reads: a skip link a focus
	// brings on screen, and the next Tab takes off again. A selector it
	// cannot test counts as matching. rules are the focus rules cssShows
	// found (it counts the sheets it cannot read).
	const focusStyled = (els, any, rules) => {
		for (const r of rules) {
			const sel = r.selectorText;
			if (!any && r.style && [...r.style].every(k => harmless.test(k) || /^transition/.test(k))) continue;
			const either = sel.replace(new RegExp(":(" + focusPseudo + ")", "g"), "").replace(pseudoElements, "").replace(/(^|,)\s*(?=,|$)/g, "$1*");
			try {
				if (els.some(e => e && e.isConnected && e.closest(either))) return "focus style " + sel;
			} catch (e) {
				return "focus style untestable " + sel;
			}
		}
		return "";
	};
	const valuePseudo = "placeholder-shown|(user-)?(in)?valid|in-range|out-of-range|blank|(-webkit-)?autofill";
	// namedBy: why a field's value may be part of another element's name
	// (Playwright's accessible name takes an embedded text field's value),
	// or "": an ancestor whose name can come from its content (a link,
	// button, cell, heading, option, caption, a label of another control,
	// an element with a role that may), or the field or an ancestor named
	// by an aria-labelledby.
	const quietRoles = new Set(["search", "form", "region", "navigation", "banner", "main", "complementary", "contentinfo", "group", "dialog", "alertdialog", "presentation", "none", "toolbar", "document", "application", "article", "tabpanel", "list", "listitem", "generic", "note", "status", "log", "figure"]);
	const namingTags = /^(a|button|summary|label|legend|caption|figcaption|output|option|td|th|tr|h[1-6])$/;
	const namedBy = e => {
		const labelled = new Set();
		for (const x of doc.querySelectorAll("[aria-labelledby]")) for (const n of x.getAttribute("aria-labelledby").split(/\s+/)) labelled.add(n);
		for (let a = e; a && a !== doc.documentElement; a = a.parentElement) {
			if (a.id && labelled.has(a.id)) return "named by aria-labelledby";
			if (a === e) continue;
			const role = (a.getAttribute("role") || "").trim().split(/\s+/)[0];
			if (role && !quietRoles.has(role)) return "inside role " + role;
			if (namingTags.test(a.localName) && !(a.localName === "label" && a.control === e)) return "inside " + a.localName;
		}
		return "";
	};
	const textTypes = new Set(["text", "search", "email", "url", "tel", "password"]);
	const normalize = v => v.replace(/[\u200b\u00ad]/g, "").trim().replace(/\s+/g, " ");
	// valuePatch is how a field's line shows its value changing from was
	// to now, or why it cannot be told.
	const valuePatch = (e, was, now) => {
		if (was.f !== now.f) return "checked or selected";
		if (!(e.localName === "textarea" || e.localName === "input" && textTypes.has(e.type))) return "value of " + e.localName;
		const r = e._ariaRef;
		if (!r || (r.role !== "textbox" && r.role !== "searchbox")) return "value of a field without a ref";
		if (e.hasAttribute("aria-owns")) return "value of a field owning others";
		for (const p of ["::before", "::after"]) {
			const c = getComputedStyle(e, p).content;
			if (c && c !== "none" && c !== "normal") return "value of a field with " + p;
		}
		const why = namedBy(e);
		if (why) return "value " + why;
		const shown = v => { const t = normalize(v); return t === r.name ? "" : t; };
		return { ref: r.ref, was: shown(was.v), now: shown(now.v) };
	};
	// placeOf: where the line of e, a focused element without a ref (one
	// Playwright gives no ref: an empty or zero-size link, say), is among
	// the lines of the elements around it, or why that cannot be told.
	// Lines follow the document's order: the elements from the
	// placeRefs-th element with a ref before e to the placeRefs-th after
	// it, in order, each as its ref, "self" (e), "same" (another element
	// without a ref whose line would be of e's role) or left out; "start"
	// or "end" when the walk reached the document's start or end. The
	// host puts e's [active] on the line a new snapshot would, only when
	// the lines without refs and of that role between two refs it finds
	// are as many as the elements counted there (placeActive). Roles are
	// told only for plain links, buttons, checkboxes and radios; an
	// element with a role attribute, or a document with aria-owns (lines
	// out of the document's order), is unsure.
	const placeRefs = 4;
	const plainRole = e => {
		if (e.hasAttribute("role")) return "";
		const n = e.localName;
		if ((n === "a" || n === "area") && e.hasAttribute("href")) return "link";
		if (n === "button") return "button";
		if (n === "input") {
			const t = e.type;
			if (t === "submit" || t === "button" || t === "reset" || t === "image") return "button";
			if (t === "checkbox" || t === "radio") return t;
		}
		return "";
	};
	// shown: whether e may have a line at all (a box, not hidden for
	// ARIA); one that has none is left out of the count.
	const shown = e => !e.closest("[aria-hidden=true]") && (e.getClientRects().length > 0 || getComputedStyle(e).display === "contents") && getComputedStyle(e).visibility === "visible";
	const placeOf = e => {
		const role = plainRole(e);
		if (!role) return "role not told";
		if (doc.querySelector("[aria-owns]")) return "aria-owns";
		const walk = (step, edge) => {
			const w = doc.createTreeWalker(doc, NodeFilter.SHOW_ELEMENT);
			w.currentNode = e;
			const seq = [];
			let refs = 0;
			for (let n = w[step](); ; n = w[step]()) {
				if (!n) { seq.push(edge); break; }
				if (n._ariaRef) {
					seq.push(n._ariaRef.ref);
					if (++refs === placeRefs) break;
				} else if (plainRole(n) === role && shown(n)) {
					seq.push("same");
				}
			}
			return seq;
		};
		return { role, seq: [...walk("previousNode", "start").reverse(), "self", ...walk("nextNode", "end")] };
	};
	let seenPointer = "", seenSheets = "", seenFields = new Map(), active = null, seenVisible = false;
	// visibleFocus: whether e shows focus to the keyboard (:focus-visible).
	// A key pressed on an element the mouse focused turns it on with no
	// focus move; a selector the engine cannot parse counts as a change.
	const visibleFocus = e => {
		try { return !!e && e.matches(":focus-visible"); } catch { return null; }
	};
	// check answers what changed since the previous check: {} nothing;
	// {changed, detail} the page may have (a class of reason, and what it
	// was); {focus, values, sheets} only the focus moved (to the element
	// of that ref, Playwright's, in this isolated world) and text fields'
	// values changed (their refs, the text their lines showed and show
	// now), unless one of the stylesheets it could not read (sheets) says
	// more.
	const check = () => {
		const rs = mo.takeRecords();
		if (rs.length) mark("mutation", what(rs));
		const pt = pointer(), fs = fields(), sh = sheets(), was = active, wasFields = seenFields, wasVisible = seenVisible;
		active = doc.activeElement;
		seenVisible = visibleFocus(active);
		const why = dirty || (pt !== seenPointer ? { changed: "pointer", detail: "hover, popover or document focus" } : null) || (sh !== seenSheets ? { changed: "stylesheets" } : null) || (fs.size !== wasFields.size ? { changed: "form controls" } : null) || unsure();
		dirty = null;
		seenPointer = pt;
		seenSheets = sh;
		seenFields = fs;
		if (why) return why;
		const out = {}, unread = new Set();
		// The focus moved, or the element that holds it began (or ceased)
		// to show it to the keyboard: its focus rules are judged as for a
		// move.
		if (active !== was || seenVisible !== wasVisible) {
			const r = active && active._ariaRef;
			const place = r || !active || !doc.hasFocus() ? null : placeOf(active);
			if (!doc.hasFocus() || !r && typeof place !== "object") return { changed: "focus without ref", detail: (active ? active.localName : "none") + (place ? ": " + place : "") };
			const rules = [];
			const css = cssShows(focusPseudo, unread, rules);
			if (css) return { changed: "focus css", detail: css };
			const styled = focusStyled([active, was], false, rules);
			if (styled) return { changed: "focus css", detail: styled };
			if (r) {
				out.focus = r.ref;
				if (!focusStyled([active], true, rules)) out.unseen = true;
			} else {
				out.place = place;
			}
		}
		let user = false;
		for (const [e, now] of fs) {
			const w = wasFields.get(e);
			if (!w) return { changed: "form controls" };
			if (w.u !== now.u) user = true;
			if (w.v === now.v && w.f === now.f) continue;
			const p = valuePatch(e, w, now);
			if (typeof p === "string") return { changed: "value", detail: p };
			(out.values || (out.values = [])).push(p);
		}
		// A value or a field's user validity changed: rules on the value
		// pseudo-classes may show more than its line.
		if (out.values || user) {
			const css = cssShows(valuePseudo, unread);
			if (css) return { changed: out.values ? "value css" : "user validity css", detail: css };
		}
		if (unread.size) out.sheets = [...unread];
		return out;
	};
	// answer is a check's answer as text. The title comes along: the
	// answer after an action needs it, and this spares it a round trip
	// of its own.
	const answer = () => {
		const a = check();
		a.title = doc.title;
		return JSON.stringify(a);
	};
	// The answer is the text of an element made for it, never inserted
	// into the document (no page script sees it).
	const queryAll = (root, body) => {
		const e = doc.createElement("span");
		if (body === "secret") {
			e.textContent = secretField(root) ? "secret" : "plain";
			return [e];
		}
		if (body === "probe") {
			e.textContent = JSON.stringify(probe(root));
			return [e];
		}
		if (body !== "check") return [];
		// Asked through Playwright, which runs this engine only in its
		// isolated world: the same answer is left there, in that world's
		// global scope (the page's scripts have their own), for the host
		// to ask directly (direct.go).
		globalThis.__wwCheck = answer;
		e.textContent = answer();
		return [e];
	};
	return { query: (root, body) => queryAll(root, body)[0], queryAll };
})()`

// changeEngine is the selector engine's name: ww-changes=check.
const changeEngine = "ww-changes"

// registerChanges installs the change watcher on a driver: every browser
// context created on it afterwards has it in every document.
func registerChanges(p *pw.Playwright) error {
	return registerEngine(p, changeEngine, changesJS)
}

// registerEngine installs the selector engine name, of source js, on a
// driver, to run in Playwright's isolated world of every document (out
// of the page's reach).
func registerEngine(p *pw.Playwright, name, js string) error {
	js = compactJS(js)
	return p.Selectors.Register(name, pw.Script{Content: &js}, pw.SelectorsRegisterOptions{ContentScript: pw.Bool(true)})
}
