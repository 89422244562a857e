package browser

import pw "github.com/mxschmitt/playwright-go"

// proxyServer is the proxy a session's context uses: the network service's
// per-session egress proxy (Options.SessionProxy), else the personality's
// (Options.ProxyFor), else Config.Proxy.
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
	return s.cfg.Proxy
}

// contextProxy is the per-context proxy option for k, or nil when the
// browser's launch proxy (Config.Proxy) applies. Loopback is not exempt
// ("<-loopback>"): 127.0.0.1 goes through the proxy like any address.
func (s *Service) contextProxy(k sessKey) *pw.Proxy {
	p := s.proxyServer(k)
	if p == "" || p == s.cfg.Proxy {
		return nil
	}
	return &pw.Proxy{Server: p, Bypass: pw.String("<-loopback>")}
}
