package browser

import (
	"net/url"
	"slices"
	"strings"

	pw "github.com/mxschmitt/playwright-go"
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
//     name but the proxy's loopback address to "not found"): DNS prefetch,
//     a STUN server's name, mDNS (.local) candidates and any lookup a
//     feature makes fail locally, and no DNS query reveals a name. Through
//     the proxy the proxy resolves, under the policy;
//   - media router and Cast/DIAL discovery (mDNS and SSDP multicast) are off.
//
// Loopback is not exempt from the proxy ("<-loopback>").
//
// With a remote browser (remote_ws, remote_cdp) none of the launch flags
// are ours: the host still gives each context a proxy, but WebRTC UDP,
// QUIC and the browser's own DNS and background traffic are whatever that
// browser was started with, and the egress proxy listens on this host's
// loopback, which a browser on another machine cannot reach (its requests
// then fail). See README "Egress" for what to start a remote browser with.

// proxyServer is the proxy a session's context uses: the network service's
// per-session egress proxy (Options.SessionProxy), else the personality's
// (Options.ProxyFor), else (no network service) Config.Proxy. Egress proxies carry their
// credentials in the URL (http://user:pass@127.0.0.1:port).
func (s *Service) proxyServer(k sessKey) string {
	if s.opts.SessionProxy != nil {
		if p := s.opts.SessionProxy(k.personality, k.session); p != "" {
			return p
		}
	}
	if s.opts.ProxyFor != nil {
		if p := s.opts.ProxyFor(k.personality); p != "" {
			return p
		}
	}
	if s.egressGoverned() {
		return deadProxy // no egress proxy for k: fail closed, never around it
	}
	return s.cfg.Proxy
}

// contextProxy is the per-context proxy option for k, or nil when the
// browser's launch proxy (Config.Proxy) applies. Loopback is not exempt
// ("<-loopback>"): 127.0.0.1 goes through the proxy like any address.
func (s *Service) contextProxy(k sessKey) *pw.Proxy {
	p := s.proxyServer(k)
	if p == "" || p == s.cfg.Proxy && !s.egressGoverned() {
		return nil
	}
	return pwProxy(p)
}

// egressGoverned reports whether a network service hands out the
// sessions' proxies.
func (s *Service) egressGoverned() bool {
	return s.opts.SessionProxy != nil || s.opts.ProxyFor != nil
}

// deadProxy is where browser-wide traffic goes when a network service
// governs the sessions: nothing listens on port 1, so it fails closed.
const deadProxy = "http://127.0.0.1:1"

// launchProxy is the proxy of the browser process itself (its own
// background traffic, and contexts without one of their own). Under a
// network service, Config.Proxy is the egress proxy's upstream, never a
// way around it.
func (s *Service) launchProxy() *pw.Proxy {
	if s.egressGoverned() {
		return pwProxy(deadProxy)
	}
	if s.cfg.Proxy != "" {
		return pwProxy(s.cfg.Proxy)
	}
	return nil
}

// pwProxy makes Playwright's proxy option from a proxy URL, moving
// credentials in it to Username and Password (Chromium takes none in
// --proxy-server; Playwright answers the proxy's 407 with them).
func pwProxy(raw string) *pw.Proxy {
	p := &pw.Proxy{Server: raw, Bypass: pw.String("<-loopback>")}
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return p
	}
	pass, _ := u.User.Password()
	p.Username, p.Password = pw.String(u.User.Username()), pw.String(pass)
	u.User = nil
	p.Server = u.String()
	return p
}

// playwrightDisabledFeatures is the --disable-features list playwright-core
// 1.64.1 passes (chromiumSwitches.ts). Chromium keeps only the last
// --disable-features switch, so ours must repeat it.
var playwrightDisabledFeatures = []string{
	"AvoidUnnecessaryBeforeUnloadCheckSync", "DestroyProfileOnBrowserClose", "DialMediaRouteProvider",
	"GlobalMediaControls", "HttpsUpgrades", "LensOverlay", "MediaRouter", "PaintHolding",
	"ThirdPartyStoragePartitioning", "BlockOriginHeaderModificationOnRedirect",
	"AvoidCorsURLLoaderRestartOnRedirect", "Translate", "AutoDeElevate", "OptimizationHints",
	"NetworkTimeServiceQuerying", "AimEnabled",
}

// egressDisabledFeatures are features that open connections of their own.
var egressDisabledFeatures = []string{
	"CastMediaRouteProvider", "DirectSockets", "AsyncDns", "DnsOverHttps",
	"PrefetchProxy", "IsolatedPrerender", "NetworkPrediction",
}

// egressFlags close every way out but the proxy (see the top of this file).
var egressFlags = []string{
	"--webrtc-ip-handling-policy=disable_non_proxied_udp",
	"--force-webrtc-ip-handling-policy=disable_non_proxied_udp",
	"--disable-quic",
	"--dns-prefetch-disable",
	"--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
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
	name, _, _ := strings.Cut(strings.TrimSpace(a), "=")
	name = strings.ToLower(name)
	if strings.HasPrefix(name, "-") && !strings.HasPrefix(name, "--") {
		name = "-" + name // Chromium accepts -switch as --switch
	}
	if slices.Contains(egressArgs, name) {
		return name
	}
	return ""
}

// launchArgs are the Chromium switches of a launch: the platform's, the
// egress ones, then Config.Args (validated), with one --disable-features
// carrying Playwright's, ours and the config's.
func (s *Service) launchArgs() []string {
	args := append(slices.Clone(chromiumFlags), egressFlags...)
	disabled := append(slices.Clone(playwrightDisabledFeatures), egressDisabledFeatures...)
	for _, a := range s.cfg.Args {
		if v, ok := strings.CutPrefix(a, "--disable-features="); ok {
			disabled = append(disabled, strings.Split(v, ",")...)
			continue
		}
		args = append(args, a)
	}
	return append(args, "--disable-features="+strings.Join(disabled, ","))
}
