package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
)

// The inspection family: the snapshot, the console and network logs, the
// images and an element's computed style, each of a document judged clean
// (gateTab).
func inspectFuncs(s *Service) []hostFunc {
	return []hostFunc{
		{hf(abi.HostBrowserSnapshot, s.inspector.snapshotCall), gateTab},
		{hostfuncs.JSON(abi.HostBrowserConsole, s.inspector.consoleCall), gateTab},
		{hostfuncs.JSON(abi.HostBrowserNetwork, s.inspector.networkCall), gateTab},
		{hostfuncs.JSON(abi.HostBrowserImages, s.inspector.images), gateTab},
		{hostfuncs.JSON(abi.HostBrowserComputedStyle, s.inspector.computedStyle), gateTab},
	}
}

const imagesJS = `(limit) => {
	const all = Array.from(document.images);
	return {total: all.length, images: all.slice(0, limit).map(i => {
		const r = i.getBoundingClientRect();
		const st = getComputedStyle(i);
		return {src: i.currentSrc || i.src, alt: i.alt || "", width: Math.round(r.width), height: Math.round(r.height),
			natural: i.naturalWidth ? i.naturalWidth + "x" + i.naturalHeight : "",
			visible: r.width > 0 && r.height > 0 && st.visibility !== "hidden" && st.display !== "none",
			loaded: i.complete && i.naturalWidth > 0};
	})};
}`

// images is ww_browser_images.
func (s *inspector) images(ctx context.Context, c *hostfuncs.Caller, req abi.BrowserImagesRequest) (abi.BrowserImagesResponse, error) {
	var out abi.BrowserImagesResponse
	return onTab(ctx, c, s.sessions.pageTab, func(ss *session, t *tab) (abi.BrowserImagesResponse, error) {
		limit := req.Limit
		if limit <= 0 {
			limit = 200
		}
		var res struct {
			Total  int                `json:"total"`
			Images []abi.BrowserImage `json:"images"`
		}
		if err := s.pages.evalInto(ss, t, imagesJS, limit, &res); err != nil {
			return out, err
		}
		// A text alternative goes out only where a person sees its
		// picture (seentext.go).
		seen := s.pages.seenText(ss, t)
		for i := range res.Images {
			res.Images[i].Alt = seen.shown(res.Images[i].Alt)
		}
		out.Images, out.Total = orEmpty(res.Images), res.Total
		out.State = s.pages.state(ss, t, false)
		return out, nil
	})
}

var defaultStyleProps = []string{
	"color", "background-color", "background-image", "font-family", "font-size", "font-weight", "line-height",
	"text-align", "text-decoration-line", "border", "border-radius", "box-shadow", "opacity", "display", "position",
	"margin", "padding", "width", "height",
}

const styleJS = `([props, limit, el]) => {
	const pick = (e) => {
		const cs = getComputedStyle(e), r = e.getBoundingClientRect(), styles = {};
		for (const p of props) { const v = cs.getPropertyValue(p); if (v !== "") styles[p] = v; }
		let text = "";
		for (const n of e.childNodes) if (n.nodeType === 3) text += n.textContent;
		text = text.trim().replace(/\s+/g, " ").slice(0, 80);
		return {tag: e.tagName.toLowerCase(), text, box: [r.x, r.y, r.width, r.height].map(Math.round).join(","), styles};
	};
	if (el) return {total: 1, elements: [pick(el)]};
	const out = [];
	let total = 0;
	for (const e of document.body ? document.body.querySelectorAll("*") : []) {
		if (["SCRIPT","STYLE","NOSCRIPT","TEMPLATE","META","LINK"].includes(e.tagName)) continue;
		const r = e.getBoundingClientRect();
		if (r.width === 0 || r.height === 0) continue;
		let hasText = false;
		for (const n of e.childNodes) if (n.nodeType === 3 && n.textContent.trim()) { hasText = true; break; }
		if (!hasText && !["IMG","BUTTON","INPUT","SELECT","TEXTAREA","SVG","VIDEO","CANVAS","HR"].includes(e.tagName.toUpperCase())) continue;
		total++;
		if (out.length < limit) out.push(pick(e));
	}
	return {total, elements: out};
}`

// computedStyle is ww_browser_computed_style.
func (s *inspector) computedStyle(ctx context.Context, c *hostfuncs.Caller, req abi.BrowserComputedStyleRequest) (abi.BrowserComputedStyleResponse, error) {
	var out abi.BrowserComputedStyleResponse
	return onTab(ctx, c, s.sessions.pageTab, func(ss *session, t *tab) (abi.BrowserComputedStyleResponse, error) {
		props := req.Properties
		if len(props) == 0 {
			props = defaultStyleProps
		}
		limit := req.Limit
		if limit <= 0 {
			limit = 60
		}
		var res struct {
			Total    int                        `json:"total"`
			Elements []abi.BrowserStyledElement `json:"elements"`
		}
		if req.Ref != "" {
			loc, _, err := s.pages.locate(ss, t, req.Ref)
			if err != nil {
				return out, err
			}
			v, dialog, err := race(ss, func() (any, error) {
				return loc.Evaluate(`(el, [props, limit]) => (`+styleJS+`)([props, limit, el])`, []any{props, limit})
			})
			if dialog {
				return out, errDialogOpen(openDialog(ss, t))
			}
			if err != nil {
				return out, s.sessions.mapErr(ss, err, "reading styles of "+req.Ref)
			}
			b, _ := json.Marshal(v)
			json.Unmarshal(b, &res)
		} else if err := s.pages.evalInto(ss, t, styleJS, []any{props, limit, nil}, &res); err != nil {
			return out, err
		}
		// An element's text goes out only as far as a person sees it
		// (seentext.go).
		seen := s.pages.seenText(ss, t)
		for i := range res.Elements {
			res.Elements[i].Text = seen.shown(res.Elements[i].Text)
		}
		out.Elements, out.Total = orEmpty(res.Elements), res.Total
		out.State = s.pages.state(ss, t, false)
		return out, nil
	})
}

// inspector are the host functions that read a page without changing it:
// snapshots, logs, images, styles, screenshots and PDFs, scripts, storage,
// cookies, sources, reading mode and the marked screenshot for vision.
type inspector struct {
	*env
	sessions  *sessions
	pages     *pages
	concealer *concealer

	// markShot takes the screenshot ww_vision_locate sends, with its
	// marks (markedShot); tests replace it.
	markShot func(ss *session, t *tab) ([]byte, []abi.ScreenMark, error)
}

// snapshotCall is ww_browser_snapshot.
func (s *inspector) snapshotCall(ctx context.Context, c *hostfuncs.Caller, req abi.BrowserSnapshotRequest) (abi.BrowserSnapshotResponse, error) {
	var out abi.BrowserSnapshotResponse
	return onTab(ctx, c, s.sessions.beginWith(false), func(ss *session, t *tab) (abi.BrowserSnapshotResponse, error) {
		var err error
		var title func() string
		if openDialog(ss, t) == nil {
			title = titleSoon(t.page)
			if out.Snapshot, err = s.pages.snapshot(ss, t, req.Ref, req.Depth); err != nil {
				return out, err
			}
		}
		out.State = s.pages.stateWith(ss, t, false, title)
		return out, nil
	})
}

// consoleCall is ww_browser_console.
func (s *inspector) consoleCall(ctx context.Context, c *hostfuncs.Caller, req abi.BrowserConsoleRequest) (abi.BrowserConsoleResponse, error) {
	var out abi.BrowserConsoleResponse
	rank := map[string]int{"error": 0, "pageerror": 0, "assert": 0, "warning": 1, "warn": 1, "info": 2, "log": 2, "": 2, "debug": 3, "trace": 3}
	maxRank := 3
	if req.Level != "" {
		r, ok := rank[req.Level]
		if !ok {
			return out, abi.Errorf(abi.CodeInputInvalid, "level %q: use error, warning, info or debug", req.Level)
		}
		maxRank = r
	}
	return onTab(ctx, c, s.sessions.beginWith(false), func(ss *session, t *tab) (abi.BrowserConsoleResponse, error) {
		limit := req.Limit
		if limit <= 0 {
			limit = 100
		}
		ss.evMu.Lock()
		hidden := 0
		for _, m := range ss.console.items {
			if !shownDoc(ss.conDoc[m.Seq]) {
				hidden++ // a withheld or unjudged page's words (gate.go)
				continue
			}
			r, ok := rank[m.Type]
			if !ok {
				r = 2
			}
			if m.Seq > req.Since && r <= maxRank {
				// Page text: no invisible format characters (a model
				// reads tag characters no person sees).
				m.Text = visibleChars(m.Text)
				out.Messages = append(out.Messages, m)
			}
		}
		out.Dropped = ss.console.dropped
		if req.Clear {
			ss.console.items = nil
		}
		ss.evMu.Unlock()
		if hidden > 0 {
			ss.warn(fmt.Sprintf("%d console messages of pages withheld or not yet judged are left out", hidden))
		}
		if len(out.Messages) > limit {
			out.Dropped += int64(len(out.Messages) - limit)
			out.Messages = out.Messages[len(out.Messages)-limit:]
		}
		out.Messages = orEmpty(out.Messages)
		out.State = s.pages.state(ss, t, false)
		return out, nil
	})
}

// orEmpty is l, or an empty list for nil: a list in an answer is [] when
// there is nothing to list, never null.
func orEmpty[T any](l []T) []T {
	if l == nil {
		return []T{}
	}
	return l
}

var staticTypes = map[string]bool{"image": true, "font": true, "stylesheet": true, "media": true, "manifest": true, "texttrack": true}

// networkCall is ww_browser_network.
func (s *inspector) networkCall(ctx context.Context, c *hostfuncs.Caller, req abi.BrowserNetworkRequest) (abi.BrowserNetworkResponse, error) {
	var out abi.BrowserNetworkResponse
	return onTab(ctx, c, s.sessions.beginWith(false), func(ss *session, t *tab) (abi.BrowserNetworkResponse, error) {
		limit := req.Limit
		if limit <= 0 {
			limit = 50
		}
		var body *netEntry
		ss.evMu.Lock()
		for _, e := range ss.network.items {
			if req.BodyOf != 0 && e.ID == req.BodyOf {
				body = e
			}
			if !e.mainDoc && !shownDoc(e.doc) {
				// What a withheld or unjudged page requested is its
				// content (gate.go); the navigation that brought it is
				// listed, its body refused (bodyWithheld).
				continue
			}
			if !req.Static && staticTypes[e.ResourceType] {
				continue
			}
			if req.Filter != "" && !strings.Contains(e.URL, req.Filter) {
				continue
			}
			if req.FailedOnly && e.Failure == "" && e.Status < 400 {
				continue
			}
			out.Requests = append(out.Requests, e.BrowserNetworkEntry)
		}
		ss.evMu.Unlock()
		if len(out.Requests) > limit {
			out.Requests = out.Requests[len(out.Requests)-limit:]
		}
		out.Requests = orEmpty(out.Requests)
		if req.BodyOf != 0 {
			if body == nil {
				return out, abi.Errorf(abi.CodeNotFound, "request %d is not in the recent log (it keeps the last %d): list requests again and use an id from it", req.BodyOf, ss.network.max)
			}
			if err := bodyWithheld(body); err != nil {
				return out, err
			}
			// Chromium never answers for some bodies (an opaque no-cors
			// response, one refused by the network policy): bounded.
			limit := s.cfg.actionWait()
			resp, _, err := await(ss, limit, false, body.req.Response)
			if err != nil || resp == nil {
				if isStalled(err) {
					return out, s.sessions.mapErr(ss, err, fmt.Sprintf("reading the response of request %d", req.BodyOf))
				}
				return out, abi.Errorf(abi.CodeNotFound, "request %d got no response (%s)", req.BodyOf, body.Failure)
			}
			b, _, err := await(ss, limit, false, resp.Body)
			if isStalled(err) {
				return out, abi.Errorf(abi.CodeNotFound, "the body of request %d could not be read within %s (an opaque no-cors response, or one the network policy refused, has no readable body): list the requests again, or fetch the URL with browser_sources", req.BodyOf, limit)
			}
			if err != nil {
				return out, abi.Errorf(abi.CodeNotFound, "the body of request %d is no longer available (redirect, or the page navigated away): %s", req.BodyOf, cleanMsg(err.Error()))
			}
			out.Body = bodyOf(body.URL, body.MIME, b, req.MaxBodyBytes)
		}
		out.State = s.pages.state(ss, t, false)
		return out, nil
	})
}
