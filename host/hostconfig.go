package host

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/host/pluginset"
	"github.com/wasmwright/wasmwright/sandbox"
)

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
