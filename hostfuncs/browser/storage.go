package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
)

// The script and state family: evaluating a script, the page's storage
// and its cookies, of a document judged clean (gateTab).
func scriptFuncs(s *Service) []hostFunc {
	return []hostFunc{
		{hostfuncs.JSON(abi.HostBrowserEvaluate, s.inspector.evaluate), gateTab},
		{hostfuncs.JSON(abi.HostBrowserStorage, s.inspector.storage), gateTab},
		{hostfuncs.JSON(abi.HostBrowserCookies, s.inspector.cookies), gateTab},
	}
}

// The inspector's reads of a page's script and stored state:
// ww_browser_evaluate, ww_browser_storage and ww_browser_cookies.

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
