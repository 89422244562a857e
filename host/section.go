package host

import (
	"errors"
	"strings"

	consoleconfig "github.com/wasmwright/wasmwright/host/console/config"
	"github.com/wasmwright/wasmwright/host/telemetry"
	"github.com/wasmwright/wasmwright/hostfuncs/browser"
	"github.com/wasmwright/wasmwright/hostfuncs/network"
	"github.com/wasmwright/wasmwright/hostfuncs/vision"
)

// Section is one top-level table of the config, owned by the service or
// front-end that uses it. Every section goes through the same lifecycle
// (Caddy's): the whole file is decoded strictly at load (an unknown key
// is refused, naming it), then each section that has a Provision
// completes itself from the rest of the config (paths taken from the
// config's folder), then each validates itself, once. The kernel knows a
// section through this interface only; the service built from it later
// takes the section as it is. There is no Cleanup: a section holds
// values, never a resource (the services built from them are undone by
// host.New when a later one fails).
type Section interface {
	// Validate checks the section alone and against the rest of c (the
	// personalities it names, the tokens it must not reuse).
	Validate(c *Config) error
}

// provisioner is a Section with a Provision step, run before any
// section is validated.
type provisioner interface {
	Provision(c *Config) error
}

// sections are the config's service tables, in the order their lifecycle
// runs. The [host], [plugins] and [personalities] tables are the
// kernel's own (Config.Validate).
func (c *Config) sections() []Section {
	return []Section{&c.Vision, &c.Telemetry, &c.Serve, &c.Console, &c.Browser, &c.Network, &c.Vault}
}

// provisionSections runs every section's Provision.
func (c *Config) provisionSections() error {
	for _, s := range c.sections() {
		if p, ok := s.(provisioner); ok {
			if err := p.Provision(c); err != nil {
				return c.sectionError(err)
			}
		}
	}
	return nil
}

// validateSections runs every section's Validate; the first mistake is
// the answer.
func (c *Config) validateSections() error {
	for _, s := range c.sections() {
		if err := s.Validate(c); err != nil {
			return c.sectionError(err)
		}
	}
	return nil
}

// sectionError is err as a ConfigError of this config.
func (c *Config) sectionError(err error) error {
	if ce := (*ConfigError)(nil); errors.As(err, &ce) {
		return err
	}
	return &ConfigError{c.Source, err.Error()}
}

// BrowserSection is [browser]: the browser service's table, its paths
// taken from the config's folder at load.
type BrowserSection struct{ browser.Config }

// Provision takes the browser's folders from the config's folder.
func (b *BrowserSection) Provision(c *Config) error {
	for _, p := range []*string{&b.ProfilesDir, &b.WorkspaceDir, &b.UploadDir, &b.DriverDir} {
		*p = c.path(*p)
	}
	return nil
}

// Validate checks [browser]; the browser service trusts it after.
func (b *BrowserSection) Validate(*Config) error {
	if err := b.Config.Validate(); err != nil {
		return errors.New("[browser]: " + err.Error())
	}
	return nil
}

// NetworkSection is [network]: where the egress proxy listens for a
// browser on another machine (hostfuncs/network.Reach).
type NetworkSection struct{ network.Reach }

// Validate checks [network], and that a grid's nodes can reach the
// egress proxy.
func (n *NetworkSection) Validate(c *Config) error {
	if err := n.Reach.Validate(); err != nil {
		return errors.New("[network]: " + strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	if n.ProxyListen == "" && c.Browser.Grid != "" {
		return errors.New("[browser] grid is set but [network] proxy_listen is not: the grid's nodes cannot reach an egress proxy on this host's loopback; set proxy_listen to an address of this host they reach")
	}
	return nil
}

// VisionSection is [vision]: the vision model's endpoint.
type VisionSection struct{ vision.Config }

// Validate checks [vision].
func (v *VisionSection) Validate(*Config) error { return v.Config.Validate() }

// TelemetrySection is [telemetry]: where spans are exported.
type TelemetrySection struct{ telemetry.Config }

// Validate checks [telemetry].
func (t *TelemetrySection) Validate(*Config) error { return t.Config.Validate() }

// ConsoleSection is [console]: the operator console's table.
type ConsoleSection struct{ consoleconfig.Config }

// Validate checks [console]: its operators name defined personalities
// and reuse no agent's bearer token ([serve] tokens).
func (s *ConsoleSection) Validate(c *Config) error {
	var agents []string
	for _, t := range c.Serve.Tokens {
		agents = append(agents, t.SHA256)
	}
	defined := func(p string) bool { _, ok := c.Personalities[p]; return ok }
	return s.Config.Validate(defined, agents)
}
