package host

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/browser"
	"github.com/wasmwright/wasmwright/hostfuncs/network"
)

// newNetwork builds the egress service from every personality's policy.
// Listeners start lazily, one per browser session (and one shared per
// distinct policy), so a host that never browses opens no socket.
func (h *Host) newNetwork() (*network.Service, error) {
	pol := map[string]network.Policy{}
	var errs []string
	for _, name := range sortedKeys(h.cfg.Personalities) {
		p := h.cfg.Personalities[name].Network
		if err := p.Validate(); err != nil {
			errs = append(errs, fmt.Sprintf("personality %s: %v", name, strings.ReplaceAll(err.Error(), "\n", "; ")))
		}
		pol[name] = p
	}
	if len(errs) > 0 {
		return nil, &ConfigError{h.cfg.Source, strings.Join(errs, "; ")}
	}
	// The browser's upstream proxy ([browser] proxy) is where the egress
	// proxy sends what it has checked: pages stay under the policy and
	// still leave through the operator's proxy.
	var bc browser.Config
	if err := h.cfg.DecodeSection("browser", h.cfg.Browser, &bc); err != nil {
		return nil, err
	}
	if err := bc.Validate(); err != nil {
		return nil, &ConfigError{h.cfg.Source, "[browser]: " + err.Error()}
	}
	var upstream *url.URL
	if bc.Proxy != "" {
		u, err := url.Parse(bc.Proxy)
		if err != nil {
			return nil, &ConfigError{h.cfg.Source, fmt.Sprintf("[browser] proxy: %v", err)}
		}
		if err := network.ValidateUpstream(u); err != nil {
			return nil, &ConfigError{h.cfg.Source, "[browser] proxy: " + err.Error()}
		}
		upstream = u
	}
	return network.New(network.Options{Policies: pol, Logger: h.log, Upstream: upstream})
}

// network returns the host's network service, if any.
func (h *Host) network() *network.Service {
	for _, s := range h.svcs {
		if n, ok := s.(*network.Service); ok {
			return n
		}
	}
	return nil
}

// sessionProxy is the browser's hook: the session's egress proxy.
func (h *Host) sessionProxy(personality, session string) string {
	if n := h.network(); n != nil {
		return n.SessionProxy(personality, session)
	}
	return ""
}

// beginCall drops what the session's pages met between calls: a result
// reports only the refusals of its own call.
func (h *Host) beginCall(personality, session string) {
	if n := h.network(); n != nil {
		n.BeginCall(personality, session)
	}
}

// egressFailure is the browser's hook: when a page it was told to open did
// not load, the error saying why, if the session's egress proxy refused it
// or could not reach it during this call. The page's own answer is not
// shown: it is the proxy's.
func (h *Host) egressFailure(personality, session, rawURL string) error {
	n := h.network()
	if n == nil {
		return nil
	}
	refused, reason, ok := n.EgressFailure(personality, session, rawURL)
	if !ok {
		return nil
	}
	shown, host := rawURL, rawURL
	if u, err := url.Parse(rawURL); err == nil {
		u.User, u.RawQuery, u.Fragment = nil, "", ""
		shown, host = u.String(), u.Host
	}
	if refused {
		return abi.Errorf(abi.CodeRefused, "%s was not loaded: personality %s's network policy refused it (%s). To allow it, add %q to personalities.%s.network.allowed_hosts",
			shown, personality, reason, host, personality).With("url", shown)
	}
	return abi.Errorf(abi.CodeUnreachable, "%s could not be reached: %s. Check the URL's host name and port; if they are right, the site may be down: retry later",
		shown, reason).With("url", shown)
}

// attachBlocked reports, once, the requests the session's pages had
// refused: as events on the result, or appended to the error.
func (h *Host) attachBlocked(personality, session string, res *abi.Result, err error) (*abi.Result, error) {
	n := h.network()
	if n == nil {
		return res, err
	}
	if res == nil && err == nil {
		return res, err
	}
	blocked := n.TakeBlocked(personality, session)
	if len(blocked) == 0 {
		return res, err
	}
	if res != nil {
		res.Events = append(res.Events, blocked...)
		return res, err
	}
	e := *abi.AsError(err)
	e.Message += "\n" + strings.Join(blocked, "\n")
	return nil, &e
}
