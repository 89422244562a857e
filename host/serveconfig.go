package host

import (
	"fmt"
	"time"

	"github.com/wasmwright/wasmwright/hostfuncs/weborigin"
)

// ServeConfig is the [serve] table, for `wasmwright serve`.
type ServeConfig struct {
	// HTTP is the default listen address of the streamable HTTP transport.
	HTTP string `toml:"http"`
	// Tokens map bearer tokens (stored as sha256 hex) to personalities.
	Tokens []TokenConfig `toml:"tokens"`
	// AllowRemote lets HTTP listen on an address that is not loopback.
	// Without TLSCert and TLSKey the tokens then cross the network in clear:
	// serve says so at start.
	AllowRemote bool `toml:"allow_remote"`
	// TLSCert and TLSKey (PEM files) serve HTTPS instead of HTTP.
	TLSCert string `toml:"tls_cert"`
	TLSKey  string `toml:"tls_key"`
	// AllowedOrigins are the origins (scheme://host[:port]) whose browser
	// requests are accepted besides loopback and the server's own host; a
	// request with any other Origin header is refused.
	AllowedOrigins []string `toml:"allowed_origins"`
	// MaxConns caps open HTTP connections (default 1024), half of them
	// reserved for connections that authenticated (frontend/listen);
	// MaxConnsPerIP is how many unauthenticated connections one client
	// address keeps before its oldest make way for its newest (default 64).
	MaxConns      int `toml:"max_conns"`
	MaxConnsPerIP int `toml:"max_conns_per_ip"`
	// MaxSessionsPerToken caps one token's open MCP sessions, each a
	// browser context (default 8).
	MaxSessionsPerToken int `toml:"max_sessions_per_token"`
	// MetricsAddr is where serve offers /metrics (Prometheus), /healthz
	// and /readyz on a listener of their own; empty: none. Loopback only
	// unless allow_remote.
	MetricsAddr string `toml:"metrics_addr"`
	// DrainTimeout bounds how long serve, stopping on SIGTERM, lets the
	// calls in flight finish before it cancels them. Default 30s.
	DrainTimeout Duration `toml:"drain_timeout"`
}

// DefaultDrainTimeout is serve.drain_timeout when it is not set.
const DefaultDrainTimeout = 30 * time.Second

// Drain is serve.drain_timeout, or its default.
func (s ServeConfig) Drain() time.Duration {
	if s.DrainTimeout.Duration > 0 {
		return s.DrainTimeout.Duration
	}
	return DefaultDrainTimeout
}

// TokenConfig is one bearer token.
type TokenConfig struct {
	// SHA256 is the sha256 hex of the bearer token (never the token).
	SHA256 string `toml:"sha256"`
	// Personality is the role a caller with this token gets.
	Personality string `toml:"personality"`
}

// TLSFiles are serve.tls_cert and serve.tls_key, relative paths taken from
// the config file's folder; empty when HTTPS is not configured.
func (c *Config) TLSFiles() (cert, key string) {
	if c.Serve.TLSCert == "" {
		return "", ""
	}
	return c.path(c.Serve.TLSCert), c.path(c.Serve.TLSKey)
}

// Validate checks [serve]: its limits, its origins, and that each token
// names a defined personality.
func (s *ServeConfig) Validate(c *Config) error {
	if (s.TLSCert == "") != (s.TLSKey == "") {
		return fmt.Errorf("serve.tls_cert and serve.tls_key go together: set both or neither")
	}
	if d := s.DrainTimeout.Duration; d < 0 || d > time.Hour {
		return fmt.Errorf("serve.drain_timeout = %s: give a duration from 1s to 1h, like \"30s\" (absent: 30s)", d)
	}
	if s.MaxConns < 0 || s.MaxConnsPerIP < 0 || s.MaxSessionsPerToken < 0 {
		return fmt.Errorf("serve.max_conns, max_conns_per_ip and max_sessions_per_token must not be negative (0 takes the default)")
	}
	for i, o := range s.AllowedOrigins {
		if _, err := weborigin.Parse(o); err != nil {
			return fmt.Errorf("serve.allowed_origins[%d] %q is not an origin: write scheme://host[:port], as browsers send it (%v)", i, o, err)
		}
	}
	for i, t := range s.Tokens {
		if _, ok := c.Personalities[t.Personality]; !ok {
			return fmt.Errorf("serve.tokens[%d] maps to unknown personality %q", i, t.Personality)
		}
		if len(t.SHA256) != 64 {
			return fmt.Errorf("serve.tokens[%d].sha256 must be the sha256 hex of the token (wasmwright token hash)", i)
		}
	}
	return nil
}
