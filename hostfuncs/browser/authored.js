// What a document's authors can set at all (visibility.js): a property
// that no author style ever sets has its initial value on every element
// the user agent's own style sheet leaves alone, so the judge need not
// read it there (reading computed styles is most of the pass's time on a
// large page). authoredOf answers, once a pass, which of the properties
// the judge reads no author sets (skip: property -> true), and plain(e),
// whether element e takes them all from nobody but the author: null when
// in doubt, and the judge reads every property, as it always did.
//
// Doubt is: a style sheet whose rules cannot be read (another origin's)
// unless the host saw it fail to load (no response: it applies nothing;
// globalThis.__wwFailedSheets, set by the walk's question, prejudge.go),
// an `all` declaration, an element in full screen (and, for speed, more
// declarations than twice the elements). Every readable rule
// counts, whatever its media, layer or selector (nested rules, imports,
// keyframes, adopted sheets), and every running animation's keyframes.
// An element is not plain when its own attributes may set one (style,
// bgcolor and background; the user agent's rules for hidden, popover and
// focus), when it is not one of the HTML elements the user agent's sheet
// gives none of these properties (plainTags: a test holds the list against
// the browser's own values), or when a shadow tree's rules may reach it
// (a shadow host, an element slotted into one, anything in a shadow
// tree; a custom element's children, which a closed shadow root may
// slot).
const plainTags = new Set(("div span p a b i u s em strong small big code kbd samp var tt cite q abbr acronym dfn sup sub " +
	"time bdi bdo ins del data nobr font center br wbr label li ul ol dl dt dd menu dir table caption thead tbody tfoot tr td th " +
	"h1 h2 h3 h4 h5 h6 hgroup section article nav header footer main aside figure figcaption blockquote address pre form search").split(" "));
// skipped: the properties the judge may skip: the value it then takes
// (what getComputedStyle answers for the initial value: a test holds it
// against the browser's), and their names in the cascade (longhands).
const skipped = {
	opacity: ["1", "opacity"], filter: ["none", "filter"], mixBlendMode: ["normal", "mix-blend-mode"],
	maskImage: ["none", "mask-image", "-webkit-mask-image"], contain: ["none", "contain"], contentVisibility: ["visible", "content-visibility"],
	position: ["static", "position"], clipPath: ["none", "clip-path"], clip: ["auto", "clip"], overflow: ["visible", "overflow-x", "overflow-y"],
	backgroundColor: ["rgba(0, 0, 0, 0)", "background-color"], backgroundImage: ["none", "background-image"], rotate: ["none", "rotate"],
	transform: ["none", "transform"], boxShadow: ["none", "box-shadow"], outlineStyle: ["none", "outline-style"],
	// Inherited: skipped only on an element all of whose ancestors are
	// plain too (or the root and body with no attribute above).
	visibility: ["visible", "visibility"], webkitTextSecurity: ["none", "-webkit-text-security"],
};
const initial = Object.fromEntries(Object.entries(skipped).map(([p, [v]]) => [p, v]));
// tagDisplay: the display the user agent's sheet gives each plain tag
// (a test holds it against the browser's): an element takes it unread
// where no author sets display, float or position (nothing blockifies it)
// and all its ancestors are plain. sameSize: the plain tags whose font
// size is their parent's (not headings, small, big, sub, sup, the
// monospace ones, font, tables: quirks mode sets theirs).
const tagDisplay = {li: "list-item", table: "table", caption: "table-caption", thead: "table-header-group", tbody: "table-row-group",
	tfoot: "table-footer-group", tr: "table-row", td: "table-cell", th: "table-cell"};
for (const t of "div p ul ol dl dt dd menu dir h1 h2 h3 h4 h5 h6 hgroup section article nav header footer main aside figure figcaption blockquote address pre form search center".split(" ")) tagDisplay[t] = "block";
for (const t of plainTags) tagDisplay[t] ??= "inline";
const sameSize = new Set([...plainTags].filter(t => !/^(h[1-6]|small|big|sub|sup|code|kbd|samp|tt|pre|font|table)$/.test(t)));
// What decides an element's text fill, display and font size besides
// its parent and tag.
const inkNames = ["color", "-webkit-text-fill-color", "color-scheme"], flowNames = ["display", "float", "position"];
const sizeNames = ["font-size", "font-family", "zoom", "math-depth", "-webkit-text-size-adjust", "text-size-adjust"];
// shorthands that set one of them, as an animation's keyframes may name
// them (a rule's declarations list longhands).
const shorthands = {background: ["background-color", "background-image"], overflow: ["overflow-x", "overflow-y"],
	mask: ["mask-image"], "-webkit-mask": ["-webkit-mask-image"], outline: ["outline-style"]};
const authoredOf = doc => {
	if (doc.fullscreenElement) return null;
	const set = new Set();
	let doubt = false;
	// The scan costs a call a declaration, and saves a few an element: on
	// a page of many more rules than elements it would cost more than it
	// saves, and stops (as a doubt).
	let budget = 2 * doc.getElementsByTagName("*").length;
	const decl = st => {
		const n = st.length;
		if ((budget -= n) < 0) { doubt = true; return; }
		for (let i = 0; i < n; i++) set.add(st.item(i));
	};
	const rules = list => {
		for (const r of list) {
			if (doubt) return;
			if (r.style) decl(r.style);
			if (r.styleSheet) sheet(r.styleSheet);
			if (r.cssRules) rules(r.cssRules);
		}
	};
	const fs = globalThis.__wwFailedSheets, failed = fs && fs.doc === doc ? fs.urls : null;
	const blank = sh => failed !== null && !!sh.href && failed.has(sh.href);
	const sheet = sh => { try { rules(sh.cssRules); } catch { if (!blank(sh)) doubt = true; } };
	// A sheet that cannot be read, or more rules than elements, is looked
	// for first: it ends the scan before any rule is read.
	const sheets = [...doc.styleSheets, ...(doc.adoptedStyleSheets || [])];
	let top = 0;
	for (const sh of sheets) { try { top += sh.cssRules.length; } catch { if (!blank(sh)) return null; } }
	if (top > budget / 2) return null;
	for (const sh of sheets) sheet(sh);
	if (doubt || set.has("all")) return null;
	for (const a of doc.getAnimations()) {
		for (const k of a.effect && a.effect.getKeyframes ? a.effect.getKeyframes() : []) {
			for (const key of Object.keys(k)) {
				const p = key.replace(/[A-Z]/g, c => "-" + c.toLowerCase());
				for (const n of shorthands[p] || [p]) set.add(n);
			}
		}
	}
	if (set.has("all")) return null;
	const skip = {};
	for (const [p, [, ...names]] of Object.entries(skipped)) skip[p] = !names.some(n => set.has(n));
	// A style attribute counts where it sets one of the properties the
	// judge skips or takes from the parent (most set margins or widths).
	const watched = new Set(["all", ...inkNames, ...flowNames, ...sizeNames]);
	for (const [, ...names] of Object.values(skipped)) for (const n of names) watched.add(n);
	const odd = new Set(doc.querySelectorAll("[hidden], [popover], [bgcolor], [background], [color]"));
	for (const e of doc.querySelectorAll("[style]")) {
		const st = e.style;
		for (let i = 0; i < st.length; i++) if (watched.has(st.item(i))) { odd.add(e); break; }
	}
	const active = doc.activeElement, XHTML = "http://www.w3.org/1999/xhtml";
	// kidsOf(e): whether e's own children may be plain (e is in the
	// document's tree, hosts no shadow root and is no custom element; a
	// plain e is all three). plain(e, parent): e, walked under such a
	// parent, is plain; it must be the parent's own child (not slotted).
	// (A closed root the host handed over counts as any root: its :host
	// rules may set what the judge would skip. closed.js)
	const cr = globalThis.__wwClosedRoots, closedHosts = cr && cr.doc === doc && cr.roots.size ? cr.roots : null;
	const plain = (e, parent) => plainTags.has(e.localName) && e.parentNode === parent && !odd.has(e) && e !== active && e.namespaceURI === XHTML && !e.shadowRoot && !(closedHosts && closedHosts.has(e));
	const kidsOf = (e, plainSelf) => plainSelf || !e.shadowRoot && !(closedHosts && closedHosts.has(e)) && !e.localName.includes("-") && e.getRootNode() === doc;
	const bare = e => !odd.has(e);
	// inks: a plain element's text fill is its parent's (it inherits and
	// nothing sets it: no author's colour, fill or colour scheme; the user
	// agent's link colour is a link's own, read).
	const inks = !inkNames.some(n => set.has(n));
	const flows = !flowNames.some(n => set.has(n)), sizes = !sizeNames.some(n => set.has(n));
	return {skip, plain, kidsOf, bare, inks, flows, sizes};
};
