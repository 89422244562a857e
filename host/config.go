package host

import (
	_ "embed"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
)

//go:embed default.toml
var defaultConfig string

// embeddedSource names the embedded default config in messages.
const embeddedSource = "embedded default config"

// DefaultConfigText is the embedded configuration used when no file is given.
func DefaultConfigText() string { return defaultConfig }

// Config is the host's TOML configuration: one file, with personalities as
// tables in it or as files in personalities_dir. The kernel's own tables
// ([host], [plugins], [personalities]) sit beside the services' sections,
// each a Section (host/section.go) that provisions and validates itself.
type Config struct {
	Host          HostConfig                   `toml:"host"`
	Plugins       map[string]PluginConfig      `toml:"plugins"`
	Personalities map[string]PersonalityConfig `toml:"personalities"`

	Browser   BrowserSection   `toml:"browser"`
	Vault     VaultConfig      `toml:"vault"`
	Serve     ServeConfig      `toml:"serve"`
	Console   ConsoleSection   `toml:"console"`
	Vision    VisionSection    `toml:"vision"`
	Network   NetworkSection   `toml:"network"`
	Telemetry TelemetrySection `toml:"telemetry"`

	// Dir resolves relative paths: the config file's folder, or the working
	// directory for the embedded default.
	Dir string `toml:"-"`
	// Source names where the config came from, for messages.
	Source string `toml:"-"`
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

// ParseConfig decodes TOML text, then runs every section's lifecycle
// (provision, validate). Unknown keys are refused, naming the key.
func ParseConfig(text, source, dir string) (*Config, error) {
	var c Config
	if err := decodeStrict(text, source, &c); err != nil {
		return nil, err
	}
	c.Dir, c.Source = dir, source
	if c.Host.PersonalitiesDir != "" {
		if err := c.loadPersonalityDir(); err != nil {
			return nil, err
		}
	}
	if err := c.provisionSections(); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// decodeStrict is the config's one way of decoding: ${VAR} expanded, then
// the text decoded into v whole, a key v has no place for refused.
func decodeStrict(text, source string, v any) error {
	text, err := expandEnv(text, source, osLookup)
	if err != nil {
		return err
	}
	md, err := toml.Decode(text, v)
	if err != nil {
		return &ConfigError{source, err.Error()}
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		return &ConfigError{source, fmt.Sprintf("unknown key %s: check its spelling against the documented keys in docs/configuration.md", strings.Join(keys, ", "))}
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
		if err := decodeStrict(string(b), f, &p); err != nil {
			return err
		}
		c.Personalities[name] = p
	}
	return nil
}

// Validate checks the kernel's own tables (personalities name known
// plugins and capabilities, hooks name plugins the personality loads),
// then every section (Section.Validate).
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
	return c.validateSections()
}

// validID is the config's rule for names, kept in one place (abi.ValidID:
// packages that cannot import the kernel check names too).
func validID(s string) bool { return abi.ValidID(s) }

func sortedKeys[V any](m map[string]V) []string {
	return slices.Sorted(maps.Keys(m))
}

// path resolves p against the config's folder.
func (c *Config) path(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(c.Dir, p)
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
