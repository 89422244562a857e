package browser

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
)

const defaultBodyBytes = 100 << 10

// bodyOf shapes a fetched body: text when it reads as text, else base64.
func bodyOf(u, mime string, b []byte, maxBytes int) *abi.BrowserBody {
	if maxBytes <= 0 {
		maxBytes = defaultBodyBytes
	}
	out := &abi.BrowserBody{URL: u, MIME: mime, Size: len(b)}
	if len(b) > maxBytes {
		b, out.Truncated = b[:maxBytes], true
	}
	textual := strings.HasPrefix(mime, "text/") || strings.Contains(mime, "json") || strings.Contains(mime, "javascript") ||
		strings.Contains(mime, "xml") || strings.Contains(mime, "css") || mime == ""
	if textual && (utf8.Valid(b) || out.Truncated && utf8.Valid(b[:max(0, len(b)-4)])) {
		out.Text = strings.ToValidUTF8(string(b), "")
	} else {
		out.Base64 = base64.StdEncoding.EncodeToString(b)
	}
	return out
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
		out.Images, out.Total = res.Images, res.Total
		if out.Images == nil {
			out.Images = []abi.BrowserImage{}
		}
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
		out.Elements, out.Total = res.Elements, res.Total
		if out.Elements == nil {
			out.Elements = []abi.BrowserStyledElement{}
		}
		out.State = s.pages.state(ss, t, false)
		return out, nil
	})
}

// screenshot is ww_browser_screenshot.
func (s *inspector) screenshot(ctx context.Context, c *hostfuncs.Caller, req abi.BrowserScreenshotRequest) (abi.BrowserScreenshotResponse, error) {
	var out abi.BrowserScreenshotResponse
	mode := req.Mode
	if mode == "" {
		mode = "viewport"
		if req.Ref != "" {
			mode = "element"
		}
	}
	if mode != "viewport" && mode != "full" && mode != "element" {
		return out, abi.Errorf(abi.CodeInputInvalid, "mode %q: use viewport, full or element", req.Mode)
	}
	if mode == "element" && req.Ref == "" {
		return out, abi.Errorf(abi.CodeInputInvalid, "an element screenshot needs a ref from browser_snapshot")
	}
	f, err := imageFormat(req.Format, req.Quality)
	if err != nil {
		return out, err
	}
	if req.Marks && mode != "viewport" {
		return out, abi.Errorf(abi.CodeInputInvalid, "marks apply to the viewport only, not mode %s: drop mode and ref, scroll what you want into view (browser_scroll), then take the marked screenshot", mode)
	}
	if req.Marks && f.cdp {
		return out, abi.Errorf(abi.CodeInputInvalid, "a marked screenshot is PNG or JPEG (the host draws the marks and does not encode WebP): use format png or jpeg")
	}
	path, err := s.pages.workspaceFile(c.Personality(), req.Name, "screenshot", f.ext)
	if err != nil {
		return out, err
	}
	return onTab(ctx, c, s.sessions.pageTab, func(ss *session, t *tab) (abi.BrowserScreenshotResponse, error) {
		var loc pw.Locator
		if mode == "element" {
			if loc, _, err = s.pages.locate(ss, t, req.Ref); err != nil {
				return out, err
			}
		}
		var img []byte
		if req.Marks {
			img, out.Marks, out.MarksTotal, err = s.markedCapture(ss, t, f)
		} else {
			img, err = s.capture(ss, t, f, mode, loc, s.concealer.secretValues(c.Personality(), c.Session()))
		}
		if err != nil {
			return out, err
		}
		if err := s.pages.egressShown(ss, t); err != nil {
			return out, err // a picture of the egress proxy's answer, not of a page
		}
		if err := writePrivate(path, img); err != nil {
			return out, abi.Errorf(abi.CodeExecutionFailed, "writing the screenshot: %v", err)
		}
		out.Path, out.MIME, out.Bytes = path, f.mime, len(img)
		out.Width, out.Height = imageSize(img)
		if !req.NoInline {
			out.Data = base64.StdEncoding.EncodeToString(img)
		}
		out.State = s.pages.state(ss, t, false)
		return out, nil
	})
}

// capture takes a plain screenshot (mode viewport, full, or element loc)
// with secret values hidden. It leaves the caret as it is: Playwright
// hides it by setting every text field's inline style for the capture and
// back, which the change watcher rightly counts as a change, so the next
// action after a screenshot would take a whole new snapshot.
func (s *inspector) capture(ss *session, t *tab, f format, mode string, loc pw.Locator, secrets []string) ([]byte, error) {
	img, dialog, err := race(ss, func() ([]byte, error) {
		var clip *pw.Rect
		full := mode == "full"
		if loc != nil && (len(secrets) > 0 || f.cdp) {
			// The element itself may be one that gets hidden, and
			// Locator.Screenshot waits for it to be visible: capture its
			// box from the page instead.
			var err error
			if clip, full, err = elementClip(t.page, loc); err != nil {
				return nil, err
			}
			loc = nil
		}
		return concealed(t.page, secrets, "screenshot", func() ([]byte, error) {
			switch {
			case f.cdp:
				return ss.cdpScreenshot(t.page, f, clip, full)
			case loc != nil:
				return loc.Screenshot(pw.LocatorScreenshotOptions{Type: f.typ, Quality: f.quality, Caret: pw.ScreenshotCaretInitial})
			}
			return t.page.Screenshot(pw.PageScreenshotOptions{Type: f.typ, Quality: f.quality, Clip: clip, FullPage: pw.Bool(full), Caret: pw.ScreenshotCaretInitial})
		})
	})
	if dialog {
		return nil, errDialogOpen(openDialog(ss, t))
	}
	if err != nil {
		return nil, s.sessions.mapErr(ss, err, "taking a screenshot")
	}
	return img, nil
}

// elementClip is the box of loc scrolled into view, for a page screenshot:
// viewport coordinates when it fits the viewport, else page coordinates
// and a full-page capture.
func elementClip(p pw.Page, loc pw.Locator) (*pw.Rect, bool, error) {
	if err := loc.ScrollIntoViewIfNeeded(); err != nil {
		return nil, false, err
	}
	box, err := loc.BoundingBox()
	if err != nil {
		return nil, false, err
	}
	if box == nil || box.Width <= 0 || box.Height <= 0 {
		return nil, false, abi.Errorf(abi.CodeNotInteractable, "the element has no box to capture (hidden or empty): take a new snapshot, or capture the page")
	}
	clip := &pw.Rect{X: box.X, Y: box.Y, Width: box.Width, Height: box.Height}
	if vs := p.ViewportSize(); vs != nil && box.X >= 0 && box.Y >= 0 && box.X+box.Width <= float64(vs.Width) && box.Y+box.Height <= float64(vs.Height) {
		return clip, false, nil
	}
	v, err := p.Evaluate(`() => [scrollX, scrollY]`)
	if err != nil {
		return nil, false, err
	}
	if a, ok := v.([]any); ok && len(a) == 2 {
		x, _ := a[0].(float64)
		y, _ := a[1].(float64)
		if xi, ok := a[0].(int); ok {
			x = float64(xi)
		}
		if yi, ok := a[1].(int); ok {
			y = float64(yi)
		}
		clip.X += x
		clip.Y += y
	}
	return clip, true, nil
}

// pdf is ww_browser_pdf.
func (s *inspector) pdf(ctx context.Context, c *hostfuncs.Caller, req abi.BrowserPDFRequest) (abi.BrowserPDFResponse, error) {
	var out abi.BrowserPDFResponse
	path, err := s.pages.workspaceFile(c.Personality(), req.Name, "page", ".pdf")
	if err != nil {
		return out, err
	}
	return onTab(ctx, c, s.sessions.pageTab, func(ss *session, t *tab) (abi.BrowserPDFResponse, error) {
		format := req.Format
		if format == "" {
			format = "A4"
		}
		secrets := s.concealer.secretValues(c.Personality(), c.Session())
		b, dialog, err := race(ss, func() ([]byte, error) {
			return concealed(t.page, secrets, "PDF", func() ([]byte, error) {
				return t.page.PDF(pw.PagePdfOptions{Format: pw.String(format), Landscape: pw.Bool(req.Landscape), PrintBackground: pw.Bool(true)})
			})
		})
		if dialog {
			return out, errDialogOpen(openDialog(ss, t))
		}
		if err != nil {
			if strings.Contains(err.Error(), "headless") {
				return out, abi.Errorf(abi.CodeNotAvailable, "PDF printing works only in headless Chromium: this browser is headed")
			}
			return out, s.sessions.mapErr(ss, err, "printing to PDF")
		}
		if err := s.pages.egressShown(ss, t); err != nil {
			return out, err
		}
		if err := writePrivate(path, b); err != nil {
			return out, abi.Errorf(abi.CodeExecutionFailed, "writing the PDF: %v", err)
		}
		out.Path, out.Bytes = path, len(b)
		out.State = s.pages.state(ss, t, false)
		return out, nil
	})
}

const defaultEvalBytes = 64 << 10

// evaluate is ww_browser_evaluate (browser.eval).
func (s *inspector) evaluate(ctx context.Context, c *hostfuncs.Caller, req abi.BrowserEvaluateRequest) (abi.BrowserEvaluateResponse, error) {
	var out abi.BrowserEvaluateResponse
	if strings.TrimSpace(req.Expression) == "" {
		return out, abi.Errorf(abi.CodeInputInvalid, "expression is empty: give a JavaScript expression or function, e.g. () => document.title")
	}
	return onTab(ctx, c, s.sessions.pageTab, func(ss *session, t *tab) (abi.BrowserEvaluateResponse, error) {
		var err error
		var loc pw.Locator
		if req.Ref != "" {
			if loc, _, err = s.pages.locate(ss, t, req.Ref); err != nil {
				return out, err
			}
		}
		if err := stillJudged(c, t); err != nil {
			return out, err
		}
		v, dialog, err := race(ss, func() (any, error) {
			if loc != nil {
				return loc.Evaluate(req.Expression, nil)
			}
			return t.page.Evaluate(req.Expression)
		})
		if dialog {
			out.Result = json.RawMessage("null")
			out.State = s.pages.state(ss, t, false)
			return out, nil
		}
		if err != nil {
			if isStalled(err) {
				return out, s.sessions.mapErr(ss, err, "running the script")
			}
			if pwTimeout(err) {
				return out, abi.Errorf(abi.CodeTimeout, "the script did not finish within %s", s.cfg.actionWait())
			}
			return out, abi.Errorf(abi.CodeExecutionFailed, "the script threw: %s", cleanMsg(err.Error()))
		}
		if err := s.pages.egressShown(ss, t); err != nil {
			return out, err // the script read the egress proxy's answer
		}
		b, err := json.Marshal(v)
		if err != nil {
			b, _ = json.Marshal(fmt.Sprint(v))
		}
		maxB := req.MaxBytes
		if maxB <= 0 {
			maxB = defaultEvalBytes
		}
		if len(b) > maxB {
			b, _ = json.Marshal(capString(string(b), maxB))
			out.Truncated = true
		}
		out.Result = b
		out.State = s.pages.state(ss, t, false)
		return out, nil
	})
}

// storage is ww_browser_storage.
func (s *inspector) storage(ctx context.Context, c *hostfuncs.Caller, req abi.BrowserStorageRequest) (abi.BrowserStorageResponse, error) {
	var out abi.BrowserStorageResponse
	kind := req.Kind
	if kind == "" {
		kind = "all"
	}
	if kind != "all" && kind != "local" && kind != "session" && kind != "cookies" {
		return out, abi.Errorf(abi.CodeInputInvalid, "kind %q: use all, local, session or cookies", req.Kind)
	}
	return onTab(ctx, c, s.sessions.pageTab, func(ss *session, t *tab) (abi.BrowserStorageResponse, error) {
		var err error
		u, _ := url.Parse(t.page.URL())
		if u != nil && u.Host != "" {
			out.Origin = u.Scheme + "://" + u.Host
		}
		items := func(ws pw.WebStorage) ([]abi.BrowserStorageItem, error) {
			all, _, err := await(ss, s.cfg.actionWait(), false, ws.Items)
			if err != nil {
				return nil, s.sessions.mapErr(ss, err, "reading storage")
			}
			out := make([]abi.BrowserStorageItem, 0, len(all))
			for _, it := range all {
				i := abi.BrowserStorageItem{Name: it.Name, Size: len(it.Value)}
				if req.Values {
					i.Value = capString(it.Value, 8<<10)
				}
				out = append(out, i)
			}
			sort.Slice(out, func(a, b int) bool { return out[a].Name < out[b].Name })
			return out, nil
		}
		if out.Origin != "" && (kind == "all" || kind == "local") {
			if out.Local, err = items(t.page.LocalStorage()); err != nil {
				return out, err
			}
		}
		if out.Origin != "" && (kind == "all" || kind == "session") {
			if out.Session, err = items(t.page.SessionStorage()); err != nil {
				return out, err
			}
		}
		if kind == "all" || kind == "cookies" {
			var cs []pw.Cookie
			cs, _, err = await(ss, s.cfg.actionWait(), false, func() ([]pw.Cookie, error) {
				if out.Origin != "" {
					return ss.bctx.Cookies(t.page.URL())
				}
				return ss.bctx.Cookies()
			})
			if err != nil {
				return out, s.sessions.mapErr(ss, err, "reading cookies")
			}
			for _, ck := range cs {
				bc := abi.BrowserCookie{Name: ck.Name, Domain: ck.Domain, Path: ck.Path, HTTPOnly: ck.HttpOnly, Secure: ck.Secure, Size: len(ck.Value)}
				if ck.Expires > 0 {
					bc.Expires = ck.Expires
				}
				if ck.SameSite != nil {
					bc.SameSite = string(*ck.SameSite)
				}
				if req.Values {
					bc.Value = ck.Value
				}
				out.Cookies = append(out.Cookies, bc)
			}
		}
		out.State = s.pages.state(ss, t, false)
		return out, nil
	})
}

// cookies is ww_browser_cookies.
func (s *inspector) cookies(ctx context.Context, c *hostfuncs.Caller, req abi.BrowserCookiesRequest) (abi.BrowserCookiesResponse, error) {
	var out abi.BrowserCookiesResponse
	if len(req.Set) == 0 && !req.Clear {
		return out, abi.Errorf(abi.CodeInputInvalid, "nothing to do: give cookies in set, or clear")
	}
	return onTab(ctx, c, s.sessions.beginWith(false), func(ss *session, t *tab) (abi.BrowserCookiesResponse, error) {
		if req.Clear {
			o := pw.BrowserContextClearCookiesOptions{}
			if req.Name != "" {
				o.Name = req.Name
			}
			if req.Domain != "" {
				o.Domain = req.Domain
			}
			if err := await0(ss, s.cfg.actionWait(), func() error { return ss.bctx.ClearCookies(o) }); err != nil {
				return out, s.sessions.mapErr(ss, err, "clearing cookies")
			}
			out.Cleared = true
		}
		if len(req.Set) > 0 {
			cur := t.page.URL()
			var cs []pw.OptionalCookie
			for _, k := range req.Set {
				if k.Name == "" {
					return out, abi.Errorf(abi.CodeInputInvalid, "a cookie needs a name")
				}
				oc := pw.OptionalCookie{Name: k.Name, Value: k.Value}
				if k.Domain != "" {
					oc.Domain = pw.String(k.Domain)
					p := k.Path
					if p == "" {
						p = "/"
					}
					oc.Path = pw.String(p)
				} else {
					if _, err := checkURL(cur); err != nil {
						return out, abi.Errorf(abi.CodeInputInvalid, "cookie %s has no domain and the tab shows no http(s) page: give a domain or navigate first", k.Name)
					}
					oc.URL = pw.String(cur)
				}
				if k.Expires > 0 {
					oc.Expires = pw.Float(k.Expires)
				}
				if k.HTTPOnly {
					oc.HttpOnly = pw.Bool(true)
				}
				if k.Secure {
					oc.Secure = pw.Bool(true)
				}
				if k.SameSite != "" {
					ssa := pw.SameSiteAttribute(k.SameSite)
					oc.SameSite = &ssa
				}
				cs = append(cs, oc)
			}
			if err := await0(ss, s.cfg.actionWait(), func() error { return ss.bctx.AddCookies(cs) }); err != nil {
				if isStalled(err) {
					return out, s.sessions.mapErr(ss, err, "setting cookies")
				}
				return out, abi.Errorf(abi.CodeInputInvalid, "setting cookies: %s", cleanMsg(err.Error()))
			}
			out.Set = len(cs)
		}
		out.State = s.pages.state(ss, t, false)
		return out, nil
	})
}

const sourcesJS = `() => {
	const out = [];
	let si = 0, ci = 0;
	for (const s of document.scripts) {
		if (s.src) out.push({kind: "script", url: s.src});
		else out.push({kind: "script", url: "inline:script:" + (si++), bytes: s.text.length});
	}
	for (const l of document.querySelectorAll('link[rel~="stylesheet"][href], style')) {
		if (l.tagName === "LINK") out.push({kind: "stylesheet", url: l.href});
		else out.push({kind: "stylesheet", url: "inline:stylesheet:" + (ci++), bytes: l.textContent.length});
	}
	return out;
}`

// sources is ww_browser_sources.
func (s *inspector) sources(ctx context.Context, c *hostfuncs.Caller, req abi.BrowserSourcesRequest) (abi.BrowserSourcesResponse, error) {
	var out abi.BrowserSourcesResponse
	return onTab(ctx, c, s.sessions.pageTab, func(ss *session, t *tab) (abi.BrowserSourcesResponse, error) {
		maxB := req.MaxBytes
		if maxB <= 0 {
			maxB = defaultBodyBytes
		}
		if req.Fetch != "" {
			// A fetch sends the session's cookies: an act, judged on
			// this page (RiskWhen in the tool's manifest).
			if err := stillJudged(c, t); err != nil {
				return out, err
			}
			var err error
			if out.Fetched, err = s.fetchSource(ss, t, req.Fetch, maxB); err != nil {
				return out, err
			}
			out.State = s.pages.state(ss, t, false)
			return out, nil
		}
		var all []abi.BrowserSource
		if err := s.pages.evalInto(ss, t, sourcesJS, nil, &all); err != nil {
			return out, err
		}
		for _, src := range all {
			if req.Kind == "" || req.Kind == src.Kind {
				out.Sources = append(out.Sources, src)
			}
		}
		if out.Sources == nil {
			out.Sources = []abi.BrowserSource{}
		}
		out.State = s.pages.state(ss, t, false)
		return out, nil
	})
}

// fetchSource is one source's body, at most maxB bytes: an inline script or
// style (inline:script:N, inline:stylesheet:N) or a URL (fetchURL).
func (s *inspector) fetchSource(ss *session, t *tab, fetch string, maxB int) (*abi.BrowserBody, error) {
	if rest, ok := strings.CutPrefix(fetch, "inline:"); ok {
		return s.inlineSource(ss, t, fetch, rest, maxB)
	}
	return s.fetchURL(ss, fetch, maxB)
}

// inlineSource is the text of the page's inline script or style named
// fetch (rest is what follows "inline:").
func (s *inspector) inlineSource(ss *session, t *tab, fetch, rest string, maxB int) (*abi.BrowserBody, error) {
	kind, n, _ := strings.Cut(rest, ":")
	i, err := strconv.Atoi(n)
	if err != nil || (kind != "script" && kind != "stylesheet") {
		return nil, abi.Errorf(abi.CodeInputInvalid, "%q: inline sources are named inline:script:N or inline:stylesheet:N", fetch)
	}
	var text *string
	err = s.pages.evalInto(ss, t, `([kind, i]) => {
				const list = kind === "script" ? Array.from(document.scripts).filter(s => !s.src) : Array.from(document.querySelectorAll("style"));
				return list[i] ? (kind === "script" ? list[i].text : list[i].textContent) : null; }`, []any{kind, i}, &text)
	if err != nil {
		return nil, err
	}
	if text == nil {
		return nil, abi.Errorf(abi.CodeNotFound, "%s is not on the page: list the sources again", fetch)
	}
	return bodyOf(fetch, map[string]string{"script": "text/javascript", "stylesheet": "text/css"}[kind], []byte(*text), maxB), nil
}

// fetchURL is the body at fetch: the response the page already received,
// else fetched afresh in the session's context (its cookies, its proxy).
func (s *inspector) fetchURL(ss *session, fetch string, maxB int) (*abi.BrowserBody, error) {
	u, err := s.pages.checkOpenURL(fetch)
	if err != nil {
		return nil, err
	}
	// Prefer the response the page already received.
	var hit pw.Request
	var withheld error
	ss.evMu.Lock()
	for _, e := range ss.network.items {
		if e.URL == u || e.URL == fetch {
			hit, withheld = e.req, bodyWithheld(e)
		}
	}
	ss.evMu.Unlock()
	if withheld != nil {
		return nil, withheld // what a withheld or unjudged page loaded
	}
	var body []byte
	mime := ""
	if hit != nil {
		// Chromium never answers for some bodies (an opaque no-cors
		// response): bounded, then fetched afresh below.
		limit := s.cfg.actionWait()
		if resp, _, err := await(ss, limit, false, hit.Response); err == nil && resp != nil {
			if err := s.pages.proxyAnswered(ss, resp.URL(), resp.Headers()); err != nil {
				return nil, err // the egress proxy's answer, not the body
			}
			if b, _, err := await(ss, limit, false, resp.Body); err == nil {
				body, mime = b, resp.Headers()["content-type"]
			}
		}
	}
	if body == nil {
		type fetched struct {
			body    []byte
			headers map[string]string
			status  int
		}
		f, _, err := await(ss, s.cfg.navigationWait()+s.cfg.actionWait(), false, func() (fetched, error) {
			rc, done, err := s.requestContext(ss)
			if err != nil {
				return fetched{}, err
			}
			defer done()
			resp, err := rc.Get(u, pw.APIRequestContextGetOptions{Timeout: ms(s.cfg.navigationWait())})
			if err != nil {
				return fetched{}, err
			}
			defer resp.Dispose()
			b, err := resp.Body()
			return fetched{b, resp.Headers(), resp.Status()}, err
		})
		if isStalled(err) {
			return nil, s.sessions.mapErr(ss, err, "fetching "+u)
		}
		if err != nil {
			return nil, abi.Errorf(abi.CodeExecutionFailed, "fetching %s: %s", u, cleanMsg(err.Error()))
		}
		if err := s.pages.proxyAnswered(ss, u, f.headers); err != nil {
			return nil, err // the egress proxy's answer, not the body
		}
		if f.status == 407 {
			// Only a proxy challenges (the egress proxy refuses a site's 407):
			// its words are not the body.
			return nil, abi.Errorf(abi.CodeExecutionFailed, "fetching %s: the proxy did not accept the request (407 Proxy Authentication Required): retry; if it persists, see the host log", u)
		}
		body, mime = f.body, f.headers["content-type"]
		// A page fetched afresh is a document: judged as any other
		// (gate.go).
		if err := s.pages.judgeFetched(ss, u, f.status, f.headers, f.body); err != nil {
			return nil, err
		}
	}
	mime, _, _ = strings.Cut(mime, ";")
	return bodyOf(u, mime, body, maxB), nil
}

// requestContext is where fetchURL fetches afresh: the session context's
// own request context, or, behind an egress proxy, one made for the fetch
// with the context's cookies and the proxy's credentials (the context's
// own has no credentials: the browser authenticates once, primeProxy, and
// Playwright's requests, made outside the browser, would meet the proxy's
// challenge). done disposes of what was made.
func (s *inspector) requestContext(ss *session) (rc pw.APIRequestContext, done func(), err error) {
	server, user, pass := splitProxy(ss.proxy)
	if user == "" || ss.drv == nil || s.opts.SessionProxy == nil && s.opts.ProxyFor == nil {
		return ss.bctx.Request(), func() {}, nil
	}
	state, err := ss.bctx.StorageState()
	if err != nil {
		return nil, nil, err
	}
	rc, err = ss.drv.pw.Request.NewContext(pw.APIRequestNewContextOptions{StorageState: state,
		Proxy: &pw.Proxy{Server: server, Username: pw.String(user), Password: pw.String(pass), Bypass: pw.String("<-loopback>")}})
	if err != nil {
		return nil, nil, err
	}
	return rc, func() { rc.Dispose() }, nil
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
		if out.Messages == nil {
			out.Messages = []abi.BrowserConsoleMessage{}
		}
		out.State = s.pages.state(ss, t, false)
		return out, nil
	})
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
		if out.Requests == nil {
			out.Requests = []abi.BrowserNetworkEntry{}
		}
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
