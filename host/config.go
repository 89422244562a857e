package host

import (
	_ "embed"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/capability"
	consoleconfig "github.com/wasmwright/wasmwright/host/console/config"
	"github.com/wasmwright/wasmwright/host/pluginset"
	"github.com/wasmwright/wasmwright/host/telemetry"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/hostfuncs/network"
	"github.com/wasmwright/wasmwright/hostfuncs/operator"
	"github.com/wasmwright/wasmwright/hostfuncs/vision"
	"github.com/wasmwright/wasmwright/hostfuncs/weborigin"
	"github.com/wasmwright/wasmwright/sandbox"
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

// HostConfig is the [host] table.
type HostConfig struct {
	// PluginsDir holds the .wasm files. Default (PluginsDir):
	// $WASMWRIGHT_PLUGINS_DIR, else <binary dir>/plugins when it exists,
	// else build/plugins under the config's folder.
	PluginsDir string `toml:"plugins_dir"`
	// CacheDir holds compiled plugin code. Default: the user cache dir.
	CacheDir string `toml:"cache_dir"`
	// PersonalitiesDir holds NAME.toml personality files, added to the
	// [personalities] tables.
	PersonalitiesDir string `toml:"personalities_dir"`
	// DefaultPersonality is the personality a caller gets when it names
	// none (stdio, and the CLI without --personality).
	DefaultPersonality string `toml:"default_personality"`
	// EventsFile, when set, receives the host's events (tool calls,
	// vault fills, approvals, plugins' own events) as JSON lines, mode
	// 0600. Empty: none are written to disk.
	EventsFile string `toml:"events_file"`
	// CallTimeout is the wall-clock deadline of one tool call, its hooks
	// included.
	CallTimeout Duration `toml:"call_timeout"`
	// StretchWithLoad multiplies call_timeout and the browser's
	// action_timeout and navigation_timeout by the one-minute load average
	// per CPU (at least 1x, at most 4x) when each wait starts. Off by
	// default: a configured deadline is the deadline, whatever the load.
	StretchWithLoad bool `toml:"stretch_with_load"`
	// MemoryMB caps one plugin instance's memory, in MiB (2 to 4096; 0:
	// 128); a plugin that grows past it traps with resource_limit.
	MemoryMB int `toml:"memory_mb"`
	// PoolSize is how many idle instances of each plugin are kept ready
	// for the next call (0: the sandbox default, 4).
	PoolSize int `toml:"pool_size"`
	// HookFuelPerKB is the work budget of one result-hook call (detect,
	// compact, mask), in fuel per KiB of its input: the call may use
	// HookFuelPerKB × (input KiB + pluginset.HookFuelBaseKB) fuel, and is
	// stopped with resource_limit past it. 0: DefaultHookFuelPerKB (600 M).
	HookFuelPerKB int64 `toml:"hook_fuel_per_kb"`
	// HookTimeout is the wall-clock deadline of one result-hook call, apart
	// from call_timeout: a backstop against a stuck host, never what stops
	// a hook doing its work on a slow machine (the work budget does that).
	// Default 60s.
	HookTimeout Duration `toml:"hook_timeout"`
	// RollbackAfter is how many hook calls in a row may fail on a swapped-in
	// version before the host rolls it back to the version before. Default 3.
	RollbackAfter int `toml:"rollback_after"`
	// MaxOutputMB caps what a plugin hands the host in one piece: a call's
	// result, a host-function request. 0: the sandbox default (32).
	MaxOutputMB int `toml:"max_output_mb"`
	// MaxCalls caps the calls one plugin runs at once (each holds an
	// instance of up to memory_mb). 0: the sandbox default (16).
	MaxCalls int `toml:"max_calls"`
	// MaxPluginMemoryMB is the host-wide memory budget of every plugin
	// instance together, in MiB (sandbox/membudget.go): a running instance
	// counts its memory_mb, an idle pooled one what it holds; a call that
	// would pass it closes idle instances, then waits until its deadline,
	// then fails resource_limit naming the key. 0: the sandbox default
	// (2048: sixteen calls at the default memory_mb at once).
	MaxPluginMemoryMB int `toml:"max_plugin_memory_mb"`
	// WatchPlugins swaps in a plugin version dropped into the plugins
	// folder while the host serves. Off unless set (the embedded default
	// config sets it).
	WatchPlugins bool `toml:"watch_plugins"`
	// LogLevel is accepted for older configs and not read: the log level
	// is the command's --log-level flag (default warn).
	LogLevel string `toml:"log_level"`
	// GrantsDir holds the origin-scoped act grants, a file per personality
	// (mode 0600). Default: <user config dir>/wasmwright/grants.
	GrantsDir string `toml:"grants_dir"`
	// TrustedKeys are minisign public keys ("RW...", or .pub file paths)
	// that may sign any plugin (host/trust.go; verified by host/signature).
	TrustedKeys []string `toml:"trusted_keys"`
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

// PersonalityConfig is one agent role.
type PersonalityConfig struct {
	// Description says what the role is for, to whoever reads the config.
	Description string `toml:"description"`
	// Plugins this personality loads. Absent or empty: none.
	Plugins []string `toml:"plugins"`
	// Tools it may call: names, or "*" for every tool of its plugins.
	// Absent or empty: none.
	Tools []string `toml:"tools"`
	// Grants are capability IDs. Absent or empty: nothing.
	Grants []string    `toml:"grants"`
	Hooks  HooksConfig `toml:"hooks"`
	// Network is what its pages and plugins may reach: the egress
	// service's own table (hostfuncs/network.Policy).
	Network network.Policy `toml:"network"`
	// AllowEvalWithVault lets a personality hold browser.eval next to
	// vault.fill. Refused by default: script the agent runs in the page
	// can read back every credential value the vault filled there.
	AllowEvalWithVault bool `toml:"allow_eval_with_vault"`
	// VisionAllowSecrets lets a page holding a filled secret (a password
	// field with a value, a credential value shown) go to the vision
	// model. Off by default: the model is a third party to the session.
	VisionAllowSecrets bool `toml:"vision_allow_secrets"`
	// Approval maps a risk (abi.Risks: read, navigate, act, eval,
	// credential, upload, download) to allow, ask or deny; absent risks
	// are allowed. Beside the risks: "timeout", how long an ask waits for
	// an answer (default 120s, at most 24h); "via", where an ask goes
	// ("console" and/or "client", the agent's own MCP client; default the
	// console only); "client_grants", how long an approval "for this
	// origin" given by the client lasts ("session", default, or "persist").
	Approval ApprovalTable `toml:"approval"`
	// Takeover says where a takeover may reach a person.
	Takeover TakeoverTable `toml:"takeover"`
	// FullSnapshots lets its agents ask for a snapshot uncompacted
	// (browser_snapshot full = true). Off by default: a full snapshot of a
	// large page costs many times the tokens of the compacted one.
	FullSnapshots bool `toml:"full_snapshots"`
	// RequireSignatures loads its plugins only when signed by a trusted
	// key (host/trust.go; verified by host/signature); an unsigned or altered one is refused.
	RequireSignatures bool `toml:"require_signatures"`
	// DetectFailure says what a navigation gets when its detector fails
	// (panics, passes hook_timeout, answers nonsense, is not loaded):
	// "fail_closed" (default) fails the call naming the detector,
	// "fail_open" returns the result with a warning on it.
	DetectFailure string `toml:"detect_failure"`
	// HiddenText says what its snapshots do with text a sighted user
	// cannot see (hostfuncs/browser/visibility.go): "drop" (default)
	// takes it out; "mark" keeps it, marked: a hidden element's line
	// carries [hidden], a hidden run of text reads [hidden: ...]. Marked
	// text still reaches the agent: a page can write instructions there.
	HiddenText string `toml:"hidden_text"`
}

// What a snapshot does with hidden text (PersonalityConfig.HiddenText).
const (
	HiddenDrop = "drop"
	HiddenMark = "mark"
)

// What a failed detector means (PersonalityConfig.DetectFailure).
const (
	FailClosed = "fail_closed"
	FailOpen   = "fail_open"
)

// Defaults of the hook keys of [host].
const (
	// DefaultHookFuelPerKB is ten times the most fuel per KiB of input a
	// first-party hook was measured to use, on the largest pages of the
	// shared corpus on a fresh instance (secretmask: 57 M per KiB of
	// snapshot; snapcompact 33 M; blockdetect 5 M on a 4 MB page it reads
	// whole). RATIONALE.md, "Hook budgets in work", has the figures.
	DefaultHookFuelPerKB = 600_000_000
	// DefaultHookTimeout is a backstop only: the longest first-party hook
	// call measured (blockdetect reading a 4 MB page whole) took 3.4 s on
	// a busy 2-core machine, so 60 s still lets it finish at over fifteen
	// times that load.
	DefaultHookTimeout   = 60 * time.Second
	DefaultRollbackAfter = 3
)

// hookLimits are host.hook_fuel_per_kb and host.hook_timeout, or their
// defaults.
func (c HostConfig) hookLimits() pluginset.HookLimits {
	l := pluginset.HookLimits{FuelPerKB: c.HookFuelPerKB, Timeout: c.HookTimeout.Duration}
	if l.FuelPerKB <= 0 {
		l.FuelPerKB = DefaultHookFuelPerKB
	}
	if l.Timeout <= 0 {
		l.Timeout = DefaultHookTimeout
	}
	return l
}

// rollbackAfter is host.rollback_after, or its default.
func (c HostConfig) rollbackAfter() int {
	if c.RollbackAfter > 0 {
		return c.RollbackAfter
	}
	return DefaultRollbackAfter
}

// Approval modes of a risk.
const (
	ModeAllow = "allow"
	ModeAsk   = "ask"
	ModeDeny  = "deny"
)

// DefaultApprovalTimeout is how long an ask waits when approval.timeout is
// not set.
const DefaultApprovalTimeout = 120 * time.Second

// ApprovalTable is [personalities.NAME.approval]: a mode per risk and
// "timeout" (strings, Modes), "via" (a list: where an ask goes,
// operator.ViaConsole and operator.ViaClient; absent: the console only)
// and "client_grants" (ClientGrantsSession or ClientGrantsPersist).
type ApprovalTable struct {
	Modes map[string]string
	Via   []string
	// ClientGrants is how long an approval "for this origin" given by the
	// agent's client lasts: its MCP session (default) or until revoked.
	ClientGrants string
	// bad holds the keys whose values had the wrong type, for checkApproval.
	bad []string
}

// UnmarshalTOML reads the table; a value of the wrong type is reported by
// checkApproval with the personality's name.
func (a *ApprovalTable) UnmarshalTOML(v any) error {
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Errorf("approval must be a table, like [personalities.NAME.approval]")
	}
	a.Modes = map[string]string{}
	for k, x := range m {
		if k == "via" {
			list, ok := x.([]any)
			for _, e := range list {
				s, isStr := e.(string)
				ok = ok && isStr
				a.Via = append(a.Via, s)
			}
			if !ok || len(list) == 0 {
				a.bad = append(a.bad, k)
			}
			continue
		}
		s, ok := x.(string)
		if !ok {
			a.bad = append(a.bad, k)
			continue
		}
		if k == "client_grants" {
			a.ClientGrants = s
			continue
		}
		a.Modes[k] = s
	}
	return nil
}

// How long a client's grant lasts (approval.client_grants).
const (
	// ClientGrantsSession: the agent's client's MCP session (default).
	ClientGrantsSession = "session"
	// ClientGrantsPersist: stored with the operators' grants, until
	// revoked; it still counts only while approval.via names the client.
	ClientGrantsPersist = "persist"
)

// TakeoverTable is [personalities.NAME.takeover]: "via" lists where a
// takeover reaches a person: operator.ViaConsole (always: the console and
// its webhook) and operator.ViaClient (a one-time link to the live view,
// sent to the agent's own MCP client by URL elicitation). Absent: the
// console only. The client is the agent until a personality opts in.
type TakeoverTable struct {
	// Via lists where a takeover reaches a person: "console" (the console
	// and its webhook; absent: this only) and "client" (a one-time link to
	// the live view, sent to the agent's own MCP client).
	Via []string `toml:"via"`
}

// checkTakeover validates [personalities.NAME.takeover].
func (p PersonalityConfig) checkTakeover(name string) error {
	seen := map[string]bool{}
	for _, v := range p.Takeover.Via {
		if v != operator.ViaClient && v != operator.ViaConsole {
			return fmt.Errorf("personalities.%s.takeover.via: unknown way %q: use \"console\" (the operator console) and/or \"client\" (a link to the live view sent to the agent's own MCP client)", name, v)
		}
		if seen[v] {
			return fmt.Errorf("personalities.%s.takeover.via names %q twice: list each way once", name, v)
		}
		seen[v] = true
	}
	return nil
}

// takeoverVia is takeover.via, or its default (the console only).
func (p PersonalityConfig) takeoverVia() []string {
	if len(p.Takeover.Via) == 0 {
		return []string{operator.ViaConsole}
	}
	return p.Takeover.Via
}

// clientApproves reports whether approval.via names the agent's client:
// only then may it answer approvals, and only then do its grants count.
func (p PersonalityConfig) clientApproves() bool {
	return slices.Contains(p.Approval.Via, operator.ViaClient)
}

// clientAsks reports whether any personality's approval.via names the
// agent's client: the host then keeps an operator desk even without a
// console, so those approvals reach the client that can ask its user.
func clientAsks(c *Config) bool {
	for _, p := range c.Personalities {
		if p.clientApproves() {
			return true
		}
	}
	return false
}

// approvalMode is the mode of a risk: allow unless the table says otherwise.
func (p PersonalityConfig) approvalMode(r abi.Risk) string {
	if m := p.Approval.Modes[string(r)]; m != "" {
		return m
	}
	return ModeAllow
}

// asks reports whether any risk's approval mode is ask.
func (p PersonalityConfig) asks() bool {
	for k, v := range p.Approval.Modes {
		if k != "timeout" && v == ModeAsk {
			return true
		}
	}
	return false
}

// approvalTimeout is approval.timeout (validated), or the default.
func (p PersonalityConfig) approvalTimeout() time.Duration {
	if d, err := time.ParseDuration(p.Approval.Modes["timeout"]); err == nil {
		return d
	}
	return DefaultApprovalTimeout
}

// checkApproval validates [personalities.NAME.approval].
func (p PersonalityConfig) checkApproval(name string) error {
	for _, k := range p.Approval.bad {
		if k == "via" {
			return fmt.Errorf("personalities.%s.approval.via: give a list of where approvals are asked, like [\"client\", \"console\"]", name)
		}
		return fmt.Errorf("personalities.%s.approval.%s: give a string (allow, ask or deny; timeout: a duration like \"120s\")", name, k)
	}
	if g := p.Approval.ClientGrants; g != "" && g != ClientGrantsSession && g != ClientGrantsPersist {
		return fmt.Errorf("personalities.%s.approval.client_grants = %q: use %q (a grant the agent's client makes lasts its MCP session) or %q (stored until revoked)", name, g, ClientGrantsSession, ClientGrantsPersist)
	}
	seen := map[string]bool{}
	for _, v := range p.Approval.Via {
		if v != operator.ViaClient && v != operator.ViaConsole {
			return fmt.Errorf("personalities.%s.approval.via: unknown way %q: use \"client\" (the agent's MCP client, by elicitation) and/or \"console\" (the operator console)", name, v)
		}
		if seen[v] {
			return fmt.Errorf("personalities.%s.approval.via names %q twice: list each way once", name, v)
		}
		seen[v] = true
	}
	for _, k := range sortedKeys(p.Approval.Modes) {
		v := p.Approval.Modes[k]
		if k == "timeout" {
			if d, err := time.ParseDuration(v); err != nil || d <= 0 || d > 24*time.Hour {
				return fmt.Errorf("personalities.%s.approval.timeout = %q: give a duration from 1s to 24h, like \"120s\"", name, v)
			}
			continue
		}
		if !abi.Risk(k).Valid() {
			return fmt.Errorf("personalities.%s.approval.%s: unknown risk %q: use one of %v (or timeout)", name, k, k, abi.Risks())
		}
		if v != ModeAllow && v != ModeAsk && v != ModeDeny {
			return fmt.Errorf("personalities.%s.approval.%s = %q: use allow, ask or deny", name, k, v)
		}
	}
	return nil
}

// HooksConfig names the plugin filling each pipeline role; empty: none.
type HooksConfig struct {
	// Detect is the detector chain: one plugin name (detect = "blockdetect",
	// as before chains) or several in order (detect = ["blockdetect",
	// "humancheck"]); a page is a bot wall when any of them flags it.
	Detect DetectorChain `toml:"detect"`
	// Compact is the plugin that shortens snapshots before they reach the
	// agent (snapcompact); empty: snapshots go out whole.
	Compact string `toml:"compact"`
	// Mask is the plugin that hides secret values in every result
	// (secretmask); it runs last.
	Mask string `toml:"mask"`
}

// byRole maps each role to the plugins filling it, in order (one for
// compact and mask, the chain for detect).
func (h HooksConfig) byRole() map[abi.HookRole][]string {
	one := func(s string) []string {
		if s == "" {
			return nil
		}
		return []string{s}
	}
	return map[abi.HookRole][]string{abi.HookDetect: h.Detect, abi.HookCompact: one(h.Compact), abi.HookMask: one(h.Mask)}
}

// DetectorChain is hooks.detect: the detectors of a personality, in the
// order they run. A TOML string is a chain of one, so configs written for
// a single detector keep working.
type DetectorChain []string

// UnmarshalTOML takes a plugin name or an array of them.
func (d *DetectorChain) UnmarshalTOML(v any) error {
	switch x := v.(type) {
	case string:
		*d = nil
		if x != "" {
			*d = DetectorChain{x}
		}
		return nil
	case []any:
		out := DetectorChain{}
		for _, e := range x {
			s, ok := e.(string)
			if !ok || s == "" {
				return fmt.Errorf("hooks.detect: %v is not a plugin name: list plugin names, like [\"blockdetect\", \"my_detector\"]", e)
			}
			if slices.Contains(out, s) {
				return fmt.Errorf("hooks.detect lists %q twice", s)
			}
			out = append(out, s)
		}
		*d = out
		return nil
	}
	return fmt.Errorf("hooks.detect = %v: give a plugin name, or a list of them in the order they run", v)
}

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
	// reserved for connections that authenticated (host/listen);
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
		return nil, &ConfigError{source, fmt.Sprintf("unknown key %s: check its spelling against the documented keys in docs/configuration.md", strings.Join(und, ", "))}
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
		return &ConfigError{c.Source, fmt.Sprintf("unknown key %s: check its spelling against the documented keys in docs/configuration.md", strings.Join(und, ", "))}
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

// validatePluginMemory checks memory_mb and the host-wide budget that
// must hold at least one instance of it.
func (c *Config) validatePluginMemory() error {
	mem, budget := c.Host.MemoryMB, c.Host.MaxPluginMemoryMB
	if mem < 0 || mem == 1 || mem > 4096 {
		return &ConfigError{c.Source, fmt.Sprintf("host.memory_mb = %d: give a size in MiB from 2 to 4096 (0 or absent: 128)", mem)}
	}
	if budget < 0 || budget > 1<<20 {
		return &ConfigError{c.Source, fmt.Sprintf("host.max_plugin_memory_mb = %d: give a size in MiB from host.memory_mb to 1048576 (0 or absent: %d)", budget, sandbox.DefaultMaxPluginMemory>>20)}
	}
	if mem == 0 {
		mem = sandbox.DefaultMemoryPages / 16
	}
	if budget == 0 {
		budget = sandbox.DefaultMaxPluginMemory >> 20
	}
	if budget < mem {
		return &ConfigError{c.Source, fmt.Sprintf("host.max_plugin_memory_mb = %d is less than host.memory_mb = %d: no plugin instance would fit; raise host.max_plugin_memory_mb (ten agent sessions need about ten times host.memory_mb) or lower host.memory_mb", budget, mem)}
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

// validatePersonality checks one personality's table against the rest of
// the config: its name, plugins, grants, detect_failure, approval, hooks.
func (c *Config) validatePersonality(pn string, p PersonalityConfig, bad func(string, ...any) error) error {
	if !validID(pn) {
		return bad("personality name %q: use letters, digits, _ and - only", pn)
	}
	for _, pl := range p.Plugins {
		if _, ok := c.Plugins[pl]; !ok {
			return bad("personality %s loads plugin %q, which no [plugins.%s] table defines", pn, pl, pl)
		}
	}
	grants, err := capability.Parse(p.Grants)
	if err != nil {
		return bad("personality %s: %v", pn, err)
	}
	if grants[capability.BrowserEval] && grants[capability.VaultFill] && !p.AllowEvalWithVault {
		return bad("personality %s grants both browser.eval and vault.fill: script run in the page could read the credentials the vault fills there. "+
			"Drop one of the two grants (or split them into two personalities), or, if this is intended, set allow_eval_with_vault = true in [personalities.%s]", pn, pn)
	}
	if f := p.DetectFailure; f != "" && f != FailClosed && f != FailOpen {
		return bad("personalities.%s.detect_failure = %q: use %q (a failed detector fails the navigation) or %q (the result goes through with a warning)", pn, f, FailClosed, FailOpen)
	}
	if h := p.HiddenText; h != "" && h != HiddenDrop && h != HiddenMark {
		return bad("personalities.%s.hidden_text = %q: use %q (text a person cannot see is taken out of snapshots) or %q (it stays, marked [hidden])", pn, h, HiddenDrop, HiddenMark)
	}
	if err := p.checkApproval(pn); err != nil {
		return bad("%v", err)
	}
	if err := p.checkTakeover(pn); err != nil {
		return bad("%v", err)
	}
	for role, pls := range p.Hooks.byRole() {
		for _, pl := range pls {
			if !contains(p.Plugins, pl) {
				return bad("personality %s: hooks.%s names plugin %q, which is not in its plugins list", pn, role, pl)
			}
		}
	}
	return nil
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

// PluginsDir is the effective plugins folder.
func (c *Config) PluginsDir() string {
	if c.Host.PluginsDir != "" {
		return c.path(c.Host.PluginsDir)
	}
	if env := os.Getenv("WASMWRIGHT_PLUGINS_DIR"); env != "" {
		return env
	}
	if exe, err := os.Executable(); err == nil {
		d := filepath.Join(filepath.Dir(exe), "plugins")
		if st, err := os.Stat(d); err == nil && st.IsDir() {
			return d
		}
	}
	return filepath.Join(c.Dir, "build", "plugins")
}

// CacheDir is the effective compilation cache folder.
func (c *Config) CacheDir() string {
	if c.Host.CacheDir != "" {
		return c.path(c.Host.CacheDir)
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "wasmwright", "wazero")
	}
	return filepath.Join(os.TempDir(), "wasmwright-cache")
}

// PluginFile is the effective path of a plugin's .wasm.
func (c *Config) PluginFile(name string) string {
	f := c.Plugins[name].File
	if f == "" {
		f = name + ".wasm"
	}
	if filepath.IsAbs(f) {
		return f
	}
	return filepath.Join(c.PluginsDir(), f)
}

// GrantsDir is the effective folder of the origin-scoped act grants:
// host.grants_dir, or <user config dir>/wasmwright/grants. Without either
// it is an error (not_available) naming the key to set: grants are never
// kept in the system temp folder, which every user shares.
func (c *Config) GrantsDir() (string, error) {
	if c.Host.GrantsDir != "" {
		return c.path(c.Host.GrantsDir), nil
	}
	d, err := os.UserConfigDir()
	if err != nil {
		return "", abi.Errorf(abi.CodeNotAvailable, "no folder for the act grants: %v, and grants are never kept in the shared temp folder: set grants_dir in the config's [host] table (host.grants_dir), or HOME", err)
	}
	return filepath.Join(d, "wasmwright", "grants"), nil
}

// TLSFiles are serve.tls_cert and serve.tls_key, relative paths taken from
// the config file's folder; empty when HTTPS is not configured.
func (c *Config) TLSFiles() (cert, key string) {
	if c.Serve.TLSCert == "" {
		return "", ""
	}
	return c.path(c.Serve.TLSCert), c.path(c.Serve.TLSKey)
}
