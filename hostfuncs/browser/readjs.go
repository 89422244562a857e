package browser

// visibleDOMJS returns the page's visible DOM as HTML, for the host to
// find the main content in (readable.go): {title, html, hidden}. Called
// with probe true it only says whether the page shows text yet, for the
// host's bounded wait (hidden: the page holds text but shows none).
//
// Text a person cannot see is not content, whatever hides it (hidden text
// is a channel for prompt injection): each text node is judged, in the
// same single pass, by the computed style of its element and what its
// ancestors pass down (display, content-visibility, visibility, the
// product of opacities, aria-hidden, closed details), by its colour's
// contrast with the background colours beneath it (below 1.5:1 is
// unreadable; a background image makes it unknown, so the text stays),
// and by the boxes of its text (one getClientRects a node): a box must be
// at least 2x4 px after the clipping by overflow, clip and clip-path of
// its ancestors, within the document's scrollable area (or the viewport,
// in a fixed box), so zero size, scale(0), text-indent and off-screen
// positions, font-size 0 and screen-reader-only clipping are dropped.
// Text below the fold or inside a scroller stays: a scroll shows it. What
// is not seen is not written into the HTML at all, so nothing the host
// does with it afterwards can bring hidden text back.
const visibleDOMJS = `(probe) => {
	// Left out whatever it holds: controls, code, menus, navigation, side
	// columns, forms (unless the form holds the page: some sites wrap all
	// of it in one) and the page's own footer. Headers stay: the page's
	// title is often in one, and the scoring drops the rest.
	const skip = "nav, aside, form:not(:has(main, article, [role=main], p ~ p ~ p)), button, select, textarea, input, option, script, style, noscript, template, iframe, object, embed, dialog:not([open]), " +
		"[role=navigation], [role=contentinfo], [role=search], [role=complementary], [role=menu], [role=menubar]";
	const pageFooter = e => e.tagName === "FOOTER" && !e.parentElement.closest("article, section, main, [role=main]");
	const modal = document.querySelector("dialog:modal, [aria-modal=true]");
	// What a person can see: every text node is judged by the element it
	// sits in (its style, and what its ancestors pass down) and by the
	// boxes its text is laid out in.
	const INF = 1e9, MIN_W = 2, MIN_H = 4, MIN_OPACITY = 0.1, MIN_CONTRAST = 1.5;
	const cut = (a, b) => ({l: Math.max(a.l, b.l), t: Math.max(a.t, b.t), r: Math.min(a.r, b.r), b: Math.min(a.b, b.b)});
	const box = r => ({l: r.left, t: r.top, r: r.right, b: r.bottom});
	const html = document.documentElement, body = document.body;
	const hs = getComputedStyle(html), bs = body ? getComputedStyle(body) : hs;
	// The viewport's overflow is html's, else body's (propagated): it does
	// not clip to either box. Nothing left of or above the document can be
	// scrolled to; its scroll size holds everything else, except what is
	// right of the viewport when its horizontal overflow is hidden. (A
	// document not laid out yet has no size: nothing is cut by it.)
	const vpStyle = hs.overflowX !== "visible" || hs.overflowY !== "visible" ? hs : bs;
	const vw = innerWidth || html.clientWidth || INF, vh = innerHeight || html.clientHeight || INF;
	// The document's area and the viewport, in viewport coordinates.
	const docArea = {l: -scrollX, t: -scrollY, r: vpStyle.overflowX !== "visible" ? vw - scrollX : INF, b: INF};
	const viewport = {l: 0, t: 0, r: vw, b: vh};

	const rgba = s => {
		const m = /^rgba?\(([\d.]+),? ([\d.]+),? ([\d.]+)(?:,? \/? ?([\d.]+)(%?))?\)$/.exec(s);
		if (!m) return null;
		let a = m[4] === undefined ? 1 : +m[4];
		if (m[5]) a /= 100;
		return [+m[1], +m[2], +m[3], a];
	};
	const over = (c, a, bg) => [0, 1, 2].map(i => a * c[i] + (1 - a) * bg[i]);
	const lum = c => {
		const f = v => (v /= 255) <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
		return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
	};
	const contrast = (a, b) => {
		const x = lum(a), y = lum(b);
		return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
	};
	// backgrounds: what an element's own background paints over the
	// colours below it; null when it paints an image (no colour known).
	const backgrounds = (s, below) => {
		const bc = s.backgroundColor, img = s.backgroundImage;
		if (bc === "rgba(0, 0, 0, 0)" && img === "none") return below;
		const c = rgba(bc);
		const paints = c && c[3] > 0, imaged = img && img !== "none";
		if (!paints && !imaged) return below;
		let out = below;
		if (paints) out = c[3] >= 1 ? [c] : out && out.map(b => over(c, c[3], b));
		if (imaged) {
			if (/url\(|image-set\(|element\(|cross-fade\(/.test(img)) return null;
			const stops = (img.match(/rgba?\([^)]*\)/g) || []).map(rgba).filter(Boolean);
			if (out) out = out.concat(...stops.map(st => out.map(b => over(st, st[3], b))));
		}
		return out;
	};
	// len resolves a computed length against a size (percentages).
	const len = (v, size) => v.endsWith("%") ? parseFloat(v) * size / 100 : parseFloat(v);
	// clipShape is the box, in viewport coordinates, that an element's
	// clip-path or clip leaves of its border box r; null when it is not
	// known (url(), calc()), so nothing is cut.
	const clipShape = (s, r) => {
		const w = r.right - r.left, h = r.bottom - r.top;
		let out = box(r);
		const cp = s.clipPath;
		if (cp && cp !== "none" && !cp.includes("url(") && !cp.includes("calc(")) {
			const args = (cp.match(/\(([^)]*)\)/) || [, ""])[1].split(/\s+round\s+/)[0];
			const fn = cp.slice(0, cp.indexOf("("));
			const ps = args.split(/[\s,]+/).filter(Boolean);
			if (fn === "inset") {
				const [t, rr = t, b = t, l = rr] = ps;
				out = cut(out, {l: r.left + len(l, w), t: r.top + len(t, h), r: r.right - len(rr, w), b: r.bottom - len(b, h)});
			} else if (fn === "rect") {
				const [t, rr, b, l] = ps.map((v, i) => v === "auto" ? null : len(v, i % 2 ? w : h));
				out = cut(out, {l: r.left + (l ?? 0), t: r.top + (t ?? 0), r: r.left + (rr ?? w), b: r.top + (b ?? h)});
			} else if (fn === "xywh") {
				const [x, y, ww, hh] = ps.map((v, i) => len(v, i % 2 ? h : w));
				out = cut(out, {l: r.left + x, t: r.top + y, r: r.left + x + ww, b: r.top + y + hh});
			} else if (fn === "circle" || fn === "ellipse") {
				const at = ps.indexOf("at");
				const radii = (at < 0 ? ps : ps.slice(0, at)).filter(v => /^[\d.]/.test(v));
				const diag = Math.sqrt(w * w + h * h) / Math.SQRT2;
				const rx = radii.length ? len(radii[0], fn === "circle" ? diag : w) : INF;
				const ry = radii.length > 1 ? len(radii[1], h) : rx;
				if (rx < 1 || ry < 1) return {l: 0, t: 0, r: 0, b: 0};
			} else if (fn === "polygon" || fn === "path") {
				const nums = args.replace(/^\s*(nonzero|evenodd),/, "").match(/-?[\d.]+%?/g) || [];
				const xs = nums.filter((_, i) => i % 2 === 0).map(v => len(v, w)), ys = nums.filter((_, i) => i % 2).map(v => len(v, h));
				if (xs.length < 3 || Math.max(...xs) - Math.min(...xs) < 1 || Math.max(...ys) - Math.min(...ys) < 1) return {l: 0, t: 0, r: 0, b: 0};
			}
		}
		const c = s.clip;
		if ((s.position === "absolute" || s.position === "fixed") && c && c.startsWith("rect(")) {
			const [t, rr, b, l] = c.slice(5, -1).split(/[\s,]+/).map(v => v === "auto" ? null : parseFloat(v));
			out = cut(out, {l: r.left + (l ?? 0), t: r.top + (t ?? 0), r: r.left + (rr ?? w), b: r.top + (b ?? h)});
		}
		return out;
	};
	const filterOpacity = f => {
		let o = 1;
		if (f && f !== "none") for (const m of f.matchAll(/opacity\(([\d.]+)(%?)\)/g)) o *= m[2] ? m[1] / 100 : +m[1];
		return o;
	};

	// enter computes what an element passes to its content, or null when
	// none of its content can be seen. The context holds the opacity
	// product, the background colours below (null: an image), the box
	// that clips the content and the boxes that clip absolutely and fixed
	// positioned descendants (their clipping starts at their containing
	// block), and whether the content is positioned over other boxes
	// without a background of its own.
	const scrolls = v => v === "auto" || v === "scroll";
	const enter = (e, s, ctx, chain) => {
		if (s.display === "none" || s.contentVisibility === "hidden") return null;
		// aria-hidden on html or body, or on what holds the page behind an
		// open modal, is the modal's doing, not hidden content.
		if (!chain && e.getAttribute("aria-hidden") === "true" && !(modal && !e.contains(modal))) return null;
		const filter = s.filter, filtered = filter !== "none";
		let opacity = ctx.opacity * +s.opacity;
		if (filtered) opacity *= filterOpacity(filter);
		if (opacity < MIN_OPACITY) return null;
		const pos = s.position;
		let clip = pos === "absolute" ? ctx.absClip : pos === "fixed" ? ctx.fixedClip : ctx.clip;
		const cp = s.clipPath, shaped = cp !== "none" || ((pos === "absolute" || pos === "fixed") && s.clip !== "auto");
		const overflow = e === html || (e === body && vpStyle === bs) ? "visible" : s.overflow;
		if (shaped || overflow !== "visible") {
			const r = e.getBoundingClientRect();
			if (shaped) clip = cut(clip, clipShape(s, r));
			if (overflow !== "visible") {
				// Hidden overflow clips to the box; a scroller shows all
				// it holds, a scroll away, when it shows anything at all.
				const [ox, oy = ox] = overflow.split(" ");
				const b = cut(clip, box(r));
				const open = b.r - b.l >= MIN_W && b.b - b.t >= MIN_H && e.clientWidth >= MIN_W && e.clientHeight >= MIN_H;
				const l = r.left - e.scrollLeft, t = r.top - e.scrollTop;
				const next = {...clip};
				if (ox !== "visible") [next.l, next.r] = scrolls(ox) ? (open ? [l, l + e.scrollWidth] : [0, 0]) : [b.l, b.r];
				if (oy !== "visible") [next.t, next.b] = scrolls(oy) ? (open ? [t, t + e.scrollHeight] : [0, 0]) : [b.t, b.b];
				clip = next;
			}
		}
		const bgs = backgrounds(s, ctx.bgs);
		const own = bgs !== ctx.bgs;
		const transformed = s.transform !== "none";
		return {
			opacity, clip,
			absClip: pos !== "static" || transformed ? clip : ctx.absClip,
			fixedClip: transformed || filtered ? clip : ctx.fixedClip,
			bgs,
			overlaid: !own && (ctx.overlaid || pos === "absolute" || pos === "fixed"),
			// text colours judged against these backgrounds and opacity
			legible: own || opacity !== ctx.opacity ? new Map() : ctx.legible,
		};
	};

	// legible: whether an element's text shows, in its visibility and
	// size (0: never) and in its colour against the backgrounds below it
	// (false: too faint, unless something beneath it shows it up).
	const legible = (s, ctx) => {
		if (s.visibility !== "visible" || parseFloat(s.fontSize) < MIN_H) return 0;
		if (!ctx.bgs) return true;
		// A shadow or an outline may be what shows the text; a blend mode
		// makes its colour unknown.
		const shadow = s.textShadow;
		if (shadow !== "none" && (shadow.match(/rgba?\([^)]*\)/g) || []).some(c => rgba(c)?.[3] > 0)) return true;
		if (s.webkitTextStrokeWidth !== "0px" || s.mixBlendMode !== "normal") return true;
		const fill = s.webkitTextFillColor || s.color;
		let ok = ctx.legible.get(fill);
		if (ok === undefined) {
			const c = rgba(fill), a = c && c[3] * ctx.opacity;
			ok = !c || ctx.bgs.some(b => contrast(over(c, a, b), b) >= MIN_CONTRAST);
			ctx.legible.set(fill, ok);
		}
		return ok;
	};
	// under: for faint text in a positioned box, whether something it
	// shows against is painted beneath its centre (an image, or a
	// background of enough contrast).
	const under = (e, rect, s) => {
		const x = (rect.left + rect.right) / 2, y = (rect.top + rect.bottom) / 2;
		if (x < 0 || y < 0 || x >= vw || y >= vh) return false;
		const c = rgba(s.webkitTextFillColor || s.color);
		for (const u of document.elementsFromPoint(x, y)) {
			if (u === e || u.contains(e)) continue;
			if (/^(IMG|VIDEO|CANVAS|PICTURE|IFRAME|svg|OBJECT|EMBED)$/.test(u.tagName)) return true;
			const us = getComputedStyle(u);
			if (us.backgroundImage !== "none") return true;
			const b = rgba(us.backgroundColor);
			if (b && b[3] > 0.5) return !!c && contrast(c, b) >= MIN_CONTRAST;
		}
		return false;
	};
	// laidOut: the first box of a text node's text that shows inside the
	// clip, at least MIN_W x MIN_H, else null.
	const range = document.createRange();
	const laidOut = (n, clip) => {
		range.selectNodeContents(n);
		for (const r of range.getClientRects()) {
			const v = cut(clip, box(r));
			if (v.r - v.l >= MIN_W && v.b - v.t >= MIN_H) return r;
		}
		return null;
	};

	const base = {opacity: 1, clip: docArea, absClip: docArea, fixedClip: viewport, bgs: [[255, 255, 255, 1]], overlaid: false, legible: new Map()};
	const el = body || html;
	let top = base;
	for (const a of el === html ? [html] : [html, el]) {
		top = top && enter(a, getComputedStyle(a), top, true);
	}
	// The page's visible DOM as HTML: the elements the walk enters, with
	// the attributes the scoring reads (id, class, role, itemprop, rel, and
	// whether a link stays on the page), and only the text a person sees.
	// A line break marks where a block starts and ends; the text's own
	// white space is one space.
	const esc = s => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
	const XHTML = "http://www.w3.org/1999/xhtml";
	// Tags whose content the HTML parser reads as raw text, or that would
	// restart the document, are written as neutral boxes.
	const raw = /^(plaintext|xmp|noembed|noframes|title|textarea|script|style|noscript|template|frameset|frame|html|head|body|select|option|optgroup|table|caption|colgroup|col|thead|tbody|tfoot|tr|td|th)$/;
	const tables = /^(table|caption|thead|tbody|tfoot|tr|td|th)$/;
	const tagOf = (n, d) => {
		const t = n.localName;
		if (n.namespaceURI === XHTML && /^[a-z][a-z0-9-]*$/.test(t) && (!raw.test(t) || tables.test(t) && tableOK(n, d))) return t;
		return d.startsWith("inline") ? "span" : "div";
	};
	// tableOK: a table part is written as itself when the layout agrees,
	// so the parser rebuilds the same table.
	const tableOK = (n, d) => ({table: /table$/, caption: /caption/, thead: /header-group/, tbody: /row-group/, tfoot: /footer-group/, tr: /^table-row$/, td: /cell/, th: /cell/})[n.localName].test(d);
	const attrs = n => {
		let a = "";
		for (const k of ["id", "class", "role", "itemprop", "rel"]) {
			const v = n.getAttribute(k);
			if (v) a += " " + k + '="' + esc(v.slice(0, 200)) + '"';
		}
		if (n.localName === "a" && n.hasAttribute("href")) a += (n.getAttribute("href").startsWith("#") ? ' href="#"' : ' href="/"');
		return a;
	};
	const out = [];
	const walk = (e, s, ctx) => {
		const closed = e.tagName === "DETAILS" && !e.open;
		const summary = closed && [...e.children].find(c => c.tagName === "SUMMARY");
		// The element's verdict on its text, judged at its first text.
		let fine;
		for (const n of (e.shadowRoot || e).childNodes) {
			if (closed && n !== summary) continue;
			if (n.nodeType === 3) {
				const t = n.textContent;
				if (!t.trim()) { out.push(" "); continue; }
				fine ??= legible(s, ctx);
				if (fine === 0 || (fine === false && !ctx.overlaid)) continue;
				const r = laidOut(n, ctx.clip);
				if (r && (fine || under(e, r, s))) {
					const w = t.replace(/\s+/g, " ");
					out.push(esc(w));
				}
				continue;
			}
			if (n.nodeType !== 1) continue;
			if (n.matches(skip) || pageFooter(n)) continue;
			if (n.tagName === "BR") { out.push("<br>\n"); continue; }
			const ns = getComputedStyle(n);
			const inner = enter(n, ns, ctx, false);
			if (!inner) continue;
			if (n.tagName === "IMG") { out.push("<img>"); continue; }
			const d = ns.display;
			const block = !d.startsWith("inline") && d !== "contents";
			const tag = tagOf(n, d);
			if (block) out.push("\n");
			out.push("<" + tag + attrs(n) + ">");
			if (d === "table-cell") out.push(" ");
			walk(n, ns, inner);
			out.push("</" + tag + ">");
			if (block) out.push("\n");
		}
	};
	if (top) walk(el, getComputedStyle(el), top);
	// Hidden until loaded: a page that holds text but shows none, or only
	// a loading word (an anti-flicker snippet's opacity 0, a body hidden
	// until a script shows it). The host waits, within a bound, for it
	// to show.
	const loading = /^(loading|chargement|cargando|laden|caricamento|carregando)?(…|\.\.\.)?$/i;
	const shown = !loading.test(out.join("").replace(/<[^>]*>/g, "").replace(/\s+/g, " ").trim().slice(0, 40));
	let holds = false;
	if (!shown && el) {
		const tw = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
		for (let n; !holds && (n = tw.nextNode());) holds = !/^(SCRIPT|STYLE|NOSCRIPT|TEMPLATE|TITLE)$/.test(n.parentNode.nodeName) && /\S/.test(n.data);
	}
	if (probe) return shown || !holds;
	return {title: document.title, html: out.join(""), hidden: !shown && holds};
}`
