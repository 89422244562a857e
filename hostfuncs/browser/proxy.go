package browser

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"net/url"
	"slices"
	"strings"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/spans"
)

// The browser has no way out but the egress proxy.
//
// Every browser context is pointed at its session's egress proxy
// (hostfuncs/network), which checks and dials every connection itself. A
// proxy only sees what Chromium sends it, so everything Chromium could
// open on its own is closed at launch:
//
//   - the browser-wide network (component updater, safe browsing, variations,
//     domain reliability, time queries... and anything a flag below misses)
//     uses the launch proxy: when a network service governs the sessions
//     that is a dead loopback port, so such traffic fails instead of
//     leaving (launchProxy);
//   - WebRTC may use UDP only through a proxy, and an HTTP proxy carries no
//     UDP: no STUN, TURN-over-UDP or ICE connectivity checks leave; TURN
//     over TCP goes through the proxy and its policy
//     (--webrtc-ip-handling-policy=disable_non_proxied_udp);
//   - no QUIC (--disable-quic; WebTransport rides on it and is refused with
//     a proxy in use);
//   - Chromium resolves no name itself (--host-resolver-rules maps every
//     name but the proxy's loopback address and localhost, which Chromium
//     answers itself, to "not found"): DNS prefetch,
//     a STUN server's name, mDNS (.local) candidates and any lookup a
//     feature makes fail locally, and no DNS query reveals a name. Through
//     the proxy the proxy resolves, under the policy;
//   - no multicast DNS: WebRTC resolves a remote "<name>.local" candidate by
//     mDNS whatever the resolver rules say (it sent a query for the page's
//     name, then for "~NOTFOUND", to the local network); with
//     WebRtcHideLocalIpsWithMdns off it resolves none. (That feature hides
//     local addresses in host candidates, and there are none: no UDP.)
//   - media router and Cast/DIAL discovery (mDNS and SSDP multicast) are off.
//
// Loopback is not exempt from the proxy ("<-loopback>").
//
// With a remote browser (remote_ws, remote_cdp) none of the launch flags
// are ours: the host still gives each context a proxy, but WebRTC UDP,
// QUIC and the browser's own DNS and background traffic are whatever that
// browser was started with, and the egress proxy listens on this host's
// loopback, which a browser on another machine cannot reach (its requests
// then fail). See docs/security.md, "Egress", for what to start a remote browser with.

// remoteEgressNote is the first result's warning with a remote browser
// under a network service.
const remoteEgressNote = "The browser is remote: its pages are given the egress proxy, but the browser itself was started elsewhere, so its WebRTC UDP, QUIC, DNS and background traffic are not held to the network policy by this host (see docs/security.md, \"Egress\")."

// proxyServer is the proxy a session's context uses: the network service's
// per-session egress proxy (Options.SessionProxy), else the personality's
// (Options.ProxyFor), else (no network service) Config.Proxy. Egress proxies carry their
// credentials in the URL (http://user:pass@127.0.0.1:port). The session
// proxy's error (its listener could not be started) is the open's answer.
func (s *launcher) proxyServer(k sessKey) (string, error) {
	if s.opts.SessionProxy != nil {
		p, err := s.opts.SessionProxy(k.personality, k.session)
		if err != nil {
			return "", err
		}
		if p != "" {
			return p, nil
		}
	}
	if s.opts.ProxyFor != nil {
		if p := s.opts.ProxyFor(k.personality); p != "" {
			return p, nil
		}
	}
	if s.egressGoverned() {
		return deadProxy, nil // no egress proxy for k: fail closed, never around it
	}
	return s.cfg.Proxy, nil
}

// contextProxy is the per-context proxy option for a session whose proxy
// (proxyServer) is raw, or nil when the browser's launch proxy
// (Config.Proxy) applies. Loopback is not exempt ("<-loopback>"):
// 127.0.0.1 goes through the proxy like any address.
func (s *launcher) contextProxy(raw string) *pw.Proxy {
	if raw == "" || raw == s.cfg.Proxy && !s.egressGoverned() {
		return nil
	}
	return s.pwProxy(raw)
}

// egressGoverned reports whether a network service hands out the
// sessions' proxies: a fact of the host's hooks, which the launcher's
// flags and proxies and a session's proxy priming each follow.
func (s *env) egressGoverned() bool {
	return s.opts.SessionProxy != nil || s.opts.ProxyFor != nil
}

// deadProxy is where browser-wide traffic goes when a network service
// governs the sessions: nothing listens on port 1, so it fails closed.
const deadProxy = "http://127.0.0.1:1"

// launchProxy is the proxy of the browser process itself (its own
// background traffic, and contexts without one of their own). Under a
// network service, Config.Proxy is the egress proxy's upstream, never a
// way around it.
func (s *launcher) launchProxy() *pw.Proxy {
	if s.egressGoverned() {
		return s.pwProxy(deadProxy)
	}
	if s.cfg.Proxy != "" {
		return s.pwProxy(s.cfg.Proxy)
	}
	return nil
}

// pwProxy makes Playwright's proxy option from a proxy URL. Chromium takes
// no credentials in --proxy-server. An egress proxy's credentials are not
// given to Playwright: with them it would pause every request of the
// context in the Fetch domain and turn the HTTP cache off (measured: page
// loads 2.5x slower, every cached resource fetched again), and answer any
// site's 401 with them. primeProxy answers the proxy once instead. An
// operator's proxy (Config.Proxy, no network service) keeps Playwright's
// way.
func (s *launcher) pwProxy(raw string) *pw.Proxy {
	server, user, pass := splitProxy(raw)
	p := &pw.Proxy{Server: server, Bypass: pw.String("<-loopback>")}
	if user != "" && !s.egressGoverned() {
		p.Username, p.Password = pw.String(user), pw.String(pass)
	}
	return p
}

// firstPage is the context's first tab, opened if there is none.
func firstPage(bctx pw.BrowserContext) (pw.Page, error) {
	if ps := bctx.Pages(); len(ps) > 0 {
		return ps[0], nil
	}
	return bctx.NewPage()
}

// splitProxy takes the credentials out of a proxy URL.
func splitProxy(raw string) (server, user, pass string) {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw, "", ""
	}
	user = u.User.Username()
	pass, _ = u.User.Password()
	u.User = nil
	return u.String(), user, pass
}

// The egress proxy's own answers (a refusal, a site it could not reach)
// carry its mark (network.AnswerHeader): Chromium shows such an answer as
// the page at the refused URL, in the proxy's words, and only the mark
// tells it from a site's page (a site may title a page like the proxy's).
// The names are network's, lower-cased as Playwright gives headers.
const (
	egressAnswerHeader  = "x-wasmwright-egress"
	egressBlockedHeader = "x-wasmwright-blocked"
	egressReasonHeader  = "x-wasmwright-reason"
)

// answerMark is the mark of the egress proxy at raw: network.AnswerMark of
// its password, hex(HMAC-SHA256(password, "wasmwright egress answer")).
// A site cannot make it: the password is known only to the host and to
// the browser context's auth cache, never to a page. "" for a proxy
// without credentials (no egress proxy: nothing to recognise).
func answerMark(raw string) string {
	_, _, pass := splitProxy(raw)
	if pass == "" {
		return ""
	}
	m := hmac.New(sha256.New, []byte(pass))
	m.Write([]byte("wasmwright egress answer"))
	return hex.EncodeToString(m.Sum(nil))
}

// egressAnswered reports whether a response with headers is the session's
// egress proxy speaking for itself rather than a site.
func (ss *session) egressAnswered(headers map[string]string) bool {
	got := headers[egressAnswerHeader]
	return ss.egressMark != "" && got != "" && subtle.ConstantTimeCompare([]byte(got), []byte(ss.egressMark)) == 1
}

// authCheckURL is answered by the egress proxy itself once the request
// carries its credentials (network.AuthCheckHost).
const authCheckURL = "http://egress-auth.wasmwright.invalid/"

// primeProxy authenticates a new context to its egress proxy, before the
// session watches its pages (so the check is not in its network log): from
// its first page (about:blank, made if need be, before any site) it fetches
// authCheckURL, answers the proxy's 407 with the credentials through a
// CDP session of its own (for a proxy challenge only, for this one
// request), then lets go of that CDP session. Chromium keeps the
// credentials in the context's auth cache and sends them with every later
// request through that proxy (pages, workers, WebSockets), so no request
// is paused again. If the check does not come back authenticated, the
// context must not be used: the caller closes it.
//
// Three round trips to the browser wait (the CDP session, Fetch.enable,
// the check): detaching, which ends the Fetch domain with the session, is
// not waited for, and no Fetch.disable is sent before it. Until the detach
// lands nothing else is paused: the only pattern is authCheckURL's, and
// an auth challenge is reported only for a request the patterns paused.
func (s *launcher) primeProxy(bctx pw.BrowserContext, raw string) error {
	if !s.egressGoverned() {
		return nil
	}
	_, user, pass := splitProxy(raw)
	if user == "" {
		return nil // the dead proxy: nothing to authenticate to
	}
	t0 := time.Now()
	endTab := spans.Start("b.firstTab")
	page, err := firstPage(bctx)
	endTab()
	if err != nil {
		return abi.Errorf(abi.CodeExecutionFailed, "opening a tab: %v", firstLine(err.Error()))
	}
	t1 := time.Now()
	defer spans.Start("b.proxyAuth")()
	cdp, err := bctx.NewCDPSession(page)
	if err != nil {
		return abi.Errorf(abi.CodeExecutionFailed, "authenticating the browser to its egress proxy: %v: retry", firstLine(err.Error()))
	}
	defer func() { go cdp.Detach() }()
	// Handlers run on Playwright's dispatch goroutine, which must not wait
	// on a reply: answer from a goroutine.
	cdp.On("Fetch.requestPaused", func(ev map[string]any) {
		go cdp.Send("Fetch.continueRequest", map[string]any{"requestId": ev["requestId"]})
	})
	cdp.On("Fetch.authRequired", func(ev map[string]any) {
		answer := map[string]any{"response": "CancelAuth"}
		if ch, _ := ev["authChallenge"].(map[string]any); ch != nil && ch["source"] == "Proxy" {
			answer = map[string]any{"response": "ProvideCredentials", "username": user, "password": pass}
		}
		go cdp.Send("Fetch.continueWithAuth", map[string]any{"requestId": ev["requestId"], "authChallengeResponse": answer})
	})
	if _, err := cdp.Send("Fetch.enable", map[string]any{"handleAuthRequests": true,
		"patterns": []any{map[string]any{"urlPattern": authCheckURL + "*"}}}); err != nil {
		return abi.Errorf(abi.CodeExecutionFailed, "authenticating the browser to its egress proxy: %v: retry", firstLine(err.Error()))
	}
	got, err := page.Evaluate(`async u => { try { const r = await fetch(u, {cache: "no-store"}); return r.status + " " + await r.text() } catch (e) { return String(e) } }`, authCheckURL)
	if err != nil || got != "200 authenticated" {
		hint := "retry; if it persists, the proxy is gone (see the host log)"
		if s.cfg.RemoteWS != "" || s.cfg.RemoteCDP != "" {
			hint = "a remote browser must run on this host to reach its egress proxy on loopback (see docs/security.md, \"Egress\")"
		}
		if s.cfg.Grid != "" {
			hint = "the grid node must reach this host's egress proxy: set [network] proxy_listen to an address of this host the nodes can reach (see docs/fleet.md)"
		}
		return abi.Errorf(abi.CodeNotAvailable, "the browser could not authenticate to its egress proxy (%v %v): %s", got, err, hint)
	}
	s.log.Debug("browser context authenticated to its egress proxy", "tab", t1.Sub(t0).Round(time.Millisecond), "auth", time.Since(t1).Round(time.Millisecond))
	return nil
}

// playwrightDisabledFeatures is the --disable-features list playwright-core
// 1.64.1 passes (chromiumSwitches.ts). Chromium keeps only the last
// --disable-features switch, so ours must repeat it.
var playwrightDisabledFeatures = []string{
	"AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose", "DialMediaRouteProvider",
	"GlobalMediaControls", "HttpsUpgrades", "LensOverlay", "MediaRouter", "PaintHolding",
	"ThirdPartyStoragePartitioning", "BlockOriginHeaderModificationOnRedirect",
	"AvoidCorsURLLoaderRestartOnRedirect", "Translate", "AutoDeElevate", "OptimizationHints",
	"NetworkTimeServiceQuerying", "AimEnabled", "msForceBrowserSignIn", "msEdgeUpdateLaunchServicesPreferredVersion",
}

// egressDisabledFeatures are features that open connections of their own.
// WebRtcHideLocalIpsWithMdns is measured to matter (mdns_test.go); the
// others are belt and braces behind the dead launch proxy and the resolver
// rules, which the tests show hold without them.
// AutofillServerCommunication: Chromium asks its autofill server about
// every form with a password field; behind the proxy that query is a
// "blocked request" event in the agent's next result (seen in CI).
var egressDisabledFeatures = []string{
	"CastMediaRouteProvider", "DirectSockets", "AsyncDns", "DnsOverHttps",
	"PrefetchProxy", "IsolatedPrerender", "NetworkPrediction", "WebRtcHideLocalIpsWithMdns",
	"AutofillServerCommunication",
}

// egressFlags close every way out but the proxy (see the top of this file).
var egressFlags = []string{
	"--webrtc-ip-handling-policy=disable_non_proxied_udp",       // the one Chromium 156 reads (measured)
	"--force-webrtc-ip-handling-policy=disable_non_proxied_udp", // older builds' name
	"--disable-quic",
	"--dns-prefetch-disable", // gone from Chromium 156; the resolver rules hold
	"--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1 , EXCLUDE localhost", // localhost resolves inside Chromium, no query leaves
	"--disable-background-networking",
	"--disable-component-update",
	"--disable-domain-reliability",
	"--disable-client-side-phishing-detection",
	"--disable-sync",
	"--no-pings",
}

// egressArgs are the switches Config.Args may not carry: each would open a
// path around the egress proxy, or undo one of egressFlags.
var egressArgs = []string{
	"--proxy-server", "--no-proxy-server", "--proxy-pac-url", "--proxy-auto-detect", "--proxy-bypass-list",
	"--host-resolver-rules", "--webrtc-ip-handling-policy", "--force-webrtc-ip-handling-policy",
	"--enable-quic", "--origin-to-force-quic-on", "--webtransport-developer-mode",
	"--remote-debugging-port", "--remote-debugging-address",
}

// forbiddenArg returns the switch of a that egressArgs refuses, or "".
func forbiddenArg(a string) string {
	if name := switchName(a); slices.Contains(egressArgs, name) {
		return name
	}
	return ""
}

// switchName is the switch a names as Chromium reads it: without its
// =value, lower-cased, and with two dashes, since Chromium takes -switch
// for --switch (a deny-list compared on the raw text would miss
// -load-extension or --Proxy-Server=x).
func switchName(a string) string {
	name, _, _ := strings.Cut(strings.TrimSpace(a), "=")
	name = strings.ToLower(strings.TrimSpace(name))
	if strings.HasPrefix(name, "-") && !strings.HasPrefix(name, "--") {
		name = "-" + name
	}
	return name
}

// launchArgs are the Chromium switches of a launch: the platform's, the
// egress ones, then Config.Args (validated), with one --disable-features
// carrying Playwright's, ours and the config's.
func (s *launcher) launchArgs() []string {
	args := append(slices.Clone(chromiumFlags), egressFlags...)
	if h := s.opts.ProxyHost; h != "" && h != "127.0.0.1" {
		// The resolver rules map every host, IP literals included, to "not
		// found": the egress proxy's own address is excluded, or the
		// browser cannot reach its proxy (a grid node's, and a local one's
		// on another loopback address such as 127.0.0.2).
		for i, a := range args {
			if strings.HasPrefix(a, "--host-resolver-rules=") {
				args[i] = a + " , EXCLUDE " + h
			}
		}
	}
	disabled := append(slices.Clone(playwrightDisabledFeatures), egressDisabledFeatures...)
	for _, a := range s.cfg.Args {
		if v, ok := disabledFeatures(a); ok {
			disabled = append(disabled, v...)
			continue
		}
		args = append(args, a)
	}
	return append(args, "--disable-features="+strings.Join(disabled, ","))
}

// disabledFeatures are the features a --disable-features switch (in any
// spelling switchName reads) names. Chromium keeps only the last such
// switch, so an operator's own would re-enable what egressDisabledFeatures
// turns off: the launch folds them into one.
func disabledFeatures(a string) ([]string, bool) {
	if switchName(a) != "--disable-features" {
		return nil, false
	}
	_, v, _ := strings.Cut(a, "=")
	return strings.Split(strings.TrimSpace(v), ","), true
}
