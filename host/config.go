package host

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	consoleconfig "github.com/wasmwright/wasmwright/host/console/config"
	"github.com/wasmwright/wasmwright/host/telemetry"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/hostfuncs/network"
	"github.com/wasmwright/wasmwright/hostfuncs/vision"
	"github.com/wasmwright/wasmwright/hostfuncs/weborigin"
)

//go:embed default.toml
var defaultConfig string

// embeddedSource names the embedded default config in messages.
const embeddedSource = "embedded default config"

// DefaultConfigText is the embedded configuration used when no file is given.
func DefaultConfigText() string { return defaultConfig }

// Config is the host's TOML configuration: one file, with personalities as
// tables in it or as files in personalities_dir.
type Config struct {
	Host          HostConfig                   `toml:"host"`
	Browser       toml.Primitive               `toml:"browser"`
	Vault         toml.Primitive               `toml:"vault"`
	Serve         ServeConfig                  `toml:"serve"`
	Console       consoleconfig.Config         `toml:"console"`
	Vision        vision.Config                `toml:"vision"`
	Network       network.Reach                `toml:"network"`
	Telemetry     telemetry.Config             `toml:"telemetry"`
	Plugins       map[string]PluginConfig      `toml:"plugins"`
	Personalities map[string]PersonalityConfig `toml:"personalities"`

	// Dir resolves relative paths: the config file's folder, or the working
	// directory for the embedded default.
	Dir string `toml:"-"`
	// Source names where the config came from, for messages.
	Source string `toml:"-"`
	meta   toml.MetaData
}

// PluginConfig is one [plugins.NAME] table.
type PluginConfig struct {
	// File is the .wasm, relative to plugins_dir. Default NAME.wasm.
	File string `toml:"file"`
	// SHA256 pins the file. When empty, the pin must come from the
	// SHA256SUMS file in plugins_dir (written by `make plugins`).
	SHA256 string `toml:"sha256"`
	// TrustedKeys may sign this plugin only, besides host.trusted_keys.
	TrustedKeys []string `toml:"trusted_keys"`
}

// Duration is a time.Duration written as "30s" in TOML (hostfuncs.Duration,
// which the services' own tables use too).
type Duration = hostfuncs.Duration

// ConfigError is a configuration mistake, with where it is.
type ConfigError struct {
	Source string
	Msg    string
}

func (e *ConfigError) Error() string { return e.Source + ": " + e.Msg }

// ParseConfig decodes TOML text. Unknown keys are refused, naming the key.
func ParseConfig(text, source, dir string) (*Config, error) {
	var c Config
	text, err := expandEnv(text, source, osLookup)
	if err != nil {
		return nil, err
	}
	md, err := toml.Decode(text, &c)
	if err != nil {
		return nil, &ConfigError{source, err.Error()}
	}
	if und := undecoded(md, "browser", "vault"); len(und) > 0 {
		return nil, &ConfigError{source, fmt.Sprintf("unknown key %s: check its spelling against the documented keys in README.md", strings.Join(und, ", "))}
	}
	c.Dir, c.Source, c.meta = dir, source, md
	if c.Host.PersonalitiesDir != "" {
		if err := c.loadPersonalityDir(); err != nil {
			return nil, err
		}
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// undecoded lists unknown keys, leaving alone the tables decoded later
// by the services that own them.
func undecoded(md toml.MetaData, deferred ...string) []string {
	var out []string
	for _, k := range md.Undecoded() {
		if len(k) > 0 && contains(deferred, k[0]) {
			continue
		}
		out = append(out, k.String())
	}
	return out
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}

// DecodeSection decodes a deferred table (such as [browser]) into v,
// refusing unknown keys in it.
func (c *Config) DecodeSection(name string, prim toml.Primitive, v any) error {
	if err := c.meta.PrimitiveDecode(prim, v); err != nil {
		return &ConfigError{c.Source, fmt.Sprintf("[%s]: %v", name, err)}
	}
	var und []string
	for _, k := range c.meta.Undecoded() {
		if len(k) > 0 && k[0] == name {
			und = append(und, k.String())
		}
	}
	if len(und) > 0 {
		return &ConfigError{c.Source, fmt.Sprintf("unknown key %s: check its spelling against the documented keys in README.md", strings.Join(und, ", "))}
	}
	return nil
}

// LoadConfig reads path, or the embedded default when path is empty.
func LoadConfig(path string) (*Config, error) {
	if path == "" {
		wd, _ := os.Getwd()
		return ParseConfig(defaultConfig, embeddedSource, wd)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &ConfigError{path, fmt.Sprintf("cannot read: %v", err)}
	}
	abs, _ := filepath.Abs(path)
	return ParseConfig(string(b), path, filepath.Dir(abs))
}

func (c *Config) loadPersonalityDir() error {
	dir := c.path(c.Host.PersonalitiesDir)
	files, err := filepath.Glob(filepath.Join(dir, "*.toml"))
	if err != nil || files == nil {
		return &ConfigError{c.Source, fmt.Sprintf("personalities_dir %s holds no .toml files", dir)}
	}
	if c.Personalities == nil {
		c.Personalities = map[string]PersonalityConfig{}
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".toml")
		if _, dup := c.Personalities[name]; dup {
			return &ConfigError{f, fmt.Sprintf("personality %s is also defined in %s", name, c.Source)}
		}
		var p PersonalityConfig
		b, err := os.ReadFile(f)
		if err != nil {
			return &ConfigError{f, fmt.Sprintf("cannot read: %v", err)}
		}
		text, err := expandEnv(string(b), f, osLookup)
		if err != nil {
			return err
		}
		md, err := toml.Decode(text, &p)
		if err != nil {
			return &ConfigError{f, err.Error()}
		}
		if und := undecoded(md); len(und) > 0 {
			return &ConfigError{f, fmt.Sprintf("unknown key %s", strings.Join(und, ", "))}
		}
		c.Personalities[name] = p
	}
	return nil
}

// Validate checks cross-references: personalities name known plugins and
// capabilities, hooks name plugins the personality loads, tokens name
// personalities.
func (c *Config) Validate() error {
	bad := func(format string, args ...any) error {
		return &ConfigError{c.Source, fmt.Sprintf(format, args...)}
	}
	if c.Host.MaxOutputMB < 0 || c.Host.MaxOutputMB > 1024 {
		return bad("host.max_output_mb = %d: give a size in MiB from 1 to 1024 (0 or absent: 32)", c.Host.MaxOutputMB)
	}
	if c.Host.MaxCalls < 0 || c.Host.MaxCalls > 1024 {
		return bad("host.max_calls = %d: give a number of calls from 1 to 1024 (0 or absent: 16)", c.Host.MaxCalls)
	}
	if err := c.validatePluginMemory(); err != nil {
		return err
	}
	if d := c.Host.HookTimeout.Duration; d < 0 || d > 10*time.Minute {
		return bad("host.hook_timeout = %s: give a duration from 1ms to 10m, like \"60s\" (absent: 60s); it is a backstop, the work budget (host.hook_fuel_per_kb) bounds a hook's work", d)
	}
	if n := c.Host.HookFuelPerKB; n != 0 && (n < 1_000_000 || n > 1_000_000_000_000) {
		return bad("host.hook_fuel_per_kb = %d: give fuel per KiB of hook input from 1_000_000 to 1_000_000_000_000 (absent: %d, ten times the most a first-party hook uses)", n, DefaultHookFuelPerKB)
	}
	if c.Host.RollbackAfter < 0 || c.Host.RollbackAfter > 1000 {
		return bad("host.rollback_after = %d: give a number of failed hook calls from 1 to 1000 (0 or absent: 3)", c.Host.RollbackAfter)
	}
	if err := c.validateKeys(); err != nil {
		return err
	}
	if err := c.Vision.Validate(); err != nil {
		return bad("%v", err)
	}
	if err := c.Telemetry.Validate(); err != nil {
		return bad("%v", err)
	}
	for name, p := range c.Plugins {
		if p.SHA256 != "" && (len(p.SHA256) != 64 || strings.Trim(strings.ToLower(p.SHA256), "0123456789abcdef") != "") {
			return bad("plugins.%s.sha256 must be 64 hex digits (sha256sum of the .wasm)", name)
		}
	}
	for _, pn := range sortedKeys(c.Personalities) {
		if err := c.validatePersonality(pn, c.Personalities[pn], bad); err != nil {
			return err
		}
	}
	if d := c.Host.DefaultPersonality; d != "" {
		if _, ok := c.Personalities[d]; !ok {
			return bad("host.default_personality %q is not a defined personality", d)
		}
	}
	if (c.Serve.TLSCert == "") != (c.Serve.TLSKey == "") {
		return bad("serve.tls_cert and serve.tls_key go together: set both or neither")
	}
	if d := c.Serve.DrainTimeout.Duration; d < 0 || d > time.Hour {
		return bad("serve.drain_timeout = %s: give a duration from 1s to 1h, like \"30s\" (absent: 30s)", d)
	}
	if c.Serve.MaxConns < 0 || c.Serve.MaxConnsPerIP < 0 || c.Serve.MaxSessionsPerToken < 0 {
		return bad("serve.max_conns, max_conns_per_ip and max_sessions_per_token must not be negative (0 takes the default)")
	}
	for i, o := range c.Serve.AllowedOrigins {
		if _, err := weborigin.Parse(o); err != nil {
			return bad("serve.allowed_origins[%d] %q is not an origin: write scheme://host[:port], as browsers send it (%v)", i, o, err)
		}
	}
	for i, t := range c.Serve.Tokens {
		if _, ok := c.Personalities[t.Personality]; !ok {
			return bad("serve.tokens[%d] maps to unknown personality %q", i, t.Personality)
		}
		if len(t.SHA256) != 64 {
			return bad("serve.tokens[%d].sha256 must be the sha256 hex of the token (wasmwright token hash)", i)
		}
	}
	return c.validateConsole()
}

func (c *Config) validateConsole() error {
	var agents []string
	for _, t := range c.Serve.Tokens {
		agents = append(agents, t.SHA256)
	}
	defined := func(p string) bool { _, ok := c.Personalities[p]; return ok }
	if err := c.Console.Validate(defined, agents); err != nil {
		return &ConfigError{c.Source, err.Error()}
	}
	return nil
}

// validID is the config's rule for names, kept in one place
// (consoleconfig.ValidID: the console's package cannot import the kernel).
func validID(s string) bool { return consoleconfig.ValidID(s) }

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// path resolves p against the config's folder.
func (c *Config) path(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.Dir, p)
}
