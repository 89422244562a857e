package host

import (
	"net/url"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/browser"
	"github.com/wasmwright/wasmwright/hostfuncs/network"
	"github.com/wasmwright/wasmwright/hostfuncs/operator"
)

// newBrowser builds the browser service from the [browser] table. The browser itself starts lazily on the first browser
// call, so a host without Chromium still starts and serves other tools.
// Values typed into password fields go to the session's secrets, for the
// masker.
func (h *Host) newBrowser() (Service, error) {
	bc := h.cfg.Browser.Config // provisioned and validated at load (BrowserSection)
	bc.StretchWithLoad = h.cfg.Host.StretchWithLoad
	// A session the browser closed on its own (idle, evicted, crashed,
	// browser_close): the network service closes its egress listener, the
	// desk forgets it (h.desk is read when it happens: the desk opens after
	// the browser).
	closed := func(personality, session string) {
		h.egress.closeSession(personality, session)
		if h.desk != nil {
			h.desk.SessionClosed(personality, session)
		}
	}
	o := browser.Options{Logger: h.log, OnSecret: h.secrets.Add, Judge: h.judgeDocument, SecretValues: h.secrets.Values, SessionProxy: h.egress.sessionProxy,
		CheckURL: checkBrowserURL, OnSessionClosed: closed, EgressFailure: h.egress.failure, OnGrid: h.events.gridReport}
	visionOptions(&o, h.vision, h.cfg)
	if n := h.egress.n; n != nil {
		o.ProxyTrustSPKI, o.ProxyHost = n.TrustSPKI(), n.ProxyHost()
	}
	s, err := browser.New(bc, o)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// checkBrowserURL is the browser's URL check before it starts loading:
// text that does not parse as a URL is invalid input; a URL that parses
// but that the policy's rules refuse (credentials, a scheme other than
// http(s), a bad host or port) is refused, as web_fetch answers it (one
// code per cause, network.CheckOpenURL).
func checkBrowserURL(u string) error {
	if _, err := url.Parse(u); err != nil {
		return abi.Errorf(abi.CodeInputInvalid, "the URL does not parse (%v): check it", err)
	}
	return network.CheckOpenURL(u)
}

// operatorBrowser is b as an operator.Browser: nil (not a nil
// *browser.Service in the interface) when the host runs without one.
func operatorBrowser(b *browser.Service) operator.Browser {
	if b != nil {
		return b
	}
	return nil
}

// Browser is the browser service, nil when the host runs without one.
// The operator console reads sessions and streams pages through it.
func (h *Host) Browser() *browser.Service {
	for _, s := range h.svcs {
		if b, ok := s.(*browser.Service); ok {
			return b
		}
	}
	return nil
}
