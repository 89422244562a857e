// Package sut sets up the two systems under test of the benchmarks that
// compare wasmwright with Playwright MCP: the same Chromium for both, and
// each one's configuration, so every program measures the same setup.
package sut

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

// Chromium is the browser both sides run.
func Chromium() string {
	if _, err := os.Stat("/usr/lib/chromium/chromium"); err == nil {
		return "/usr/lib/chromium/chromium"
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	return "chromium"
}

// WasmwrightConfig writes, in dir, the config `wasmwright serve` runs
// with in the benchmarks and returns its path: the browser plugin with the
// default pipeline (detect, compact, mask), the egress proxy in front of
// Chromium allowing only loopback (the corpus server). wasmwright's
// browser needs no --host-resolver-rules from here: it resolves no names
// itself. sessions caps the MCP sessions the benchmark opens.
func WasmwrightConfig(dir string, sessions int) (string, error) {
	conf := filepath.Join(dir, "bench.toml")
	err := os.WriteFile(conf, []byte(fmt.Sprintf(`
[host]
cache_dir = %q
default_personality = "bench"
watch_plugins = false
[serve]
max_sessions_per_token = %d
[browser]
headed = "false"
workspace_dir = %q
[plugins.browser]
[plugins.blockdetect]
[plugins.snapcompact]
[plugins.secretmask]
[personalities.bench]
plugins = ["browser", "blockdetect", "snapcompact", "secretmask"]
tools = ["*"]
grants = ["browser.read", "browser.act", "secrets.mask"]
hooks = { detect = "blockdetect", compact = "snapcompact", mask = "secretmask" }
network = { allowed_hosts = ["127.0.0.1"], only_hosts = ["127.0.0.1"] }
`, filepath.Join(wasmbuild.Root(), "build", "cache"), max(sessions, 8), filepath.Join(dir, "workspace"))), 0o644)
	return conf, err
}

// PeerArgs writes Playwright MCP's config in dir and returns the node
// arguments that run cli.js on the same Chromium, headless, one isolated
// context per client, no settle wait; extra flags follow. Its browser
// gets --host-resolver-rules so external hosts fail at once instead of
// waiting on a closed network (wasmwright's does this itself).
func PeerArgs(cli, dir string, extra ...string) ([]string, error) {
	conf := filepath.Join(dir, "config.json")
	b, _ := json.Marshal(map[string]any{"browser": map[string]any{"launchOptions": map[string]any{
		"args": []string{"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"},
	}}})
	if err := os.WriteFile(conf, b, 0o644); err != nil {
		return nil, err
	}
	args := []string{cli, "--headless", "--executable-path", Chromium(), "--no-sandbox", "--isolated",
		"--timeout-settle", "0", "--config", conf, "--output-dir", dir}
	return append(args, extra...), nil
}
