// The visibility judge (visibility.go): what a sighted user can see of a
// document, decided from what the renderer lays out and paints. judgeOf
// returns the judge of one document; its state (computed styles, parsed
// colours) lives for one page pass. Callers walk the flat tree
// themselves, entering each element (enter) and judging each text node
// (text): the snapshot's pass (judgesnap.js) and browser_read's
// (readjs.go) use the same two functions.
// frameWin, for a frame's document, is what its page says of it, when
// anything (judgesnap.js asks again with it): the part of its viewport
// the page shows (l, t, r, b: frameWindow there, in the frame's own CSS
// pixels), the parts of that a box of the page covers (covers:
// frameCovers) and what the page does to all of it (ctx: frameContext);
// null or absent: nothing.
const judgeOf = (doc, frameWin) => {
	const win = doc.defaultView;
	const INF = 1e9, MIN_W = 2, MIN_H = 4, MIN_OPACITY = 0.1, MIN_CONTRAST = 1.5, OPAQUE = 0.9;
	const html = doc.documentElement, body = doc.body;
	const cut = (a, b) => ({l: Math.max(a.l, b.l), t: Math.max(a.t, b.t), r: Math.min(a.r, b.r), b: Math.min(a.b, b.b)});
	const box = r => ({l: r.left, t: r.top, r: r.right, b: r.bottom});
	const shows = v => v.r - v.l >= MIN_W && v.b - v.t >= MIN_H;
	const styleOf = new Map();
	// The properties no author sets, and the elements that take them from
	// no one else (authored.js): null, every property is read.
	const authored = authoredOf(doc), NOSKIP = {};
	// (ctx: the context of the element e is walked under; its kids, whether
	// that element's own children may be plain.)
	const skipOf = (e, ctx) => ctx.kids && authored.plain(e, ctx.el, true) ? authored.skip : NOSKIP;
	// still: whether e (style s, walked in context ctx) is in flow with no
	// shadow or outline that might paint over others.
	const still = (e, s, ctx) => {
		const q = skipOf(e, ctx);
		if ((q.position ? initial.position : s.position) !== "static" || (q.boxShadow ? initial.boxShadow : s.boxShadow) !== "none" || (q.outlineStyle ? initial.outlineStyle : s.outlineStyle) !== "none") return false;
		// (An atomic box with a background paints over the text before it.)
		if ((q.backgroundColor ? initial.backgroundColor : s.backgroundColor) === initial.backgroundColor && (q.backgroundImage ? initial.backgroundImage : s.backgroundImage) === "none") return true;
		return !atomic(s, ctx, s.display);
	};
	// atomic: whether an element in flow paints its background and
	// content as one, in document order (CSS 2's painting order, step 7:
	// an inline block, or a flex or grid item, which paint as inline
	// blocks do), or as a float ("float": step 5, before text in flow).
	const itemOf = d => d === "flex" || d === "inline-flex" || d === "grid" || d === "inline-grid";
	const atomic = (s, ctx, display) => s.float !== "none" ? "float" : itemOf(ctx.display) || /^inline-(block|flex|grid|table)$/.test(display) ? "atomic" : null;
	const style = (e, pseudo) => {
		if (pseudo) return win.getComputedStyle(e, pseudo);
		let s = styleOf.get(e);
		if (!s) styleOf.set(e, s = win.getComputedStyle(e));
		return s;
	};
	const hs = style(html), bs = body ? style(body) : hs;
	const vpStyle = hs.overflowX !== "visible" || hs.overflowY !== "visible" ? hs : bs;
	const vw = win.innerWidth || html.clientWidth || INF, vh = win.innerHeight || html.clientHeight || INF;
	// Nothing left of or above the document can be scrolled to; right of
	// the viewport neither when the horizontal overflow is hidden.
	const docArea = {l: -win.scrollX, t: -win.scrollY, r: vpStyle.overflowX !== "visible" && vpStyle.overflowX !== "auto" && vpStyle.overflowX !== "scroll" ? vw - win.scrollX : INF, b: INF};
	const viewport = {l: 0, t: 0, r: vw, b: vh};
	// The colour scheme a box is painted in (color-scheme: dark, or the
	// page's <meta name="color-scheme"> where the property is normal;
	// "light dark" takes the preferred one): a dark root's canvas, which
	// no computed background says, is dark (Chromium's #121212).
	const metaScheme = (() => { const m = doc.querySelector('meta[name="color-scheme" i]'); return m ? (m.getAttribute("content") || "").toLowerCase() : ""; })();
	let prefersDark;
	const usedDark = cs => {
		let w = (cs || "normal").toLowerCase().split(/[\s,]+/);
		if (w[0] === "normal") w = metaScheme.split(/[\s,]+/);
		if (!w.includes("dark")) return false;
		prefersDark ??= !!(win.matchMedia && win.matchMedia("(prefers-color-scheme: dark)").matches);
		return !w.includes("light") || prefersDark;
	};
	const canvasOf = dark => dark ? [18, 18, 18, 1] : [255, 255, 255, 1];
	// In a frame its parent shows only part of (a short box that clips a
	// tall frame, a frame partly out of a clipped one), what shows of the
	// document is what can be scrolled into that part: from its top left
	// to its bottom right pushed by as far as the document scrolls.
	const fw = frameWin && frameWin.r > frameWin.l ? frameWin : null;
	const reach = fw && {l: fw.l - win.scrollX, t: fw.t - win.scrollY,
		r: fw.r + Math.max(0, Math.max(html.scrollWidth, body ? body.scrollWidth : 0) - vw) - win.scrollX,
		b: fw.b + Math.max(0, Math.max(html.scrollHeight, body ? body.scrollHeight : 0) - vh) - win.scrollY};
	const frameArea = reach ? cut(docArea, reach) : docArea, frameView = fw ? cut(viewport, fw) : viewport;

	// Colours as the browser resolves them: computed values may be rgb(),
	// color(srgb|display-p3 ...), lab(), oklch()... A 1x1 canvas draws any
	// of them and reads back sRGB bytes; each value is drawn once.
	let cx = null;
	const colours = new Map();
	const rgba = v => {
		if (!v || v === "none") return null;
		let c = colours.get(v);
		if (c !== undefined) return c;
		const m = /^rgba?\(([\d.]+),? ([\d.]+),? ([\d.]+)(?:,? \/? ?([\d.]+)(%?))?\)$/.exec(v);
		if (m) {
			let a = m[4] === undefined ? 1 : +m[4];
			if (m[5]) a /= 100;
			c = [+m[1], +m[2], +m[3], a];
		} else {
			try {
				cx ??= new OffscreenCanvas(1, 1).getContext("2d", {willReadFrequently: true});
				cx.clearRect(0, 0, 1, 1);
				cx.fillStyle = "rgba(0,0,0,0)";
				cx.fillStyle = v;
				cx.fillRect(0, 0, 1, 1);
				const d = cx.getImageData(0, 0, 1, 1).data;
				c = d[3] ? [d[0] * 255 / d[3], d[1] * 255 / d[3], d[2] * 255 / d[3], d[3] / 255] : [0, 0, 0, 0];
			} catch { c = null; }
		}
		colours.set(v, c);
		return c;
	};
	const colourList = v => (v.match(/(?:rgba?|color|lab|lch|oklab|oklch|hsla?|hwb)\([^()]*(?:\([^()]*\)[^()]*)*\)|transparent|#[0-9a-f]{3,8}\b/gi) || []).map(rgba).filter(Boolean);
	const over = (c, a, bg) => [0, 1, 2].map(i => a * c[i] + (1 - a) * bg[i]);
	const lum = c => {
		const f = v => (v = Math.min(255, Math.max(0, v)) / 255) <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
		return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]);
	};
	const contrast = (a, b) => {
		const x = lum(a), y = lum(b);
		return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
	};
	// Filters that change colours, as functions of a colour; opacity()
	// and blur() are kept apart (the opacity product, the blur radius).
	const NOFILTER = {fx: [], opacity: 1, blur: 0, shadow: false};
	const filterOf = (f, e) => {
		if (!f || f === "none") return NOFILTER;
		const out = {fx: [], opacity: 1, blur: 0, shadow: false};
		for (const m of f.matchAll(/([a-z-]+)\(([^()]*(?:\([^()]*\)[^()]*)*)\)/g)) {
			const fn = m[1], arg = m[2].trim(), n = arg.endsWith("%") ? parseFloat(arg) / 100 : parseFloat(arg);
			const k = isNaN(n) ? 1 : n;
			if (fn === "opacity") out.opacity *= Math.min(1, k);
			else if (fn === "blur") out.blur += parseFloat(arg) || 0;
			else if (fn === "brightness") out.fx.push(c => c.map(v => v * k));
			else if (fn === "contrast") out.fx.push(c => c.map(v => (v - 127.5) * k + 127.5));
			else if (fn === "invert") out.fx.push(c => c.map(v => v * (1 - Math.min(1, k)) + (255 - v) * Math.min(1, k)));
			else if (fn === "grayscale") { const g = Math.min(1, k); out.fx.push(c => { const y = 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]; return c.map(v => v * (1 - g) + y * g); }); }
			else if (fn === "drop-shadow") out.shadow = colourList(arg).some(c => c[3] > 0.3);
			else if (fn === "url") svgFilter(arg, out, e);
		}
		return out;
	};
	// svgFilter reads a filter by reference to an SVG filter of the
	// document by what each primitive makes of what it is given: the
	// element's own painting (SRC: its text, maybe recoloured, blurred,
	// shadowed or moved a little), nothing (NOTHING), or paint that is
	// not the element's (OTHER: a flood, an image, noise, lighting). The
	// filter shows the text only when its last primitive's result is the
	// element's own painting: a flood over the text, an erosion that eats
	// its strokes, an offset out of the filter's region, alpha zeroed or
	// a region of no size hide it (opacity 0). The blur of the result
	// that shows adds to the blur (a blurred copy under the text, a glow,
	// does not). Primitives it does not know are taken to paint over the
	// text.
	const SRC = {k: "src", blur: 0}, NOTHING = {k: "none", blur: 0}, OTHER = {k: "other", blur: 0};
	const svgFilter = (arg, out, e) => {
		const m = /#([^"')]+)/.exec(arg), f = m && doc.getElementById(m[1]);
		if (!f || f.localName !== "filter") return;
		const zero = x => { const v = x.getAttribute("width"), h = x.getAttribute("height"); return v !== null && parseFloat(v) <= 0 || h !== null && parseFloat(h) <= 0; };
		if (zero(f)) { out.opacity = 0; return; }
		const res = new Map();
		let last = null, bb = null;
		const size = () => bb ??= e ? e.getBoundingClientRect() : {width: INF, height: INF};
		const num = (x, a, d) => { const v = parseFloat(x.getAttribute(a)); return isNaN(v) ? d : v; };
		const nums = (x, a) => (x.getAttribute(a) || "0").trim().split(/[\s,]+/).map(parseFloat).map(v => isNaN(v) ? 0 : v);
		const from = (x, a) => {
			const v = x.getAttribute(a);
			if (!v) return last ?? SRC;
			if (v === "SourceGraphic" || v === "SourceAlpha") return SRC;
			if (res.has(v)) return res.get(v);
			return /^(BackgroundImage|BackgroundAlpha|FillPaint|StrokePaint)$/.test(v) ? OTHER : last ?? SRC;
		};
		// over: what shows of a on top of b; src: whether either is the
		// element's own painting (the one on top, if both).
		const over = (a, b) => a.k === "none" ? b : a;
		const src = (a, b) => a.k === "src" ? a : b.k === "src" ? b : over(a, b);
		for (const x of f.children) {
			const n = x.localName;
			if (!n.startsWith("fe")) continue;
			let r;
			const i1 = from(x, "in");
			if (n === "feGaussianBlur") r = i1.k === "src" ? {k: "src", blur: i1.blur + Math.max(...nums(x, "stdDeviation"), 0) * 2} : i1;
			else if (n === "feColorMatrix") {
				const v = (x.getAttribute("values") || "").trim().split(/[\s,]+/).map(parseFloat);
				r = (x.getAttribute("type") || "matrix") === "matrix" && v.length === 20 && v.slice(15).every(k => Math.abs(k) < 0.02) ? NOTHING : i1;
			} else if (n === "feComponentTransfer") {
				r = i1;
				const a = x.querySelector("feFuncA");
				if (a) {
					const type = a.getAttribute("type"), tv = (a.getAttribute("tableValues") || "").trim().split(/[\s,]+/).map(parseFloat);
					if ((type === "table" || type === "discrete") && tv.length && tv.every(k => Math.abs(k) < 0.02)) r = NOTHING;
					if (type === "linear" && Math.abs(parseFloat(a.getAttribute("slope") ?? "1")) < 0.02 && Math.abs(parseFloat(a.getAttribute("intercept") || "0")) < 0.02) r = NOTHING;
				}
			} else if (n === "feOffset") {
				// The filter's region reaches a tenth of the box past each side.
				const b = size();
				r = Math.abs(num(x, "dx", 0)) >= b.width * 1.2 || Math.abs(num(x, "dy", 0)) >= b.height * 1.2 ? NOTHING : i1;
			} else if (n === "feMorphology") r = x.getAttribute("operator") === "erode" && Math.min(...nums(x, "radius")) >= 1 ? NOTHING : i1;
			else if (n === "feFlood") {
				const xs = style(x), c = rgba(xs.floodColor), o = parseFloat(xs.floodOpacity);
				r = (c ? c[3] : 1) * (isNaN(o) ? 1 : o) < 0.05 ? NOTHING : OTHER;
			} else if (n === "feMerge") {
				r = NOTHING;
				for (const k of x.children) if (k.localName === "feMergeNode") r = over(from(k, "in"), r);
			} else if (n === "feComposite") {
				const i2 = from(x, "in2"), op = x.getAttribute("operator") || "over";
				if (op === "over") r = over(i1, i2);
				// (in: i1 drawn in i2's shape; out: i1 where i2 is not; atop:
				// i1 in i2's shape, over i2.)
				else if (op === "in") r = i1.k === "none" || i2.k === "none" ? NOTHING : i2.k === "src" ? i2 : i1;
				else if (op === "out") r = i1.k === "none" ? NOTHING : i2.k === "src" ? i2 : i2.k === "other" ? NOTHING : i1;
				else if (op === "atop") r = i2.k === "none" ? NOTHING : src(i1, i2);
				else if (op === "arithmetic") {
					const k1 = num(x, "k1", 0), k2 = num(x, "k2", 0), k3 = num(x, "k3", 0), k4 = num(x, "k4", 0);
					r = k2 && i1.k === "src" ? i1 : k3 && i2.k === "src" ? i2 : k1 && i1.k !== "none" && i2.k !== "none" ? src(i1, i2) : k4 > 0.05 ? OTHER : NOTHING;
				} else r = src(i1, i2); // xor, lighter
			} else if (n === "feBlend") {
				const i2 = from(x, "in2");
				r = (x.getAttribute("mode") || "normal") === "normal" ? over(i1, i2) : src(i1, i2);
			} else if (n === "feDisplacementMap") r = Math.abs(num(x, "scale", 0)) >= 20 ? NOTHING : i1;
			else if (n === "feDropShadow" || n === "feTile" || n === "feConvolveMatrix") r = i1;
			else r = OTHER; // feImage, feTurbulence, lighting, unknown
			if (zero(x)) r = NOTHING;
			last = r;
			const name = x.getAttribute("result");
			if (name) res.set(name, r);
		}
		// (A filter with no primitive is drawn as if none.)
		if (last && last.k !== "src") out.opacity = 0;
		else if (last) out.blur += last.blur;
	};
	const paint = (fx, c) => fx.reduce((v, f) => f(v), c.slice(0, 3)).map(v => Math.min(255, Math.max(0, v)));
	// Blend modes (compositing's formulas), of the source colour s over
	// the backdrop b (0..255 a channel): separable ones channel by
	// channel, hue, saturation, color and luminosity on the whole colour.
	const sep = f => (s, b) => s.map((v, i) => 255 * f(v / 255, b[i] / 255));
	const hard = (s, b) => s <= 0.5 ? b * 2 * s : b + (2 * s - 1) - b * (2 * s - 1);
	const L = c => 0.3 * c[0] + 0.59 * c[1] + 0.11 * c[2];
	const clipC = c => {
		const l = L(c), n = Math.min(...c), x = Math.max(...c);
		if (n < 0) c = c.map(v => l + (v - l) * l / (l - n));
		if (x > 255) c = c.map(v => l + (v - l) * (255 - l) / (x - l));
		return c;
	};
	const setL = (c, l) => { const d = l - L(c); return clipC(c.map(v => v + d)); };
	const sat = c => Math.max(...c) - Math.min(...c);
	const setS = (c, s) => {
		const x = Math.max(...c), n = Math.min(...c);
		return c.map(v => x > n ? (v - n) * s / (x - n) : 0);
	};
	const blends = {
		multiply: sep((s, b) => s * b), screen: sep((s, b) => s + b - s * b),
		darken: sep(Math.min), lighten: sep(Math.max), difference: sep((s, b) => Math.abs(s - b)), exclusion: sep((s, b) => s + b - 2 * s * b),
		overlay: sep((s, b) => hard(b, s)), "hard-light": sep(hard),
		"color-dodge": sep((s, b) => b === 0 ? 0 : s >= 1 ? 1 : Math.min(1, b / (1 - s))),
		"color-burn": sep((s, b) => b >= 1 ? 1 : s === 0 ? 0 : 1 - Math.min(1, (1 - b) / s)),
		"soft-light": sep((s, b) => s <= 0.5 ? b - (1 - 2 * s) * b * (1 - b) : b + (2 * s - 1) * ((b <= 0.25 ? ((16 * b - 12) * b + 4) * b : Math.sqrt(b)) - b)),
		"plus-lighter": sep((s, b) => Math.min(1, s + b)), "plus-darker": sep((s, b) => Math.max(0, s + b - 1)),
		hue: (s, b) => setL(setS(s, sat(b)), L(b)), saturation: (s, b) => setL(setS(b, sat(s)), L(b)),
		color: (s, b) => setL(s, L(b)), luminosity: (s, b) => setL(b, L(s)),
	};
	// gradient stops of a background or mask image; null for url() and
	// other images whose colours are unknown.
	const stops = img => /url\(|image-set\(|element\(|cross-fade\(|paint\(/.test(img) ? null : colourList(img);
	// picture: what a picture (the URL of a background image, or an img)
	// paints, read from its pixels: {cs, opaque}, cs the colours that fill
	// at least a tenth of it (null when none does: a photograph, busy, is
	// taken to show anything), opaque whether every pixel is. null when its
	// pixels cannot be read: another origin's picture (the canvas refuses
	// it), or one not loaded (an Image of a URL the document has fetched
	// loads at once, from memory; the pass fetches nothing).
	// Sampled at most PIC px a side (the scaling averages what is finer).
	const pictures = new Map(), PIC = 24;
	let picCanvas = null;
	const picture = (url, img) => {
		let v = pictures.get(url);
		if (v !== undefined) return v;
		v = null;
		try {
			let im = img;
			// (Only a picture the document has fetched: the pass fetches
			// nothing of its own.)
			if (!im && !/^(data|blob):/.test(url) && !win.performance.getEntriesByName(url).length) return pictures.set(url, null), null;
			if (!im) { im = new Image(); im.src = url; }
			if (im.complete && im.naturalWidth > 0 && im.naturalHeight > 0) {
				const w = Math.min(im.naturalWidth, PIC), h = Math.min(im.naturalHeight, PIC);
				picCanvas ??= new OffscreenCanvas(PIC, PIC).getContext("2d", {willReadFrequently: true});
				picCanvas.clearRect(0, 0, PIC, PIC);
				picCanvas.drawImage(im, 0, 0, w, h);
				const d = picCanvas.getImageData(0, 0, w, h).data, n = w * h, bins = new Map();
				let opaque = true;
				for (let i = 0; i < d.length; i += 4) {
					if (d[i + 3] < 250) opaque = false;
					const k = (d[i] >> 5) << 9 | (d[i + 1] >> 5) << 6 | (d[i + 2] >> 5) << 3 | d[i + 3] >> 5;
					const b = bins.get(k);
					if (b) { b[0] += d[i]; b[1] += d[i + 1]; b[2] += d[i + 2]; b[3] += d[i + 3]; b[4]++; } else bins.set(k, [d[i], d[i + 1], d[i + 2], d[i + 3], 1]);
				}
				const big = [...bins.values()].filter(b => b[4] >= n / 10);
				const share = big.reduce((a, b) => a + b[4], 0);
				v = {cs: share >= n / 2 ? big.map(b => [b[0] / b[4], b[1] / b[4], b[2] / b[4], b[3] / b[4] / 255]) : null, opaque};
			} else if (!img) im.removeAttribute("src");
		} catch { v = null; }
		pictures.set(url, v);
		return v;
	};
	// layersOf: the layers of a list value (a comma at the top level
	// parts two).
	const layersOf = v => {
		const out = [];
		let d = 0, at = 0;
		for (let i = 0; i < (v || "").length; i++) {
			const ch = v[i];
			if (ch === "(") d++;
			else if (ch === ")") d--;
			else if (ch === "," && !d) { out.push(v.slice(at, i).trim()); at = i + 1; }
		}
		out.push((v || "").slice(at).trim());
		return out;
	};
	// pictured: the colours a background image (all its layers) paints,
	// as stops does, with url() pictures read (picture); null when one
	// cannot be, or is busy. tiles: whether its pictures cover the box
	// (each repeats: a picture that does not leaves what is below it
	// showing around it).
	const pictured = (img, repeat) => {
		if (!/url\(/.test(img)) return stops(img);
		if (/image-set\(|element\(|cross-fade\(|paint\(/.test(img)) return null;
		const reps = layersOf(repeat || "");
		let out = [], covers = true;
		for (const [i, layer] of layersOf(img).entries()) {
			const u = /^url\("?(.*?)"?\)$/.exec(layer);
			if (!u) { out = out.concat(colourList(layer)); continue; }
			const p = picture(u[1]);
			if (!p || !p.cs) return null;
			out = out.concat(p.cs);
			if (!p.opaque || /no-repeat/.test(reps[i % reps.length] || "")) covers = false;
		}
		// (A transparent colour among them: what is below shows.)
		if (!covers) out.push([0, 0, 0, 0]);
		return out;
	};

	// backgrounds: the colours an element's own background leaves below
	// its content, given those below it; null when it paints an image.
	const backgrounds = (s, below, fx, bgc = s.backgroundColor, img = s.backgroundImage) => {
		const c = rgba(bgc);
		const paints = c && c[3] > 0, imaged = img && img !== "none";
		if (!paints && !imaged) return below;
		if (/text/.test(s.backgroundClip || "") || /text/.test(s.webkitBackgroundClip || "")) return below;
		let out = below;
		if (paints) { const p = paint(fx, c); out = c[3] >= 1 ? [p] : out && out.map(b => over(p, c[3], b)); }
		if (imaged) {
			const st = pictured(img, /url\(/.test(img) ? s.backgroundRepeat : "");
			if (!st) return null;
			// An opaque gradient hides what is below it.
			if (st.length && st.every(x => x[3] >= 1)) out = st.map(x => paint(fx, x));
			else if (out) out = out.concat(...st.map(x => out.map(b => over(paint(fx, x), x[3], b))));
		}
		return out;
	};
	// len resolves a computed length against a size: px, %, and calc()
	// sums of them (written calc(a~+~b) by clipShape, one token).
	const len = (v, size) => {
		if (v.startsWith("calc(")) {
			let sum = 0, sign = 1;
			for (const t of v.slice(5, -1).split("~").filter(Boolean)) {
				if (t === "+" || t === "-") sign = t === "-" ? -1 : 1;
				else sum += sign * len(t, size);
			}
			return sum;
		}
		return v.endsWith("%") ? parseFloat(v) * size / 100 : parseFloat(v);
	};
	// refClip: a clip-path by reference to a clipPath none of whose shapes
	// has area where the element is (in the clip's units: the element's
	// user space, or its box as 0..1) clips all; any other, nothing. A
	// shape with a transform of its own is taken to show.
	const refClip = (cp, out, e) => {
		const m = /url\("?[^"#)]*#([^")]+)"?\)/.exec(cp), c = m && doc.getElementById(m[1]);
		if (!c || c.localName !== "clipPath") return out;
		const obb = c.getAttribute("clipPathUnits") === "objectBoundingBox";
		let eb = obb ? {l: 0, t: 0, r: 1, b: 1} : {l: 0, t: 0, r: out.r - out.l, b: out.b - out.t}, min = obb ? 0.001 : 1;
		if (!obb && e.namespaceURI === SVG) {
			try { const b = e.getBBox(); eb = {l: b.x, t: b.y, r: b.x + b.width, b: b.y + b.height}; } catch { eb = null; }
		}
		for (const x of c.children) {
			try {
				const b = x.getBBox();
				if (!(b.width * (obb ? 1000 : 1) >= 1 && b.height * (obb ? 1000 : 1) >= 1)) continue;
				if (!eb || x.hasAttribute("transform") || c.hasAttribute("transform")) return out;
				const v = cut(eb, {l: b.x, t: b.y, r: b.x + b.width, b: b.y + b.height});
				if (v.r - v.l >= min && v.b - v.t >= min) return out;
			} catch { return out; }
		}
		return NONE;
	};
	const NONE = {l: 0, t: 0, r: 0, b: 0};
	// clipShape: the box, in viewport coordinates, that clip-path or clip
	// leaves of a border box r. A shape by reference cuts all when its
	// clipPath draws nothing (refClip); one whose lengths cannot be read
	// (nested calc()) is not cut.
	const clipShape = (s, r, e) => {
		const w = r.right - r.left, h = r.bottom - r.top;
		let out = box(r);
		const cp = s.clipPath;
		if (cp && cp.includes("url(")) return refClip(cp, out, e);
		if (cp && cp !== "none") {
			const inner = (cp.match(/\((.*)\)/) || [, ""])[1].replace(/calc\(([^()]*)\)/g, (_, x) => "calc(" + x.trim().replace(/\s+/g, "~") + ")");
			if (/calc\([^)]*\(/.test(inner)) return out;
			const args = inner.split(/\s+round\s+/)[0];
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
				if (rx < 1 || ry < 1) return NONE;
				// (Its box, where its centre is given in lengths: a circle
				// off the box clips all.)
				const cx = at < 0 ? "50%" : ps[at + 1], cy = at < 0 ? "50%" : ps[at + 2] ?? "50%";
				if (rx < INF && /^-?[\d.]/.test(cx) && /^-?[\d.]/.test(cy)) {
					const x = r.left + len(cx, w), y = r.top + len(cy, h);
					out = cut(out, {l: x - rx, t: y - ry, r: x + rx, b: y + ry});
				}
			} else if (fn === "shape") {
				// (A shape whose every coordinate is the same point draws nothing.)
				const nums = args.match(/-?[\d.]+%?/g) || [];
				if (nums.length && nums.every(v => v === nums[0])) return NONE;
			} else if (fn === "polygon" || fn === "path") {
				const nums = args.replace(/^\s*(nonzero|evenodd),/, "").match(/-?[\d.]+%?/g) || [];
				const xs = nums.filter((_, i) => i % 2 === 0).map(v => len(v, w)), ys = nums.filter((_, i) => i % 2).map(v => len(v, h));
				if (xs.length < 3 || Math.max(...xs) - Math.min(...xs) < 1 || Math.max(...ys) - Math.min(...ys) < 1) return NONE;
				// (A polygon's points are pairs: its box clips; a path's
				// commands are not read.)
				if (fn === "polygon") out = cut(out, {l: r.left + Math.min(...xs), t: r.top + Math.min(...ys), r: r.left + Math.max(...xs), b: r.top + Math.max(...ys)});
			}
		}
		const c = s.clip;
		if ((s.position === "absolute" || s.position === "fixed") && c && c.startsWith("rect(")) {
			const [t, rr, b, l] = c.slice(5, -1).split(/[\s,]+/).map(v => v === "auto" ? null : parseFloat(v));
			out = cut(out, {l: r.left + (l ?? 0), t: r.top + (t ?? 0), r: r.left + (rr ?? w), b: r.top + (b ?? h)});
		}
		return out;
	};
	// maskOpacity: 0 when a mask hides all of an element (gradients of
	// transparent stops or tiles off the box, an SVG mask drawn in black
	// or not at all, a picture alone), else 1.
	const maskOpacity = (e, s) => {
		const img = s.maskImage || s.webkitMaskImage;
		if (!img || img === "none") return 1;
		const ref = /url\("?[^"#)]*#([^")]+)"?\)/.exec(img);
		if (ref) {
			const m = doc.getElementById(ref[1]);
			if (!m || m.localName !== "mask") return 1;
			for (const x of m.querySelectorAll("*")) {
				const xs = style(x), f = rgba(xs.fill);
				if (f && f[3] * +xs.opacity * +xs.fillOpacity > 0.05 && lum(f) > 0.05) return 1;
			}
			return 0;
		}
		// An image mask (a url() of a picture) cannot be read in the pass
		// (its pixels load apart, maybe from another origin): it is taken
		// to hide, unless a gradient layer beside it shows.
		// A gradient layer shows where its colours are not transparent (by
		// luminance where mask-mode asks) and where its tile lies on the
		// box: a layer that does not repeat, sized or placed off the box,
		// masks all of it.
		const imgs = layersOf(img), sizes = layersOf(s.maskSize || s.webkitMaskSize), places = layersOf(s.maskPosition || s.webkitMaskPosition);
		const repeats = layersOf(s.maskRepeat || s.webkitMaskRepeat), modes = layersOf(s.maskMode || "match-source");
		let r = null;
		for (let i = 0; i < imgs.length; i++) {
			const st = stops(imgs[i]);
			if (!st) continue; // a picture: taken to hide
			const lumi = modes[i % modes.length] === "luminance";
			if (st.length && st.every(c => c[3] * (lumi ? lum(c) : 1) < 0.05)) continue;
			r ??= e.getBoundingClientRect();
			const [w, h] = [r.width, r.height];
			let rp = (repeats[i % repeats.length] || "repeat").split(" ");
			rp = rp[0] === "repeat-x" ? ["repeat", "no-repeat"] : rp[0] === "repeat-y" ? ["no-repeat", "repeat"] : [rp[0], rp[1] || rp[0]];
			const sz = (sizes[i % sizes.length] || "auto").split(" "), pl = (places[i % places.length] || "0% 0%").split(" ");
			const dim = (v, full) => v === undefined || v === "auto" || v === "cover" || v === "contain" ? full : len(v, full);
			const tw = dim(sz[0], w), th = dim(sz[1], h);
			const axis = (rep, t, full, at, min) => {
				if (!(t > 0)) return false;
				if (rep !== "no-repeat") return true;
				const o = len(at || "0%", full - t);
				return Math.min(full, o + t) - Math.max(0, o) >= min;
			};
			if (axis(rp[0], tw, w, pl[0], MIN_W) && axis(rp[1], th, h, pl[1], MIN_H)) return 1;
		}
		return 0;
	};
	const svgHidden = /^(defs|symbol|clipPath|mask|pattern|marker|linearGradient|radialGradient|filter|title|desc|metadata|style|script)$/;
	const modal = doc.querySelector("dialog:modal, [aria-modal=true]");
	const scrolls = v => v === "auto" || v === "scroll";
	// rotation: the rotate property's computed value ("45deg", "y 90deg",
	// "1 1 0 30deg") as a transform function.
	const rotation = v => {
		const p = v.split(" ");
		if (p.length === 2) return "rotate" + p[0].toUpperCase() + "(" + p[1] + ")";
		if (p.length === 4) return "rotate3d(" + p.join(",") + ")";
		return "rotate(" + v + ")";
	};
	const matrix = t => { try { return new DOMMatrixReadOnly(t); } catch { return null; } };

	// Painters: what paints opaque over other boxes, kept with the area
	// it paints (cut by its clip) and its place in the paint order: a
	// positioned box (relative or absolute) with an opaque background, a
	// picture, a backdrop filter that hides, an opaque positioned
	// ::before or ::after, and an opaque outer shadow spread or outline
	// of 8px or more. Judged by geometry, not hit tests: a hit test sees
	// only the viewport, and the judgement must not depend on where the
	// page is scrolled (a kept snapshot stays valid across scrolls). Fixed
	// and sticky boxes move with the scroll, so they are no painters
	// (save one over the whole viewport: cover, below).
	const painters = [];
	// The top layer (an open popover, a fullscreen element) paints above
	// every stacking context of the page, whatever its z-index. (A modal
	// dialog's backdrop is judged apart: cover.)
	const TOP = 1e9;
	let topLayer;
	try { topLayer = new Set(doc.querySelectorAll(":popover-open, :fullscreen")); } catch { topLayer = new Set(); }
	// tops: every element of the top layer, modal dialogs too. It is
	// drawn as a child of the viewport: its ancestors' opacity, filters,
	// masks, clips, transforms and 3D context do not apply to it (a modal
	// dialog inside a transparent or clipped wrapper shows whole), though
	// it inherits their inherited styles and needs a box (a display:none
	// ancestor still takes it away). enter starts it from the document's
	// own context (base).
	const tops = new Set(topLayer);
	try { for (const d of doc.querySelectorAll("dialog:modal")) tops.add(d); } catch {}
	const zOf = (s, ctx) => { const z = parseInt(s.zIndex); return isNaN(z) ? Math.max(ctx.z, 0) : z; };
	const painter = (e, s, ctx, clip, pos, opacity, inline, k, q) => {
		if (pos === "sticky") return;
		if (pos === "fixed") return fixedPainter(e, s, ctx, opacity, k);
		// A replaced element in flow (a picture, a drawing, a frame) paints
		// with the text around it, in document order: over the text
		// before it that it overlaps (pulled up by a negative margin).
		const top = topLayer.has(e), positioned = pos !== "static", z = top ? TOP : positioned ? zOf(s, ctx) : -1;
		let r = null;
		const add = (area, pseudo, bg) => painters.push({e, z, sc: top ? ROOT : ctx.sc, pseudo, bg, area: cut(clip, area)});
		if (positioned && opacity >= OPAQUE && e.localName === "svg") svgShapes(e, add);
		if (positioned && opacity >= OPAQUE) {
			r = e.getBoundingClientRect();
			if (paintsOpaque(e, s, k)) add(box(r), false, rgba(k.bgc));
			else if (backdropHides(s.backdropFilter)) add(box(r), false, null);
			borders(s, r, add);
			for (const p of ["::before", "::after"]) {
				const ps = style(e, p);
				if (ps.content === "none" || ps.content === "normal" || ps.position !== "absolute" || !paintsOpaque(e, ps)) continue;
				const [t, rr, bb, l] = [ps.top, ps.right, ps.bottom, ps.left].map(parseFloat);
				if (![t, rr, bb, l].some(isNaN)) add({l: r.left + l, t: r.top + t, r: r.right - rr, b: r.bottom - bb}, true, rgba(ps.backgroundColor));
			}
		}
		if (inline || (q.boxShadow ? initial.boxShadow : s.boxShadow) === "none" && (q.outlineStyle ? initial.outlineStyle : s.outlineStyle) === "none") return;
		let grow = 0;
		for (const part of s.boxShadow === "none" ? [] : s.boxShadow.split(/,(?![^()]*\))/)) {
			const c = colourList(part)[0], nums = (part.replace(/\([^()]*(?:\([^()]*\)[^()]*)*\)/g, "").match(/-?[\d.]+px/g) || []).map(parseFloat);
			if (/inset/.test(part)) {
				// An inset shadow paints over the box's own background, inward
				// from its edges: a spread of half the box or more fills it.
				if (pos === "static" || !c || c[3] < OPAQUE || nums.length < 4 || opacity < OPAQUE) continue;
				r ??= e.getBoundingClientRect();
				if (nums[3] * 2 >= Math.min(r.width, r.height)) add(box(r), false, c);
				continue;
			}
			if (c && c[3] >= OPAQUE && nums.length >= 4 && nums[3] >= 8) grow = Math.max(grow, nums[3] - Math.max(Math.abs(nums[0]), Math.abs(nums[1])));
		}
		const oc = rgba(s.outlineColor), ow = parseFloat(s.outlineWidth), off = parseFloat(s.outlineOffset) || 0;
		// An outline drawn inside the box (a negative offset) paints over
		// the box's own content: over all of it where it leaves no hole.
		if (off < 0 && s.outlineStyle !== "none" && oc && oc[3] >= OPAQUE && ow >= 1 && opacity >= OPAQUE) {
			r ??= e.getBoundingClientRect();
			if (-2 * off >= Math.min(r.width, r.height)) {
				const g = off + ow;
				painters.push({e, z: pos === "static" ? ctx.z : zOf(s, ctx), sc: ctx.sc, pseudo: true, bg: oc, area: cut(clip, {l: r.left - g, t: r.top - g, r: r.right + g, b: r.bottom + g})});
			}
		}
		if (s.outlineStyle === "solid" && oc && oc[3] >= OPAQUE && ow >= 8) grow = Math.max(grow, ow + (parseFloat(s.outlineOffset) || 0));
		if (grow < 8 || opacity < OPAQUE) return;
		r ??= e.getBoundingClientRect();
		add({l: r.left - grow, t: r.top - grow, r: r.right + grow, b: r.bottom + grow}, false, null);
	};
	// fixedPainter: a fixed box painting opaque covers what no scroll
	// brings out from under it: on a document that does not scroll,
	// what it lies over; on one that scrolls only down, when it holds the
	// viewport's top edge, the text that lies under it at the top of the
	// document (a scroll moves that text up, never out from under it).
	// (A full-page screenshot draws it there too.)
	// docScrolls: whether the document scrolls across and down (read once).
	let docScroll = null;
	const docScrolls = () => docScroll ??= {
		x: vpStyle.overflowX !== "hidden" && vpStyle.overflowX !== "clip" && Math.max(html.scrollWidth, body ? body.scrollWidth : 0) > vw + 1,
		y: vpStyle.overflowY !== "hidden" && vpStyle.overflowY !== "clip" && Math.max(html.scrollHeight, body ? body.scrollHeight : 0) > vh + 1,
	};
	const fixedPainter = (e, s, ctx, opacity, k) => {
		if (opacity < OPAQUE || !paintsOpaque(e, s, k)) return;
		docScrolls();
		if (docScroll.x) return;
		const r = e.getBoundingClientRect();
		if (!shows(box(r))) return;
		let area;
		if (!docScroll.y) area = box(r);
		else if (r.top <= 1) area = {l: r.left, t: -INF, r: r.right, b: r.bottom - win.scrollY};
		else return;
		const top = topLayer.has(e);
		painters.push({e, z: top ? TOP : zOf(s, ctx), sc: top ? ROOT : ctx.sc, pseudo: false, bg: rgba(k ? k.bgc : s.backgroundColor), area});
	};
	// borders: the sides of a positioned box's border that paint opaque
	// (solid, 4px or more), each a painter of its own.
	const SIDES = [["Top", (r, w) => ({l: r.left, t: r.top, r: r.right, b: r.top + w})], ["Bottom", (r, w) => ({l: r.left, t: r.bottom - w, r: r.right, b: r.bottom})],
		["Left", (r, w) => ({l: r.left, t: r.top, r: r.left + w, b: r.bottom})], ["Right", (r, w) => ({l: r.right - w, t: r.top, r: r.right, b: r.bottom})]];
	const borders = (s, r, add) => {
		// The shorthand first: one read says whether any side is wide enough.
		if (s.borderWidth.split(" ").every(w => parseFloat(w) < MIN_H)) return;
		for (const [side, area] of SIDES) {
			const w = parseFloat(s["border" + side + "Width"]);
			if (!(w >= MIN_H) || !/^(solid|double|groove|ridge|inset|outset)$/.test(s["border" + side + "Style"])) continue;
			const c = rgba(s["border" + side + "Color"]);
			if (c && c[3] >= OPAQUE) add(area(r, w), false, c);
		}
	};
	// inFlow: a replaced element in flow (a picture, a drawing, a frame)
	// paints with the text around it, in document order: over the text
	// before it that it overlaps (pulled up by a negative margin). The
	// walk need not enter it (it holds no text): three styles say whether
	// it paints opaque.
	const inFlow = (e, s, ctx) => {
		if (s.position !== "static" || s.float !== "none" || s.visibility !== "visible" || ctx.opacity * +s.opacity < OPAQUE) return;
		const z = ctx.z, clip = ctx.clip;
		const add = (area, pseudo, bg) => painters.push({e, z, sc: ctx.sc, pseudo, bg, area: cut(clip, area)});
		if (e.localName === "svg") svgShapes(e, add);
		else if (paintsOpaque(e, s)) add(box(e.getBoundingClientRect()), false, null);
	};
	// svgShapes: the rectangles of a drawing that paint opaque, upright
	// (no rotation or skew), each a painter (at most 50 a drawing).
	const svgShapes = (svg, add) => {
		let n = 0;
		for (const x of svg.querySelectorAll("rect")) {
			if (++n > 50) break;
			const xs = style(x), f = rgba(xs.fill);
			if (!f || f[3] * +xs.fillOpacity * +xs.opacity < OPAQUE || xs.display === "none" || xs.visibility !== "visible") continue;
			const m = x.getCTM && x.getCTM();
			if (!m || Math.abs(m.b) > 1e-6 || Math.abs(m.c) > 1e-6) continue;
			add(box(x.getBoundingClientRect()), false, f);
		}
	};
	// above: whether painter p paints after text of e at z: a higher z,
	// or the same and later in the document (an ::after after all its
	// element holds). An ancestor's own background is beneath its text.
	// Stacking contexts nest: a painter and a text are compared where
	// their chains of contexts part (sc: {el, z, up}, z the context's
	// level in the one above it): by the levels there, then by document
	// order of what stands there.
	const pathOf = sc => sc.path ??= sc.up ? [...pathOf(sc.up), sc] : [sc];
	const above = (p, e, v) => {
		if (p.over) return true; // the frame above's cover: over all of this document
		let pz = p.z, tz = v.z, pe = p.e, te = e, pseudo = p.pseudo;
		if (p.sc !== v.sc) {
			const a = pathOf(p.sc), b = pathOf(v.sc);
			let i = 0;
			while (i < a.length && i < b.length && a[i] === b[i]) i++;
			if (i < a.length) { pz = a[i].z; pe = a[i].el; pseudo = false; }
			if (i < b.length) { tz = b[i].z; te = b[i].el; }
		}
		return pz > tz || pz === tz && (pseudo ? holds(pe, te) || (te.compareDocumentPosition(pe) & Node.DOCUMENT_POSITION_FOLLOWING) : !holds(pe, te) && (te.compareDocumentPosition(pe) & Node.DOCUMENT_POSITION_FOLLOWING));
	};
	// shadowed: whether the boxes v.rects of a text of e (verdict v) lie
	// under a painter. Asked once the whole page is walked (a painter may
	// come after the text).
	// The boxes are plain numbers (DOMRect's getters are calls into the
	// browser) and the geometry comes first. A text is asked only about
	// the painters that can hold its first box (near): each painter is
	// kept under the rows of ROW px its area spans (one that spans more
	// than ROWS rows is asked about every text); a large page has
	// thousands of texts and may have hundreds of painters.
	const ROW = 256, ROWS = 64;
	let rows = null, tall = null;
	const near = r => {
		if (!rows) {
			rows = new Map();
			tall = [];
			for (const p of painters) {
				const a = p.area;
				if (!(a.b > a.t && a.r > a.l)) continue; // holds no box
				const lo = Math.floor(a.t / ROW), hi = Math.floor(a.b / ROW);
				if (hi - lo > ROWS) { tall.push(p); continue; }
				for (let k = lo; k <= hi; k++) { const x = rows.get(k); x ? x.push(p) : rows.set(k, [p]); }
			}
		}
		const x = rows.get(Math.floor(r.t / ROW));
		return x ? (tall.length ? x.concat(tall) : x) : tall;
	};
	// inFloat: whether e is in a float of its stacking context (read
	// only where a float paints over a text: floats paint before text in
	// flow, so they cover text in earlier floats only).
	const floating = new Map();
	const inFloat = (e, sc) => {
		for (let x = e; x && x !== sc.el; x = up(x)) {
			let f = floating.get(x);
			if (f === undefined) floating.set(x, f = style(x).float !== "none");
			if (f) return true;
		}
		return false;
	};
	const shadowed = (e, v) => {
		for (const p of near(v.rects[0])) {
			const a = p.area;
			let all = true;
			for (const r of v.rects) if (!(r.l >= a.l && r.r <= a.r && r.t >= a.t && r.b <= a.b)) { all = false; break; }
			if (all && (p.pseudo || !holds(p.e, e)) && (!p.float || inFloat(e, v.sc)) && above(p, e, v)) return true;
		}
		return false;
	};

	// unseen: an element hidden from everyone, assistive technology too
	// (so the ARIA snapshot already leaves it out).
	// (An SVG's definitions, clip paths, masks, patterns, markers and
	// symbols are not drawn where they stand, but Playwright prints their
	// text: hidden, not unseen. Its title is its name.)
	const svgUnseen = /^(title|desc|metadata|style|script)$/;
	const unseen = (e, s) => s.display === "none" || (e.namespaceURI === "http://www.w3.org/2000/svg" && svgUnseen.test(e.localName));
	// boxClip: what an element of box r whose overflow is not visible (or
	// whose paint is contained) leaves of clip to its content. Hidden
	// overflow and paint containment clip to the box; a scroller shows all
	// it holds, a scroll away, when it shows anything at all (not left of
	// or above its origin).
	const boxClip = (e, r, clip, overflow, paintContained) => {
		let [ox, oy = ox] = overflow.split(" ");
		if (paintContained) { if (!scrolls(ox)) ox = "clip"; if (!scrolls(oy)) oy = "clip"; }
		const b = cut(clip, box(r));
		const open = shows(b) && e.clientWidth >= MIN_W && e.clientHeight >= MIN_H;
		const l = r.left + e.clientLeft - e.scrollLeft, t = r.top + e.clientTop - e.scrollTop;
		const next = {...clip};
		if (ox !== "visible") [next.l, next.r] = scrolls(ox) ? (open ? [Math.max(l, b.l - INF), l + e.scrollWidth] : [0, 0]) : [b.l, b.r];
		if (oy !== "visible") [next.t, next.b] = scrolls(oy) ? (open ? [t, t + e.scrollHeight] : [0, 0]) : [b.t, b.b];
		return cut(clip, next);
	};
	// svgViewport: the box of an svg inside another (its viewport, which
	// clips what it draws), from its x, y, width and height in its
	// parent's user space; its bounding box (what it draws) where the
	// parent is turned or skewed.
	const svgViewport = e => {
		const m = e.parentNode && e.parentNode.getScreenCTM && e.parentNode.getScreenCTM();
		if (!m || Math.abs(m.b) > 1e-6 || Math.abs(m.c) > 1e-6) return e.getBoundingClientRect();
		const x = e.x.baseVal.value, y = e.y.baseVal.value, w = e.width.baseVal.value, h = e.height.baseVal.value;
		const l = m.e + m.a * x, t = m.f + m.d * y, r = l + m.a * w, b = t + m.d * h;
		return {left: Math.min(l, r), top: Math.min(t, b), right: Math.max(l, r), bottom: Math.max(t, b)};
	};
	// enter: what an element passes to its content, or null when none of
	// it can be seen. The context holds the opacity product, the colour
	// filters and blur that apply, the background colours below (null: an
	// image), the boxes that clip the content and absolutely and fixed
	// positioned descendants, and the 3D transform its rendering context
	// has composed so far (a face turned away is not drawn).
	// Each computed style is read once an element (a read is a call into
	// the renderer, and the pass makes one for every element it enters),
	// in the order that lets a hidden element stop soonest.
	const enter = (e, s, ctx, chain) => {
		// (A plain element under plain ones takes its tag's display where
		// nothing can change it: authored.js.)
		const pq = ctx.clean && authored.flows ? skipOf(e, ctx) : null;
		const display = pq !== null && pq !== NOSKIP ? tagDisplay[e.localName] : s.display;
		// An inline box (not inline-block) has no overflow, containment,
		// content visibility, transform or perspective: those are not read
		// (Chromium paints the text of an inline box whose
		// content-visibility is hidden).
		// (An svg element is a viewport, not an inline box: it clips what
		// it draws to its box unless its overflow says not.)
		const inline = display === "inline" && !(e.localName === "svg" && e.namespaceURI === SVG);
		if (tops.has(e) && ctx !== base) ctx = {...base, legible: new Map(), clean: false};
		// q: the properties no author sets on e, taken at their initial
		// values unread (authored.js).
		const q = pq ?? skipOf(e, ctx);
		if (display === "none" || e.namespaceURI === SVG && svgHidden.test(e.localName) || !inline && (q.contentVisibility ? initial.contentVisibility : s.contentVisibility) === "hidden") return null;
		if (!chain && e.getAttribute("aria-hidden") === "true" && !(modal && !e.contains(modal))) return null;
		const filter = q.filter ? initial.filter : s.filter, blendMode = q.mixBlendMode ? initial.mixBlendMode : s.mixBlendMode, own = +(q.opacity ? initial.opacity : s.opacity);
		const f = filterOf(filter, e);
		// (No mask, initial.maskImage, takes nothing away.)
		let opacity = ctx.opacity * own * f.opacity * (q.maskImage ? 1 : maskOpacity(e, s));
		if (opacity < MIN_OPACITY) return null;
		const contain = inline ? "none" : q.contain ? initial.contain : s.contain;
		const pos = q.position ? initial.position : s.position;
		let clip = pos === "absolute" ? ctx.absClip : pos === "fixed" ? ctx.fixedClip : ctx.clip;
		const shaped = (q.clipPath ? initial.clipPath : s.clipPath) !== "none" || ((pos === "absolute" || pos === "fixed") && (q.clip ? initial.clip : s.clip) !== "auto");
		let selfClip = clip;
		const overflow = inline || e === html || (e === body && vpStyle === bs) ? "visible" : q.overflow && e.localName !== "svg" ? initial.overflow : s.overflow;
		const paintContained = contain !== "none" && /paint|strict|content/.test(contain);
		const clips = overflow !== "visible" || paintContained;
		if (shaped || clips) {
			const r = e.localName === "svg" && e.ownerSVGElement ? svgViewport(e) : e.getBoundingClientRect();
			if (shaped) selfClip = clip = cut(clip, clipShape(s, r, e));
			if (clips) clip = boxClip(e, r, clip, overflow, paintContained);
		}
		// A foreignObject shows its content in its own box only.
		if (e.localName === "foreignObject" && e.namespaceURI === SVG) clip = cut(clip, box(e.getBoundingClientRect()));
		const fx = f.fx.length ? f.fx.concat(ctx.fx) : ctx.fx;
		// What the element's own opacity and background are, read once for
		// its backgrounds and whether it paints opaque (painter, flowBg).
		const k = {op: own, bgc: q.backgroundColor ? initial.backgroundColor : s.backgroundColor, bgi: q.backgroundImage ? initial.backgroundImage : s.backgroundImage};
		const bgs = backgrounds(s, ctx.bgs, fx, k.bgc, k.bgi);
		// 3D: a transform composes with its parent's when the parent
		// preserves 3D; a face turned away (backface hidden) or a box
		// behind the viewer (perspective) is not drawn.
		// The rotate property turns a box as transform does (scale and
		// translate show in its boxes, which the text judge reads).
		const rot = inline ? "none" : q.rotate ? initial.rotate : s.rotate, tf = inline ? "none" : q.transform ? initial.transform : s.transform;
		const transformed = tf !== "none" || rot !== "none";
		let m3 = null;
		if (transformed || ctx.m3) {
			const mine = transformed ? matrix((rot === "none" ? "" : rotation(rot) + " ") + (tf === "none" ? "" : tf)) : null;
			m3 = ctx.m3 && mine ? ctx.m3.multiply(mine) : mine || ctx.m3;
			if (m3 && !m3.is2D) {
				if (s.backfaceVisibility === "hidden" && m3.m33 < 0) return null;
				const p = ctx.perspective();
				if (p && m3.m43 >= p || m3.m44 <= 0) return null;
			}
			if (s.transformStyle !== "preserve-3d") m3 = null;
		}
		// A flex or grid item with a z-index is stacked as a positioned box.
		const item = itemOf(ctx.display);
		const zpos = pos === "static" && item && !inline && s.zIndex !== "auto" ? "relative" : pos;
		painter(e, s, ctx, selfClip, zpos, opacity, inline, k, q);
		// An atomic box in flow painting opaque covers the text before it
		// that it overlaps (a float only text in an earlier float).
		if (zpos === "static" && !inline && opacity >= OPAQUE && paintsOpaque(e, s, k)) {
			const a = atomic(s, ctx, display);
			if (a) painters.push({e, z: ctx.z, sc: ctx.sc, pseudo: false, float: a === "float", bg: rgba(k.bgc), area: cut(selfClip, box(e.getBoundingClientRect()))});
		}
		// The perspective an element gives its content matters only to a
		// 3D transform below it (rare): it is read when one asks.
		const outer = ctx.perspective;
		const perspective = inline ? (m3 ? outer : noPerspective) : () => parseFloat(s.perspective) || (m3 ? outer() : 0);
		// A negative z-index paints under the backgrounds of the boxes
		// in flow around it (not the root's, which is the canvas).
		const zi = zpos === "static" ? NaN : parseInt(s.zIndex);
		if (zi < 0 && ctx.flowBg) return null;
		const stacking = !isNaN(zi) || own < 1 || transformed || filter !== "none";
		// (A context's level in the one above it: a positioned box's, or
		// 0 for one made by opacity, a transform or a filter.)
		const sc = topLayer.has(e) ? {el: e, z: TOP, up: ROOT, path: null} : stacking && e !== html ? {el: e, z: zpos === "static" ? 0 : zOf(s, ctx), up: ctx.sc, path: null} : ctx.sc;
		const flowBg = pos === "static" && e !== html && e !== body && bgs !== ctx.bgs && paintsOpaque(e, s, k) || ctx.flowBg && !stacking;
		const inner = {
			opacity, clip, fx, bgs,
			absClip: pos !== "static" || transformed ? clip : ctx.absClip,
			fixedClip: transformed || filter !== "none" || paintContained ? clip : ctx.fixedClip,
			blur: ctx.blur + f.blur, shadow: ctx.shadow || f.shadow,
			blend: blendMode !== "normal" ? blendMode : (bgs !== ctx.bgs ? null : ctx.blend),
			m3, perspective,
			z: sc !== ctx.sc ? -0.5 : zpos === "static" ? ctx.z : zOf(s, ctx), sc, flowBg,
			legible: bgs !== ctx.bgs || opacity !== ctx.opacity || fx !== ctx.fx ? new Map() : ctx.legible,
			el: e, display, te: null, tf: null, kids: authored !== null && authored.kidsOf(e, q !== NOSKIP),
			clean: q !== NOSKIP ? ctx.clean : (e === html || e === body) && ctx.clean && authored !== null && authored.bare(e),
			// The context whose element's text fill e's is (ink): its
			// parent's where e inherits it unchanged (plain, not a link,
			// and no author sets a colour), else its own, read once (fill).
			sty: s, ink: q !== NOSKIP && authored.inks ? (e.localName === "a" ? linkInk(e, s, ctx) : ctx.ink) : null, fill: undefined,
			// The same for its font size.
			size: q !== NOSKIP && authored.sizes && sameSize.has(e.localName) ? ctx.size : null, fs: undefined,
		};
		inner.ink ??= inner;
		inner.size ??= inner;
		return inner;
	};

	// linkInk: whose text fill a plain a (no author sets a colour) has.
	// One with an href has the user agent's link colour, the same for
	// every link of the document (it follows the body's link attribute and
	// the colour scheme, and a visited link's is never told to the page):
	// read on the first link, shared by the rest (a large page has
	// thousands). A link being pressed (:active) reads its own; an a with
	// no href inherits its parent's, as any plain element.
	let linkFill = null, pressed = null;
	const linkInk = (e, s, ctx) => {
		if (!e.hasAttribute("href")) return ctx.ink;
		pressed ??= new Set(doc.querySelectorAll("a:active"));
		return pressed.has(e) ? null : linkFill ??= {sty: s, fill: undefined};
	};
	// inks: whether an element's text shows in its colours against the
	// backgrounds below (its fill, or its gradient fill, or a stroke or a
	// shadow close to the glyphs that shows where the fill does not).
	const shows1 = (c, ctx, blend) => {
		if (!c || c[3] * ctx.opacity < 0.02) return false;
		if (!ctx.bgs) return true;
		const p = paint(ctx.fx, c), a = c[3] * ctx.opacity, fn = blends[blend];
		return ctx.bgs.some(b => {
			const src = fn ? fn(p, b.length > 3 ? b.slice(0, 3) : b) : p;
			return contrast(over(src, a, b), b) >= MIN_CONTRAST;
		});
	};
	const SVG = "http://www.w3.org/2000/svg";
	const inks = (e, s, ctx) => {
		// The common case, cached by colour in the context: a fill that
		// shows.
		const svg = e.namespaceURI === SVG;
		const fc = !svg && ctx.el === e && ctx.sty === s ? ctx.ink : null;
		const fill = svg ? s.fill + " " + s.fillOpacity : fc ? fc.fill ??= fc.sty.webkitTextFillColor : s.webkitTextFillColor;
		const key = fill + "|" + ctx.blend;
		let ok = ctx.legible.get(key);
		if (ok === undefined) {
			let c = null;
			if (!svg) c = rgba(fill);
			else if (s.fill !== "none" && !s.fill.startsWith("url(")) { c = rgba(s.fill); c = c && [c[0], c[1], c[2], c[3] * +s.fillOpacity]; }
			ok = ctx.shadow || shows1(c, ctx, ctx.blend);
			ctx.legible.set(key, ok);
		}
		return ok || inked(e, s, ctx, svg);
	};
	// gradientShows: an SVG fill by reference to a gradient shows where
	// one of its stops does; a pattern, or a gradient whose stops come
	// from another (href), is taken to show.
	const gradientShows = (fill, ctx, blend) => {
		const m = /url\("?[^"#)]*#([^")]+)"?\)/.exec(fill), g = m && doc.getElementById(m[1]);
		if (!g || !/^(linearGradient|radialGradient)$/.test(g.localName)) return true;
		const stops = [...g.children].filter(x => x.localName === "stop");
		if (!stops.length) return true;
		return stops.some(x => { const xs = style(x), c = rgba(xs.stopColor), o = parseFloat(xs.stopOpacity); return !c || shows1([c[0], c[1], c[2], c[3] * (isNaN(o) ? 1 : o)], ctx, blend); });
	};
	// inked: a text whose fill does not show may be painted otherwise: by
	// a gradient (background-clip: text), a stroke, or a shadow close to
	// the glyphs.
	const inked = (e, s, ctx, svg) => {
		const fs = parseFloat(s.fontSize) || 16, blend = ctx.blend;
		if (svg && s.fill.startsWith("url(")) return gradientShows(s.fill, ctx, blend);
		if (!svg && (/text/.test(s.backgroundClip || "") || /text/.test(s.webkitBackgroundClip || "")) && (pictured(s.backgroundImage, "") || [[0, 0, 0, 1]]).some(c => shows1(c, ctx, blend))) return true;
		const sw = svg ? (s.stroke !== "none" ? parseFloat(s.strokeWidth) : 0) : parseFloat(s.webkitTextStrokeWidth);
		const sc = svg ? rgba(s.stroke) : rgba(s.webkitTextStrokeColor);
		if (sw > 0.3 && sc && shows1([sc[0], sc[1], sc[2], sc[3] * (svg ? +s.strokeOpacity : 1)], ctx, blend)) return true;
		if (s.textShadow === "none") return false;
		for (const part of s.textShadow.split(/,(?![^()]*\))/)) {
			const c = colourList(part)[0], nums = part.replace(/\([^()]*(?:\([^()]*\)[^()]*)*\)/g, "").match(/-?[\d.]+px/g) || [];
			const [x = 0, y = 0, b = 0] = nums.map(parseFloat);
			if (Math.abs(x) < fs && Math.abs(y) < fs && b < fs / 2 && shows1(c, ctx, blend)) return true;
		}
		return false;
	};
	// firstLines: whether the page's style sheets may hold a ::first-line
	// rule (one that cannot be read may); read once a pass. A text in a
	// shadow tree is always checked (its sheets are not the document's).
	let firstLines = null;
	const mayFirstLine = e => {
		if (e.getRootNode() !== doc) return true;
		if (firstLines !== null) return firstLines;
		const scan = rules => { for (const r of rules) if ((r.selectorText && r.selectorText.includes("first-line")) || (r.cssRules && scan(r.cssRules))) return true; return false; };
		firstLines = false;
		for (const sh of [...doc.styleSheets, ...(doc.adoptedStyleSheets || [])]) {
			try { if (scan(sh.cssRules)) { firstLines = true; break; } } catch { firstLines = true; break; }
		}
		return firstLines;
	};

	// fullCover: an element fixed over the whole viewport that paints
	// opaque (a modal's backdrop, a wall): text outside it is covered
	// wherever it is scrolled to.
	// k: the opacity and background already read (enter), if any.
	const paintsOpaque = (u, us, k) => {
		const op = k ? k.op : +us.opacity;
		if (/^(IMG|VIDEO|CANVAS|IFRAME|OBJECT|EMBED)$/.test(u.tagName)) return op >= OPAQUE;
		if (op < OPAQUE) return false;
		const b = rgba(k ? k.bgc : us.backgroundColor);
		if (b && b[3] >= OPAQUE) return true;
		const img = k ? k.bgi : us.backgroundImage;
		if (img !== "none") { const st = pictured(img, /url\(/.test(img) ? us.backgroundRepeat : ""); return !st || st.length > 0 && st.every(c => c[3] >= OPAQUE); }
		return false;
	};
	const backdropOf = e => { try { const s = style(e, "::backdrop"); const b = rgba(s.backgroundColor); return b && b[3] >= OPAQUE; } catch { return false; } };
	let cover = null;
	if (modal && modal.localName === "dialog" && backdropOf(modal)) cover = modal;
	if (!cover && vw < INF && vh < INF) {
		const pts = [[vw / 2, vh / 2], [4, 4], [vw - 5, 4], [4, vh - 5], [vw - 5, vh - 5]];
		let top = null;
		for (const [x, y] of pts) {
			const u = doc.elementFromPoint(x, y);
			if (!u) { top = null; break; }
			let a = u;
			while (a && style(a).position !== "fixed") a = a.parentElement;
			if (!a || (top && top !== a)) { top = null; break; }
			top = a;
		}
		if (top && top !== body && top !== html) {
			const r = top.getBoundingClientRect();
			if (r.left <= 1 && r.top <= 1 && r.right >= vw - 1 && r.bottom >= vh - 1 && paintsOpaque(top, style(top))) cover = top;
		}
	}

	const up = x => x.assignedSlot || x.parentElement || (x.parentNode && x.parentNode.host) || null;
	const holds = (a, b) => { for (let x = b; x; x = up(x)) if (x === a) return true; return false; };
	// backdropHides: a backdrop filter that blurs what is below past
	// reading, or flattens it to one colour (brightness or contrast near
	// 0).
	const backdropHides = bf => {
		if (!bf || bf === "none") return false;
		const f = filterOf(bf);
		return f.blur >= 4 || f.opacity < MIN_OPACITY || contrast(paint(f.fx, [0, 0, 0]), paint(f.fx, [255, 255, 255])) < MIN_CONTRAST;
	};

	// text judges a text node n of element e (style s, context ctx): the
	// words of it that cannot be seen. {all: true} when none can, else
	// {hidden: [words...], kept, rects} (hidden empty: all of it shows;
	// kept, the words shown when not; rects, the boxes probed, for
	// shadowed once the page's painters are known).
	const range = doc.createRange();
	// UNSEEN: hidden from everyone (visibility), so no snapshot carries it.
	const ALL = {all: true}, UNSEEN = {all: true, unseen: true};
	// facts: what decides the texts of element e (style s, context ctx)
	// before their boxes, read once for all of them (kept in the context,
	// which is e's own): UNSEEN or ALL, or what is left to ask, each asked
	// once (ink, firstLine, ellipsis).
	const facts = (e, s, ctx) => {
		if (ctx.te === e) return ctx.tf;
		let f;
		// Inherited: skipped only where e and all its ancestors are plain.
		const q = ctx.el === e && ctx.clean ? authored.skip : NOSKIP;
		if ((q.visibility ? initial.visibility : s.visibility) !== "visible") f = UNSEEN;
		else if (cover && !cover.contains(e)) f = ALL;
		else {
			// Text drawn as discs or squares (text-security) shows no word.
			const sec = q.webkitTextSecurity ? initial.webkitTextSecurity : s.webkitTextSecurity, z = ctx.el === e && ctx.sty === s ? ctx.size : null;
			const fs = z ? z.fs ??= parseFloat(z.sty.fontSize) : parseFloat(s.fontSize);
			f = sec && sec !== "none" || fs < MIN_H || ctx.blur >= Math.max(2, fs / 4) ? ALL : {ink: undefined, firstLine: undefined, ellipsis: undefined};
		}
		ctx.te = e;
		ctx.tf = f;
		return f;
	};
	// firstLineHides: a ::first-line colour that does not show.
	const firstLineHides = (e, s, ctx) => {
		if ((ctx.el === e ? ctx.display : s.display).startsWith("inline") || !mayFirstLine(e)) return false;
		const fl = style(e, "::first-line");
		return fl.color !== s.color && !shows1(rgba(fl.webkitTextFillColor || fl.color), ctx, null);
	};
	const text = (n, e, s, ctx) => {
		const f = facts(e, s, ctx);
		if (f === UNSEEN || f === ALL) return f;
		// SVG text: its element's box is what is drawn (a transform or
		// textLength may squeeze the glyphs the range reports).
		// The common case first: the text's bounding box inside the clip
		// holds all its boxes (one rectangle, no list to make). Boxes are
		// read once into plain numbers (a DOMRect's getters are calls into
		// the renderer).
		let rects, shown;
		if (e.namespaceURI === SVG) rects = [e.getBoundingClientRect()];
		else {
			range.selectNodeContents(n);
			const bb = range.getBoundingClientRect(), c = ctx.clip;
			const l = bb.left, t = bb.top, r = bb.right, b = bb.bottom;
			if (r - l >= MIN_W && b - t >= MIN_H && l >= c.l && r <= c.r && t >= c.t && b <= c.b) rects = shown = [{l, t, r, b}];
			else rects = range.getClientRects();
		}
		// (cut: a box the clip cuts into, a text partly shown.)
		let cutInto = false;
		shown ??= [...rects].map(box).filter(v => {
			const w = cut(ctx.clip, v);
			if (w.l > v.l + 1 || w.r < v.r - 1 || w.t > v.t + 1 || w.b < v.b - 1) cutInto = true;
			return shows(w);
		});
		if (!shown.length) return ALL;
		f.ink ??= inks(e, s, ctx);
		if (!f.ink && !overMedia(e, s, ctx, shown[0])) return ALL;
		f.firstLine ??= firstLineHides(e, s, ctx);
		if (f.firstLine) return ALL;
		// Covers are judged once the page's painters are known (shadowed),
		// from the first and the last box shown.
		const probe = shown.length === 1 ? shown : [shown[0], shown[shown.length - 1]];
		f.ellipsis ??= ctx.clip.r < INF && s.textOverflow === "ellipsis";
		if (shown.length === rects.length && !cutInto && !f.ellipsis) return {hidden: [], rects: probe, z: ctx.z, sc: ctx.sc};
		// Partly shown (a clipped tail, a line cut short, an ellipsis, a line clamp): the
		// words whose boxes fall outside the clip are hidden.
		const hidden = [], kept = [], t = n.data;
		for (const m of t.matchAll(/\S+/g)) {
			range.setStart(n, m.index);
			range.setEnd(n, m.index + m[0].length);
			const r = range.getBoundingClientRect(), v = cut(ctx.clip, box(r));
			(!shows(v) || v.r - v.l < (r.right - r.left) / 2 ? hidden : kept).push(m[0]);
		}
		if (!kept.length) return ALL;
		return {hidden, kept: kept.join(" "), rects: probe, z: ctx.z, sc: ctx.sc};
	};

	// overMedia: for text whose colour does not show against the
	// backgrounds of its ancestors, whether it is drawn over something
	// else that shows it up (a caption over a picture, or over a
	// positioned sibling's background found so far), by geometry.
	let media = null;
	const overMedia = (e, s, ctx, r) => {
		const x = (r.l + r.r) / 2, y = (r.t + r.b) / 2;
		media ??= [...doc.querySelectorAll("img, video, canvas, picture, svg, iframe, object, embed")].map(m => [m, m.getBoundingClientRect()]);
		if (media.some(([u, m]) => x >= m.left && x <= m.right && y >= m.top && y <= m.bottom && !holds(u, e) && pictureShows(u, e, s, ctx))) return true;
		return painters.some(p => !p.pseudo && !p.over && !holds(p.e, e) && x >= p.area.l && x <= p.area.r && y >= p.area.t && y <= p.area.b &&
			(!p.bg ? pictureShows(p.e, e, s, ctx) : inks(e, s, {...ctx, bgs: [paint(ctx.fx, p.bg)], legible: new Map()})));
	};

	// pictureShows: whether text of e shows over the picture u: an img
	// whose pixels can be read (picture) shows it only in colours that
	// stand out from the picture's own; any other picture, video, canvas
	// or frame is taken to.
	const pictureShows = (u, e, s, ctx) => {
		if (u.localName !== "img") return true;
		const p = picture(u.currentSrc || u.src, u);
		if (!p || !p.cs) return true;
		const under = ctx.bgs ? ctx.bgs[0] : [255, 255, 255];
		return inks(e, s, {...ctx, bgs: p.cs.map(c => over(paint(ctx.fx, c), c[3], under)), legible: new Map()});
	};
	// valueShows: whether the text a field (an input, a textarea) holds
	// shows, judged as its text would be (its colour against its own
	// background and those below, its size, its visibility): a field
	// that shows with a value no one can read keeps its name, not its
	// value.
	const valueShows = (e, s, ctx) => {
		const f = facts(e, s, ctx);
		return f !== UNSEEN && f !== ALL && inks(e, s, ctx);
	};
	// placeholderShows: whether a field's placeholder shows in its
	// ::placeholder style (colour, size, opacity, visibility), judged as
	// the field's text would be. Whether the field holds a value is not
	// asked: the snapshot keeps the line of a placeholder a value hides,
	// as Playwright prints it (it shows again when the field is emptied,
	// and the answer to typing is the kept snapshot patched).
	// (A password field draws its placeholder in letters, not discs.)
	const placeholderShows = (e, s, ctx) => {
		if (s.visibility !== "visible" || cover && !cover.contains(e)) return false;
		const ps = style(e, "::placeholder"), fs = parseFloat(ps.fontSize);
		if (!e.value && ps.display === "none" || ps.visibility !== "visible" || !(fs >= MIN_H) || ctx.blur >= Math.max(2, fs / 4) || ctx.opacity * +ps.opacity < MIN_OPACITY) return false;
		return inks(e, ps, ctx);
	};
	// painted: whether an element paints something of its own a person
	// sees (a control with no visible text: an icon, a box, a field).
	const painted = (e, s, ctx) => {
		if (s.visibility !== "visible") return false;
		const r = e.getBoundingClientRect();
		const v = cut(ctx.clip, box(r));
		if (!shows(v)) return false;
		return !(cover && !cover.contains(e));
	};

	const noPerspective = () => 0;
	const ROOT = {el: html, z: 0, up: null, path: null};
	// (A frame's document starts from what its page does to all of it:
	// frameContext there.)
	const fc = frameWin && frameWin.ctx ? frameWin.ctx.split("_") : null;
	const fcFx = fc && fc[4] ? fc[4].split(",").map(Number) : null;
	const fcAffine = fcFx && fcFx.length === 12 ? [c => [0, 1, 2].map(i => fcFx[i] * c[0] + fcFx[3 + i] * c[1] + fcFx[6 + i] * c[2] + fcFx[9 + i])] : [];
	// A document's canvas: its colour scheme's; a frame's is transparent
	// (what its page puts under it shows) unless its scheme and its
	// iframe's differ, when Chromium paints it opaque.
	const rootDark = usedDark(hs.colorScheme), framed = win.parent !== win;
	let fcBgs = [canvasOf(rootDark)];
	if (framed && rootDark === (fc ? fc[6] === "dark" : false)) fcBgs = !fc ? [[255, 255, 255, 1]] : fc[5] === "img" ? null : fc[5].split("|").map(c => c.split(",").map(Number));
	const base = {sc: ROOT, opacity: fc ? Math.min(1, +fc[0] || 0) : 1, clip: frameArea, absClip: frameArea, fixedClip: frameView, fx: fcAffine, bgs: fcBgs, blur: fc ? +fc[1] || 0 : 0, shadow: fc ? fc[2] === "1" : false, blend: fc && fc[3] ? fc[3] : null, m3: null, perspective: noPerspective, z: -0.5, flowBg: false, legible: new Map(), el: null, display: "", te: null, tf: null, kids: false, clean: authored !== null, sty: null, ink: null, fill: undefined, size: null, fs: undefined};
	// generated: the texts of e's ::before and ::after (context ctx, the
	// one e passes to its content) that cannot be seen (hidden), and how
	// many letters of them can (shown). A pseudo-element's
	// box cannot be read, so what places it is judged from its styles: not
	// displayed or visible, too small, faint, blurred, in a colour that
	// does not show, clipped, squeezed, far off the document, or in an
	// element that shows nothing. Its alternative text (content: "x" /
	// "alt") is never drawn.
	const generated = (e, s, ctx) => {
		const out = [];
		let shown = 0;
		for (const p of ["::before", "::after"]) {
			const ps = style(e, p), c = ps.content;
			if (!c || c === "none" || c === "normal") continue;
			const slash = c.search(/\s\/\s/);
			const drawn = contentText(e, slash < 0 ? c : c.slice(0, slash)), alt = slash < 0 ? "" : contentText(e, c.slice(slash + 3));
			if (alt.trim()) out.push(alt);
			if (!drawn.trim()) continue;
			if (pseudoShows(e, s, ps, ctx, drawn)) shown += drawn.replace(/\s/g, "").length;
			else out.push(drawn);
		}
		return {hidden: out, shown};
	};
	// contentText: the words a content value draws (strings and attr();
	// counters, quotes and pictures draw none that matter).
	const contentText = (e, v) => {
		let out = "";
		for (const m of v.matchAll(/"((?:[^"\\]|\\.)*)"|attr\(\s*([^\s,)]+)[^)]*\)/g)) {
			if (m[2]) out += e.getAttribute(m[2]) || "";
			else out += m[1].replace(/\\([0-9a-fA-F]{1,6}) ?|\\(.)/g, (_, hex, ch) => hex ? String.fromCodePoint(parseInt(hex, 16)) : ch);
		}
		return out;
	};
	const pseudoShows = (e, s, ps, ctx, t) => {
		if (ps.display === "none" || ps.visibility !== "visible" || (ps.webkitTextSecurity || "none") !== "none") return false;
		const fs = parseFloat(ps.fontSize), f = filterOf(ps.filter, e);
		if (!(fs >= MIN_H) || ctx.opacity * +ps.opacity * f.opacity < MIN_OPACITY || ctx.blur + f.blur >= Math.max(2, fs / 4)) return false;
		if (ps.clipPath !== "none" || maskOpacity(e, ps) === 0) return false;
		const pos = ps.position;
		if ((pos === "absolute" || pos === "fixed") && ps.clip.startsWith("rect(")) return false;
		const m = ps.transform !== "none" && matrix(ps.transform);
		if (m && Math.abs(m.a * m.d - m.b * m.c) < 0.05) return false;
		if (!painted(e, s, ctx)) return false;
		// Where a positioned one stands: from its element's box and its
		// offsets (its containing block may be another box: near enough to
		// tell one far off the document).
		const r = e.getBoundingClientRect(), w = parseFloat(ps.width), h = parseFloat(ps.height);
		if (ps.overflow !== "visible" && (w < MIN_W || h < MIN_H)) return false;
		if (pos === "absolute" || pos === "fixed") {
			const l = parseFloat(ps.left), tp = parseFloat(ps.top);
			const x = r.left + (isNaN(l) ? 0 : l), y = r.top + (isNaN(tp) ? 0 : tp);
			const v = {l: x, t: y, r: x + (w > 0 ? w : fs * t.length / 2), b: y + (h > 0 ? h : fs)};
			if (!shows(cut(pos === "fixed" ? viewport : ctx.clip, v))) return false;
		}
		const bgs = backgrounds(ps, ctx.bgs, ctx.fx);
		return inks(e, ps, bgs === ctx.bgs ? ctx : {...ctx, bgs, legible: new Map()});
	};
	const fresh = e => win.getComputedStyle(e);
	// frameWindow: the part of the content box of the frame element e
	// (style s, in context ctx: the one e gives its content) that shows,
	// in the frame's own CSS pixels from its viewport's top left (its
	// document's frameWin), with all set when that is the whole box, and
	// where the content box is (c) and its scale (kx, ky), for
	// frameCovers; null when its box has no size. (A transform is taken as
	// the scale of its bounding box.)
	const frameWindow = (e, s, ctx) => {
		const r = e.getBoundingClientRect(), ow = e.offsetWidth, oh = e.offsetHeight;
		if (!(ow > 0 && oh > 0)) return null;
		const kx = r.width / ow, ky = r.height / oh;
		const px = k => parseFloat(s[k]) || 0;
		const c = {l: r.left + (px("borderLeftWidth") + px("paddingLeft")) * kx, t: r.top + (px("borderTopWidth") + px("paddingTop")) * ky,
			r: r.right - (px("borderRightWidth") + px("paddingRight")) * kx, b: r.bottom - (px("borderBottomWidth") + px("paddingBottom")) * ky};
		const v = cut(ctx.clip, c);
		const all = v.l <= c.l + 0.5 && v.t <= c.t + 0.5 && v.r >= c.r - 0.5 && v.b >= c.b - 0.5;
		const w = all ? {l: 0, t: 0, r: (c.r - c.l) / kx, b: (c.b - c.t) / ky} : {l: (v.l - c.l) / kx, t: (v.t - c.t) / ky, r: (v.r - c.l) / kx, b: (v.b - c.t) / ky};
		if (!(w.r > w.l && w.b > w.t)) return {l: 0, t: 0, r: 0, b: 0, all: false, c, kx, ky};
		return {...w, all, c, kx, ky};
	};
	// frameContext: what the page does to all of a frame's document
	// (the context ctx its iframe gives its content): the opacity
	// product, the blur, a shadow that shows, the blend mode, the colour
	// filters as one affine map of RGB (each filter is one, and paint
	// clamps only at the end), and the background colours under it ("img"
	// for a picture: any colour shows); "" when that is nothing (a white
	// page, no filter). As the frame's document's frameWin.ctx.
	const frameContext = (ctx, s) => {
		const dark = usedDark(s.colorScheme);
		let fx = "";
		if (ctx.fx.length) {
			const run = c => ctx.fx.reduce((v, f) => f(v), c);
			const o = run([0, 0, 0]), cols = [[255, 0, 0], [0, 255, 0], [0, 0, 255]].map(c => run(c).map((v, i) => (v - o[i]) / 255));
			fx = [...cols[0], ...cols[1], ...cols[2], ...o].map(v => +v.toFixed(4)).join(",");
		}
		const white = ctx.bgs && ctx.bgs.length === 1 && ctx.bgs[0][0] >= 255 && ctx.bgs[0][1] >= 255 && ctx.bgs[0][2] >= 255;
		if (ctx.opacity >= 1 && !fx && !ctx.blur && !ctx.shadow && !ctx.blend && white && !dark) return "";
		const bgs = ctx.bgs ? ctx.bgs.map(c => c.slice(0, 3).map(v => Math.round(v)).join(",")).join("|") : "img";
		return [+ctx.opacity.toFixed(4), +ctx.blur.toFixed(2), ctx.shadow ? 1 : 0, /^[a-z-]+$/.test(ctx.blend || "") ? ctx.blend : "", fx, bgs, dark ? "dark" : ""].join("_");
	};
	// frameCovers: the parts of the frame element e's content box (g, from
	// frameWindow; v its verdict as a box) that a painter above it covers,
	// in the frame's own pixels, at most MAX_COVERS: the frame's document
	// is judged with them as boxes fixed over its viewport
	// (frameWin.covers). Asked once the page is walked.
	const MAX_COVERS = 64;
	const frameCovers = (e, v, g) => {
		const out = [];
		for (const p of painters) {
			if (p.over || out.length >= MAX_COVERS) continue;
			const a = cut(p.area, g.c);
			if (!shows(a) || !p.pseudo && holds(p.e, e) || p.float && !inFloat(e, v.sc) || !above(p, e, v)) continue;
			out.push([(a.l - g.c.l) / g.kx, (a.t - g.c.t) / g.ky, (a.r - g.c.l) / g.kx, (a.b - g.c.t) / g.ky]);
		}
		return out;
	};
	// The boxes the frame above covers over this document's viewport
	// (frameWin.covers) cover what no scroll brings out from under them,
	// as a box fixed there (fixedPainter) over anything in the document.
	if (frameWin && frameWin.covers && frameWin.covers.length) {
		const scroll = docScrolls();
		const over = doc.createElement("span"); // (never inserted: it holds nothing of the document)
		for (const [l, t, r, b] of scroll.x ? [] : frameWin.covers) {
			const area = !scroll.y ? {l, t, r, b} : t <= 1 ? {l, t: -INF, r, b: b - win.scrollY} : null;
			if (area) painters.push({e: over, z: TOP, sc: ROOT, pseudo: false, over: true, bg: null, area});
		}
	}
	return {authored: authored !== null, enter, still, unseen, text, painted, valueShows, placeholderShows, shadowed, inFlow, generated, box, painters, style, fresh, frameWindow, frameCovers, frameContext, tops, holds, base, html, body};
};
