package browser

import (
	"context"
	"unicode/utf8"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
)

// ReadableJS returns the page's readable text as {root, text}: the
// rendered, visible text of the main content (main, else the largest
// article, else the body), leaving out navigation, forms, controls, asides,
// and the page's own header and footer (a header inside an article or
// section is the article's and stays). Blocks end lines, so paragraphs and
// list items read as lines. The benchmark (internal/bench/read) runs the
// same script.
const ReadableJS = `() => {
	const pick = () => {
		const main = document.querySelector("main, [role=main]");
		if (main && main.innerText.trim()) return ["main", main];
		let best = null;
		for (const a of document.querySelectorAll("article")) {
			if (!best || a.innerText.length > best.innerText.length) best = a;
		}
		if (best && best.innerText.trim()) return ["article", best];
		return ["body", document.body];
	};
	const [root, el] = pick();
	if (!el) return {root, text: ""};
	const skip = "nav, form, aside, button, select, textarea, input, script, style, noscript, template, dialog:not([open]), " +
		"[role=navigation], [role=banner], [role=contentinfo], [role=search], [role=complementary], [role=form], [role=menu], [role=menubar]";
	const pageEdge = e => (e.tagName === "HEADER" || e.tagName === "FOOTER") && !e.parentElement.closest("article, section, main, [role=main]");
	const out = [];
	const walk = (e) => {
		for (const n of e.childNodes) {
			if (n.nodeType === 3) {
				out.push(n.textContent.replace(/\s+/g, " "));
				continue;
			}
			if (n.nodeType !== 1) continue;
			if (n.matches(skip) || pageEdge(n)) continue;
			if (n.tagName === "BR") { out.push("\n"); continue; }
			if (!n.checkVisibility({checkOpacity: true, checkVisibilityCSS: true})) continue;
			const d = getComputedStyle(n).display;
			const block = !d.startsWith("inline") && d !== "contents";
			if (block) out.push("\n");
			if (d === "table-cell") out.push(" ");
			walk(n.shadowRoot || n);
			if (block) out.push("\n");
		}
	};
	walk(el);
	const text = out.join("").split("\n").map(l => l.replace(/\s+/g, " ").trim()).filter(Boolean).join("\n");
	return {root, text};
}`

// read is ww_browser_read.
func (s *inspector) read(ctx context.Context, c *hostfuncs.Caller, req abi.BrowserReadRequest) (abi.BrowserReadResponse, error) {
	var out abi.BrowserReadResponse
	if req.MaxBytes < 0 {
		return out, abi.Errorf(abi.CodeInputInvalid, "max_bytes = %d: give a positive byte count, at most %d", req.MaxBytes, s.cfg.ReadMaxBytes)
	}
	limit := s.cfg.ReadMaxBytes
	if req.MaxBytes > 0 && req.MaxBytes < limit {
		limit = req.MaxBytes
	}
	return onTab(ctx, c, s.sessions.pageTab, func(ss *session, t *tab) (abi.BrowserReadResponse, error) {
		var res struct {
			Root string `json:"root"`
			Text string `json:"text"`
		}
		if err := s.pages.evalInto(ss, t, ReadableJS, nil, &res); err != nil {
			return out, err
		}
		out.Root, out.Bytes, out.Limit = res.Root, len(res.Text), limit
		out.Text, out.Truncated = cutUTF8(res.Text, limit)
		out.State = s.pages.state(ss, t, false)
		return out, nil
	})
}

// cutUTF8 cuts s to at most n bytes without splitting a character.
func cutUTF8(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}
