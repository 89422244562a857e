package browser

import (
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/weborigin"
)

// loads is what the host knows of why a page did not load, and of a tab
// that shows its egress proxy's answer instead of a site's: the errors a
// navigation ends with (refused, unreachable, a failure Chromium names),
// and the check of a URL before anything loads. Its own concern beside
// pages (which embeds it): it reads the egress proxy's marks and the
// network service's verdicts, never the page.
type loads struct {
	*env
}

// navFailed is the error for a navigation an action started (a link, a
// form submission) that did not load, or nil: the action ran, the page it
// opened did not.
func (s *loads) navFailed(ss *session, t *tab, navBefore int64) error {
	var err error
	if f := t.navFail.Load(); f != nil && f.seq > navBefore {
		code := f.err
		if i := strings.Index(code, "net::"); i >= 0 {
			code = code[i:]
		}
		if code == "net::ERR_ABORTED" {
			return nil
		}
		settleErrorPage(t)
		err = s.loadFailed(ss, f.url, code)
	} else if d := t.doc.Load(); d != nil && d.seq > navBefore {
		err = s.proxyAnswered(ss, d.url, d.headers)
	}
	if e, ok := err.(*abi.Error); ok {
		return abi.Errorf(e.Code, "the action ran, but the page it opened did not load: %s", e.Message).With("url", e.Details["url"])
	}
	return err
}

// loadFailed is the error for a navigation to u that Chromium failed with
// code (net::ERR_...): the egress proxy's reason when it refused or could
// not reach the site, else unreachable or execution_failed by the code.
func (s *loads) loadFailed(ss *session, u, code string) error {
	if err := s.egressFailure(ss, u); err != nil {
		return err
	}
	if why := chromiumRefuses(code); why != "" {
		return abi.Errorf(abi.CodeRefused, "%s was not loaded: %s (%s)", u, why, code).With("url", u)
	}
	for _, e := range unreachableErrs {
		if strings.HasSuffix(code, "ERR_"+e) {
			return abi.Errorf(abi.CodeUnreachable, "could not reach %s (%s): check the URL's host name and port; if they are right, the site may be down: retry later", u, code).With("url", u)
		}
	}
	return abi.Errorf(abi.CodeExecutionFailed, "could not load %s: %s: check the URL, or whether the site is reachable from this host", u, code)
}

// unreachableErrs are Chromium's errors for a site that cannot be reached
// (no such name, nothing answering, the egress proxy failing the tunnel).
var unreachableErrs = []string{"NAME_NOT_RESOLVED", "CONNECTION_REFUSED", "CONNECTION_TIMED_OUT", "ADDRESS_UNREACHABLE",
	"TUNNEL_CONNECTION_FAILED", "PROXY_CONNECTION_FAILED", "CONNECTION_RESET", "CONNECTION_CLOSED", "EMPTY_RESPONSE", "INTERNET_DISCONNECTED", "TIMED_OUT"}

// chromiumRefuses says why Chromium itself refused to load a URL, before
// any request (code: net::ERR_...), or "" for any other failure.
func chromiumRefuses(code string) string {
	switch {
	case strings.HasSuffix(code, "ERR_UNSAFE_PORT"):
		return "the browser never opens this port (an unsafe port: SSH, SMTP and other non-web services)"
	case strings.HasSuffix(code, "ERR_UNSAFE_REDIRECT"):
		return "the site redirected to an address the browser never follows (not http or https)"
	case strings.HasSuffix(code, "ERR_ACCESS_DENIED"), strings.HasSuffix(code, "ERR_BLOCKED_BY_CLIENT"), strings.HasSuffix(code, "ERR_BLOCKED_BY_ADMINISTRATOR"):
		return "the browser refused to open it"
	case strings.HasSuffix(code, "ERR_INVALID_URL"), strings.HasSuffix(code, "ERR_DISALLOWED_URL_SCHEME"), strings.HasSuffix(code, "ERR_UNKNOWN_URL_SCHEME"):
		return "the browser does not open such an address"
	}
	return ""
}

// egressFailure asks Options.EgressFailure why u did not load.
func (s *loads) egressFailure(ss *session, u string) error {
	if s.opts.EgressFailure == nil {
		return nil
	}
	return s.opts.EgressFailure(ss.key.personality, ss.key.session, u)
}

// proxyAnswered is the error for a document the session's egress proxy
// answered itself instead of the site at u (its mark is on headers):
// refused under the policy, or the site could not be reached; nil for a
// site's own answer, whatever its status, title or words. The proxy's
// page is never shown: the error names the address and why.
func (s *loads) proxyAnswered(ss *session, u string, headers map[string]string) error {
	if !ss.egressAnswered(headers) {
		return nil
	}
	if err := s.egressFailure(ss, u); err != nil {
		return err
	}
	// The host's hook did not say (none, or the call that met it is over):
	// the proxy's own headers do.
	shown := shownURL(u)
	if why := headers[egressBlockedHeader]; why != "" {
		return abi.Errorf(abi.CodeRefused, "%s was not loaded: the network policy refused it (%s)", shown, why).With("url", shown)
	}
	return abi.Errorf(abi.CodeUnreachable, "%s could not be reached: %s. Check the URL's host name and port; if they are right, the site may be down: retry later",
		shown, headers[egressReasonHeader]).With("url", shown)
}

// shownURL is u without credentials, query or fragment, as an error names it.
func shownURL(u string) string {
	p, err := url.Parse(u)
	if err != nil {
		return capString(u, 300)
	}
	p.User, p.RawQuery, p.Fragment = nil, "", ""
	return capString(p.String(), 300)
}

// egressShown is the error for a tab that shows its egress proxy's answer
// instead of a page (a link, a script, a meta refresh or a redirect led it
// to an address the proxy refused or could not reach), or nil: whatever
// was read from such a tab is the proxy's words, not the site's, and is
// never returned as content.
func (s *loads) egressShown(ss *session, t *tab) error {
	d := t.doc.Load()
	if d == nil || !ss.egressAnswered(d.headers) {
		return nil
	}
	if d.seq != t.navSeq.Load() && t.page.URL() != d.url {
		return nil // the tab has moved on since
	}
	return s.proxyAnswered(ss, d.url, d.headers)
}

// errorPage is the document Chromium shows for a navigation that failed.
const errorPage = "chrome-error://chromewebdata/"

// gotoSettled is Page.Goto, except for a navigation cut short on its way
// (interrupted): by the error page of an earlier one that failed (in a tab
// already on an error page, settleErrorPage cannot tell whether the
// earlier failure's page has yet to commit, and it commits over the next
// navigation), it is started again, once; by Chromium starting it over
// itself (leaving an error page, it moves the navigation to a new
// renderer), the one that took over is waited for. Either way it answers
// for itself (refused, unreachable, loaded) rather than execution_failed:
// with a nil response, the caller judges the tab as it then is.
func gotoSettled(t *tab, u string, o pw.PageGotoOptions) (pw.Response, error) {
	before := t.navSeq.Load()
	resp, err := t.page.Goto(u, o)
	m := interruptedRe.FindStringSubmatch(fmt.Sprint(err))
	if err != nil && m != nil && m[2] == errorPage {
		resp, err = t.page.Goto(u, o)
		m = interruptedRe.FindStringSubmatch(fmt.Sprint(err))
	}
	if err == nil || m == nil || m[2] != m[1] {
		return resp, err // loaded, failed, or cut short by another navigation (a script's)
	}
	took := m[2] // a URL, not a glob: its "?" and "*" are its own
	if werr := t.page.WaitForURL(func(at string) bool { return at == took }, pw.PageWaitForURLOptions{WaitUntil: o.WaitUntil, Timeout: o.Timeout}); werr != nil {
		if f := t.navFail.Load(); f != nil && f.seq > before {
			return nil, errors.New(f.err) // net::ERR_...: the caller says why
		}
		return nil, werr
	}
	return nil, nil
}

// interruptedRe is Playwright's message for a navigation another one cut
// short: the URL of each.
var interruptedRe = regexp.MustCompile(`Navigation to "([^"]*)" is interrupted by another navigation to "([^"]*)"`)

// settleErrorPage waits, briefly, for the error page of a failed
// navigation to commit: Playwright reports the failure first, and a
// navigation started before the error page arrives is interrupted by it.
func settleErrorPage(t *tab) {
	bounded(stuckProbe, func() error {
		return t.page.WaitForURL(errorPage, pw.PageWaitForURLOptions{WaitUntil: pw.WaitUntilStateCommit, Timeout: ms(stuckProbe)})
	})
}

// checkURL accepts only http and https: file:, data:, javascript: and the
// rest are refused before anything starts. It reads the URL as web_fetch
// does (weborigin.ParseURL), so one text gets one code from both.
func checkURL(raw string) (string, error) {
	u, err := weborigin.ParseURL(raw)
	if err != nil {
		return "", err
	}
	return u.String(), nil
}

// checkOpenURL is checkURL for a URL about to be loaded, then
// Options.CheckURL (the network service's check: credentials, ports,
// hosts), so such a URL is refused before anything starts.
func (s *loads) checkOpenURL(raw string) (string, error) {
	u, err := checkURL(raw)
	if err != nil || s.opts.CheckURL == nil {
		return u, err
	}
	if err := s.opts.CheckURL(u); err != nil {
		var ae *abi.Error
		if errors.As(err, &ae) {
			return "", ae
		}
		return "", abi.Errorf(abi.CodeRefused, "%v", err)
	}
	return u, nil
}
