// Package config is the operator console's [console] table: its keys,
// decoded by the kernel's config (host.Config.Console) and checked here.
// It is apart from package console, which runs on the kernel, so the
// kernel's config can hold it.
package config

import (
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
)

// Config is the [console] table, decoded straight from the TOML (unknown
// keys refused): the operator console of
// `wasmwright serve`, where people watch and drive the agents' browsers,
// answer takeovers and approvals.
//
//	[console]
//	enabled = true
//	path = "/console"        # on the MCP HTTP listener (default)
//	addr = "127.0.0.1:8932"  # or its own listener (needed with stdio)
//	[[console.operators]]
//	name = "alice"
//	sha256 = "..."           # wasmwright console token new
//	personalities = ["shop"] # optional: only these (default: all)
type Config struct {
	// Enabled serves the console; it needs at least one operator.
	Enabled bool `toml:"enabled"`
	// Path is where the console is served on the MCP HTTP listener
	// (default /console).
	Path string `toml:"path"`
	// Addr serves the console on a listener of its own instead (needed
	// when the agents use stdio).
	Addr string `toml:"addr"`
	// Operators are the people who may log in.
	Operators []Operator `toml:"operators"`
	// Notify, when its url is set, posts takeover requests and pending
	// approvals to a webhook where the operators are.
	Notify Notify `toml:"notify"`
}

// Notify is [console.notify]: a webhook the console posts to when an
// agent asks for a human (a takeover) or a call waits for approval. The
// body is JSON with a "text" field (a chat incoming webhook's shape, so
// one takes it as is) plus the fields apart; it is signed with HMAC-SHA256
// under a secret read from the environment variable secret_env, never
// from this file. It holds no secret: no typed value, no vault data, no
// token, no page URL (the origin only).
//
//	[console.notify]
//	url = "https://hooks.example.com/T000/B000/XXXX"
//	secret_env = "WASMWRIGHT_NOTIFY_SECRET"
//	allow_loopback = false   # true: an http:// URL on a loopback address is allowed
type Notify struct {
	// URL is the webhook (https; empty: no pings).
	URL string `toml:"url"`
	// SecretEnv names the environment variable holding the HMAC-SHA256
	// signing secret.
	SecretEnv string `toml:"secret_env"`
	// AllowLoopback allows an http:// URL on a loopback address.
	AllowLoopback bool `toml:"allow_loopback"`
}

// ConsolePath is where the console is served: Path, default "/console".
func (c Config) ConsolePath() string {
	if c.Path == "" {
		return "/console"
	}
	return strings.TrimSuffix(c.Path, "/")
}

// Operator is one operator of the console, known by the sha256 of
// their token (never an agent's bearer token).
type Operator struct {
	// Name shows in the console and in the audit events.
	Name string `toml:"name"`
	// SHA256 is the sha256 hex of the operator's token (wasmwright console
	// token new); never an agent's token.
	SHA256 string `toml:"sha256"`
	// Personalities limits the operator to these roles (default: all).
	Personalities []string `toml:"personalities"`
}

// Validate checks the table: defined says whether a personality exists,
// agentTokens are the sha256 of the agents' bearer tokens ([serve]
// tokens), which no operator may reuse.
func (cc Config) Validate(defined func(string) bool, agentTokens []string) error {
	if !cc.Enabled {
		return nil
	}
	if len(cc.Operators) == 0 {
		return fmt.Errorf("console.enabled needs at least one [[console.operators]] (make one with wasmwright console token new)")
	}
	if p := cc.ConsolePath(); !strings.HasPrefix(p, "/") || p == "/" || p == "/mcp" || strings.ContainsAny(p, "?#* ") {
		return fmt.Errorf("console.path %q: give a path of its own such as /console", cc.Path)
	}
	if err := cc.Notify.validate(); err != nil {
		return err
	}
	agent := map[string]bool{}
	for _, t := range agentTokens {
		agent[strings.ToLower(t)] = true
	}
	names := map[string]bool{}
	for i, o := range cc.Operators {
		if !abi.ValidID(o.Name) || names[o.Name] {
			return fmt.Errorf("console.operators[%d].name %q: give each operator a distinct name of letters, digits, _ and -", i, o.Name)
		}
		names[o.Name] = true
		if len(o.SHA256) != 64 || strings.Trim(strings.ToLower(o.SHA256), "0123456789abcdef") != "" {
			return fmt.Errorf("console.operators[%d].sha256 must be the sha256 hex of the operator's token (wasmwright console token new)", i)
		}
		if agent[strings.ToLower(o.SHA256)] {
			return fmt.Errorf("console.operators[%d] (%s) uses an agent's bearer token: operators need tokens of their own (wasmwright console token new)", i, o.Name)
		}
		for _, p := range o.Personalities {
			if !defined(p) {
				return fmt.Errorf("console.operators[%d] (%s) names unknown personality %q", i, o.Name, p)
			}
		}
	}
	return nil
}

// validate checks [console.notify]: an https URL (or http on a loopback
// address with allow_loopback), no credentials in it, and the name of the
// environment variable holding the signing secret.
func (n Notify) validate() error {
	if n.URL == "" {
		if n.SecretEnv != "" || n.AllowLoopback {
			return fmt.Errorf("console.notify: give the webhook's url, or remove the table")
		}
		return nil
	}
	u, err := url.Parse(n.URL)
	if err != nil || u.Host == "" || u.User != nil || u.Fragment != "" {
		return fmt.Errorf("console.notify.url %q: give an absolute https URL without a user name or fragment", n.URL)
	}
	host := u.Hostname()
	ip := net.ParseIP(host)
	loop := host == "localhost" || ip != nil && ip.IsLoopback()
	switch {
	case loop && !n.AllowLoopback:
		return fmt.Errorf("console.notify.url %q is on a loopback address: set console.notify.allow_loopback = true if you mean it (a receiver on this machine)", n.URL)
	case u.Scheme == "http" && !loop:
		return fmt.Errorf("console.notify.url %q: use https (plain http only to a loopback receiver, with allow_loopback)", n.URL)
	case u.Scheme != "https" && u.Scheme != "http":
		return fmt.Errorf("console.notify.url %q: use https", n.URL)
	case ip != nil && (ip.IsLinkLocalUnicast() || ip.IsUnspecified() || ip.IsMulticast()):
		return fmt.Errorf("console.notify.url %q: a link-local, unspecified or multicast address is never a webhook", n.URL)
	}
	if n.SecretEnv == "" {
		return fmt.Errorf("console.notify.secret_env: name the environment variable holding the webhook's signing secret (the body is signed with HMAC-SHA256; the secret never sits in the config)")
	}
	return nil
}
