package browser

import (
	"context"
	"net/url"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
)

// The sessions family: closing the caller's session and listing its
// sessions touch no tab and return no page content (gateNone).
func sessionFuncs(s *Service) []hostFunc {
	return []hostFunc{
		{hostfuncs.JSON(abi.HostBrowserClose, s.sessions.closeCall), gateNone},
		{hostfuncs.JSON(abi.HostBrowserSessions, s.sessions.sessionsCall), gateNone},
	}
}

// The session host functions: ww_browser_close and ww_browser_sessions.

// closeCall is ww_browser_close.
func (s *sessions) closeCall(ctx context.Context, c *hostfuncs.Caller, _ abi.BrowserCloseRequest) (abi.BrowserCloseResponse, error) {
	k := key(c.Personality(), c.Session())
	s.mu.Lock()
	_, open := s.byKey[k]
	delete(s.crashed, k)
	delete(s.lostNode, k)
	delete(s.reaped, k)
	s.mu.Unlock()
	if err := s.closer.closeByKey(c.Personality(), c.Session()); err != nil {
		return abi.BrowserCloseResponse{}, abi.Errorf(abi.CodeExecutionFailed, "%v", err)
	}
	return abi.BrowserCloseResponse{Closed: open}, nil
}

// sessionsCall is ww_browser_sessions: the caller's own session only. The
// sessions of other clients, even of the same personality or token, are
// not listed: their names would let a client present them and their URLs
// carry what another agent typed. The URL is listed without credentials,
// query values or fragment.
func (s *sessions) sessionsCall(ctx context.Context, c *hostfuncs.Caller, _ abi.BrowserSessionsRequest) (abi.BrowserSessionsResponse, error) {
	out := abi.BrowserSessionsResponse{Sessions: []abi.BrowserSessionInfo{}}
	k := key(c.Personality(), c.Session())
	for _, i := range s.list() {
		if i.Personality != k.personality || i.Session != k.session {
			continue
		}
		i.Current = true
		i.Personality = ""
		i.URL = listedURL(i.URL)
		out.Sessions = append(out.Sessions, i)
	}
	out.Browser = s.launcher.browserMode()
	return out, nil
}

// listedURL is a URL as a listing shows it: no user or password, every
// query value and the fragment replaced, so a token in a query string is
// not repeated. What cannot be parsed is not shown.
func listedURL(raw string) string {
	if raw == "" {
		return ""
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL hidden)"
	}
	u.User = nil
	if u.RawQuery != "" {
		var parts []string
		for _, kv := range strings.Split(u.RawQuery, "&") {
			k, _, found := strings.Cut(kv, "=")
			if !found { // a bare value: it may be the secret itself
				k = "•••"
			} else {
				k += "=•••"
			}
			parts = append(parts, k)
		}
		u.RawQuery = strings.Join(parts, "&")
	}
	frag := u.Fragment != "" || u.RawFragment != ""
	u.Fragment, u.RawFragment = "", ""
	if frag {
		return u.String() + "#•••"
	}
	return u.String()
}
