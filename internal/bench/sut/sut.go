// Package sut sets up the two systems under test of the benchmarks that
// compare wasmwright with Playwright MCP: the same Chromium for both, and
// each one's configuration, so every program measures the same setup.
package sut

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/internal/bench/benchflag"
	"github.com/wasmwright/wasmwright/internal/bench/mcpclient"
	"github.com/wasmwright/wasmwright/internal/procfs"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

// Chromium is the browser both sides run.
func Chromium() string { return mcpclient.Chromium() }

// WasmwrightConfig writes, in dir, the config `wasmwright serve` runs
// with in the benchmarks and returns its path: the browser plugin with the
// default pipeline (detect, compact, mask), the egress proxy in front of
// Chromium allowing only loopback (the corpus server). wasmwright's
// browser needs no --host-resolver-rules from here: it resolves no names
// itself. sessions is how many MCP sessions the benchmark holds open at
// once; the cap leaves room for sessions still closing from a previous
// round. cache and plugins "" are build/cache and the binary's default.
func WasmwrightConfig(dir, cache, plugins string, sessions int) (string, error) {
	return WriteConfig(dir, mcpclient.Bench{CacheDir: cache, PluginsDir: plugins}, sessions, "")
}

// WriteConfig is WasmwrightConfig for any setup b (its Workspace is set
// in dir, an empty CacheDir is build/cache), with TOML tables appended.
func WriteConfig(dir string, b mcpclient.Bench, sessions int, tables string) (string, error) {
	conf := filepath.Join(dir, "bench.toml")
	if b.CacheDir == "" {
		b.CacheDir = filepath.Join(wasmbuild.Root(), "build", "cache")
	}
	b.Workspace = filepath.Join(dir, "workspace")
	text := b.Config() + fmt.Sprintf("[serve]\nmax_sessions_per_token = %d\n", max(4*sessions, 8)) + tables
	return conf, os.WriteFile(conf, []byte(text), 0o644)
}

// PeerArgs writes Playwright MCP's config in dir and returns the node
// arguments that run cli.js on the same Chromium, headless, one isolated
// context per client, no settle wait; extra flags follow. Its browser
// gets --host-resolver-rules so external hosts fail at once instead of
// waiting on a closed network (wasmwright's does this itself).
func PeerArgs(cli, dir string, extra ...string) ([]string, error) {
	return peerArgs(cli, dir, append([]string{"--timeout-settle", "0"}, extra...))
}

// PeerArgsDefault is PeerArgs with Playwright MCP's default settle wait
// (it waits after each action for the page to settle), as it ships.
func PeerArgsDefault(cli, dir string, extra ...string) ([]string, error) {
	return peerArgs(cli, dir, extra)
}

func peerArgs(cli, dir string, extra []string) ([]string, error) {
	conf := filepath.Join(dir, "config.json")
	b, _ := json.Marshal(map[string]any{"browser": map[string]any{"launchOptions": map[string]any{
		"args": []string{"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"},
	}}})
	if err := os.WriteFile(conf, b, 0o644); err != nil {
		return nil, err
	}
	args := []string{cli, "--headless", "--executable-path", Chromium(), "--no-sandbox", "--isolated",
		"--config", conf, "--output-dir", dir}
	return append(args, extra...), nil
}

// Descendants lists the processes under pid (children, theirs, ...).
func Descendants(pid int) []int { return procfs.Descendants(pid) }

// CPUTime is the processor time used so far by pid and every process under
// it, with what their exited children used (/proc stat: utime, stime,
// cutime, cstime), in clock ticks of 1/100 s.
func CPUTime(pid int) int64 {
	var total int64
	for _, s := range procfs.Tree(pid) {
		total += s.UTime + s.STime + s.CUTime + s.CSTime
	}
	return total
}

// DefaultHost is the real host (the library, no server) on the embedded
// default config, its plugins from $WASMWRIGHT_PLUGINS_DIR (else
// build/plugins) compiled into build/cache, with loopback allowed to the
// default personality (the benches serve their pages there) and the
// plugins folder not watched.
func DefaultHost() (*host.Host, *host.Config, error) {
	os.Setenv("WASMWRIGHT_PLUGINS_DIR", benchflag.PluginsDir())
	cfg, err := host.LoadConfig("")
	if err != nil {
		return nil, nil, err
	}
	cfg.Host.WatchPlugins = false
	cfg.Host.CacheDir = filepath.Join(wasmbuild.Root(), "build", "cache")
	name := cfg.Host.DefaultPersonality
	p := cfg.Personalities[name]
	p.Network.AllowedHosts = append(p.Network.AllowedHosts, "127.0.0.1")
	cfg.Personalities[name] = p
	h, err := host.New(context.Background(), cfg, host.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	return h, cfg, err
}
