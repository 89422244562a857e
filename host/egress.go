package host

import (
	"fmt"
	"log/slog"
	"net/url"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/network"
)

// newNetwork builds the egress service from every personality's policy.
// Listeners start lazily, one per browser session (and one shared per
// distinct policy), so a host that never browses opens no socket.
func newNetwork(cfg *Config, log *slog.Logger, onBlocked func(personality, session, reason string)) (*network.Service, error) {
	pol := map[string]network.Policy{}
	var errs []string
	for _, name := range sortedKeys(cfg.Personalities) {
		p := cfg.Personalities[name].Network
		if err := p.Validate(); err != nil {
			errs = append(errs, fmt.Sprintf("personality %s: %v", name, strings.ReplaceAll(err.Error(), "\n", "; ")))
		}
		pol[name] = p
	}
	if len(errs) > 0 {
		return nil, &ConfigError{cfg.Source, strings.Join(errs, "; ")}
	}
	// The browser's upstream proxy ([browser] proxy) is where the egress
	// proxy sends what it has checked: pages stay under the policy and
	// still leave through the operator's proxy.
	bc := cfg.Browser
	var upstream *url.URL
	if bc.Proxy != "" {
		u, err := url.Parse(bc.Proxy)
		if err != nil {
			return nil, &ConfigError{cfg.Source, fmt.Sprintf("[browser] proxy: %v", err)}
		}
		if err := network.ValidateUpstream(u); err != nil {
			return nil, &ConfigError{cfg.Source, "[browser] proxy: " + err.Error()}
		}
		upstream = u
	}
	return network.New(network.Options{Policies: pol, Logger: log, Upstream: upstream, Reach: cfg.Network.Reach, OnBlocked: onBlocked})
}

// egress is the kernel's side of the network service: the per-session
// hooks the browser and dispatch call. Without a network service (n nil)
// nothing was refused and pages go direct.
type egress struct{ n *network.Service }

// sessionProxy is the browser's hook: the session's egress proxy.
func (eg egress) sessionProxy(personality, session string) (string, error) {
	if n := eg.n; n != nil {
		return n.OpenSessionProxy(personality, session)
	}
	return "", nil
}

// beginCall drops what the session's pages met between calls: a result
// reports only the refusals of its own call.
func (eg egress) beginCall(personality, session string) {
	if n := eg.n; n != nil {
		n.BeginCall(personality, session)
	}
}

// failure is the browser's hook: when a page it was told to open did
// not load, the error saying why, if the session's egress proxy refused it
// or could not reach it during this call. The page's own answer is not
// shown: it is the proxy's.
func (eg egress) failure(personality, session, rawURL string) error {
	n := eg.n
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
func (eg egress) attachBlocked(personality, session string, res *abi.Result, err error) (*abi.Result, error) {
	n := eg.n
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

// closeSession closes the egress listener of a browser session.
func (eg egress) closeSession(personality, session string) {
	if n := eg.n; n != nil {
		n.CloseSession(personality, session)
	}
}
