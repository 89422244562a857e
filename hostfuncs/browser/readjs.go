package browser

// visibleDOMJS returns the page's visible DOM as HTML, for the host to
// find the main content in (readable/): {title, html, hidden}. Called
// with probe true it only says whether the page shows text yet, for the
// host's bounded wait (hidden: the page holds text but shows none).
//
// Text a person cannot see is not content, whatever hides it (hidden text
// is a channel for prompt injection): the walk enters elements and judges
// each text node with the visibility judge the snapshot uses
// (visibility.js: styles, boxes after clips, colours as painted, covers),
// in the same single pass; a text only partly shown keeps its shown words.
// The walk follows the flat tree (shadow roots, slotted content). What is
// not seen is not written into the HTML at all, so nothing the host does
// with it afterwards can bring hidden text back. With closed true (only
// in the isolated world: closedroots.go), the closed shadow roots the host
// handed over are entered as open ones are.
var visibleDOMJS = compactJS("(probe, closed) => {\n" + visibilityJS + closedJS + readWalkJS)

// readWalkJS is visibleDOMJS's own part, after the judge's code: the
// judge's engine runs the same walk on the judge's code it holds
// (visibilityEngineJS).
var readWalkJS = `
	// Left out whatever it holds: controls, code, menus, navigation, side
	// columns, forms (unless the form holds the page: some sites wrap all
	// of it in one) and the page's own footer. Headers stay: the page's
	// title is often in one, and the scoring drops the rest.
	const skip = "nav, aside, form:not(:has(main, article, [role=main], p ~ p ~ p)), button, select, textarea, input, option, script, style, noscript, template, iframe, object, embed, dialog:not([open]), " +
		"[role=navigation], [role=contentinfo], [role=search], [role=complementary], [role=menu], [role=menubar]";
	const pageFooter = e => e.tagName === "FOOTER" && !e.parentElement.closest("article, section, main, [role=main]");
	const J = judgeOf(document), C = closedOf(document, closed);
	const html = J.html, body = J.body;
	const children = e => {
		const sr = e.shadowRoot || C.on && C.root(e);
		if (sr) return sr.childNodes;
		if (e.localName === "slot") { const a = e.assignedNodes(); if (a.length) return a; }
		return e.childNodes;
	};
	const el = body || html;
	let top = J.base;
	for (const a of el === html ? [html] : [html, el]) {
		top = top && J.enter(a, J.style(a), top, true);
	}
	// The page's visible DOM as HTML: the elements the walk enters, with
	// the attributes the scoring reads (id, class, role, itemprop, rel, and
	// whether a link stays on the page), and only the text a person sees.
	// A line break marks where a block starts and ends; the text's own
	// white space is one space.
	const esc = s => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;");
	const XHTML = "http://www.w3.org/1999/xhtml";
	// Tags whose content the HTML parser reads as raw text, or that would
	// restart the document, are written as neutral boxes; so are custom
	// elements (a web component's host), whose names Readability does not
	// know and whose content it would leave out.
	const raw = /^(plaintext|xmp|noembed|noframes|title|textarea|script|style|noscript|template|frameset|frame|html|head|body|select|option|optgroup|table|caption|colgroup|col|thead|tbody|tfoot|tr|td|th)$/;
	const tables = /^(table|caption|thead|tbody|tfoot|tr|td|th)$/;
	const tagOf = (n, d) => {
		const t = n.localName;
		if (n.namespaceURI === XHTML && /^[a-z][a-z0-9]*$/.test(t) && (!raw.test(t) || tables.test(t) && tableOK(n, d))) return t;
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
	const out = [], texts = [];
	const replaced = /^(img|svg|canvas|video)$/;
	const walk = (e, s, ctx) => {
		const closed = e.tagName === "DETAILS" && !e.open;
		const summary = closed && [...e.children].find(c => c.tagName === "SUMMARY");
		for (const n of children(e)) {
			if (closed && n !== summary) continue;
			if (n.nodeType === 3) {
				const t = n.textContent;
				if (!t.trim()) { out.push(" "); continue; }
				const v = J.text(n, e, s, ctx);
				if (v.all) continue;
				texts.push({at: out.length, e, v});
				out.push(esc(v.hidden.length ? " " + v.kept + " " : t.replace(/\s+/g, " ")));
				continue;
			}
			if (n.nodeType !== 1) continue;
			if (n.matches(skip) || pageFooter(n)) continue;
			if (n.localName.includes("-")) C.seen(n);
			if (n.tagName === "BR") { out.push("<br>\n"); continue; }
			const ns = J.style(n);
			const inner = J.enter(n, ns, ctx, false);
			if (!inner) {
				// (The top layer it holds is none of its to hide: read
				// apart, from the document's context, below.)
				if (J.tops.size) for (const x of J.tops) if (x !== n && J.holds(n, x)) apart.add(x);
				continue;
			}
			if (replaced.test(n.localName)) J.inFlow(n, ns, ctx);
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
	// apart: the top-layer elements (an open modal dialog, a popover)
	// under an element the walk left out as hidden; each is read where
	// the walk ends, from the document's context, when it has a box.
	const apart = new Set();
	if (top) walk(el, J.style(el), top);
	for (const x of apart) {
		if (!x.getClientRects().length || x.matches(skip)) continue;
		const xs = J.fresh(x), inner = J.enter(x, xs, J.base, false);
		if (!inner) continue;
		out.push("\n<div>");
		walk(x, xs, inner);
		out.push("</div>\n");
	}
	// Text under a box painted over it (known once the whole page is
	// walked) goes too.
	if (J.painters.length) for (const x of texts) if (J.shadowed(x.e, x.v)) out[x.at] = " ";
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
	return {title: document.title, html: out.join(""), hidden: !shown && holds, candidates: C.done()};
}`
