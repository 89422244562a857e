package browser

import (
	"context"
	"encoding/base64"
	"strconv"
	"strings"
	"unicode/utf8"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
)

// The sources family: the page's scripts and styles, of a document judged
// clean (gateTab).
func sourceFuncs(s *Service) []hostFunc {
	return []hostFunc{{hostfuncs.JSON(abi.HostBrowserSources, s.inspector.sources), gateTab}}
}

// The inspector's ww_browser_sources: the page's scripts and styles,
// inline or fetched, a fetched body judged by the gate before it is shown.

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
		out.Sources = orEmpty(out.Sources)
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
