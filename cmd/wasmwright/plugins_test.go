package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

// swapConfig writes a config serving plugins from a fresh folder holding
// mods; the default personality also names blockdetect, which is not
// installed.
func swapConfig(t *testing.T, mods map[string]string, watch bool) (cfgFile, dir string) {
	t.Helper()
	dir = wasmbuild.Installed(t, mods)
	cfgFile = filepath.Join(t.TempDir(), "ww.toml")
	w := "false"
	if watch {
		w = "true"
	}
	os.WriteFile(cfgFile, []byte(`
[host]
plugins_dir = "`+dir+`"
cache_dir = "`+filepath.Join(os.TempDir(), "ww-cli-test-cache")+`"
watch_plugins = `+w+`
[plugins.browser]
[plugins.extract_links]
[plugins.blockdetect]
[personalities.default]
plugins = ["browser", "extract_links", "blockdetect"]
tools = ["*"]
grants = ["browser.read", "browser.act", "events"]
hooks = { detect = "blockdetect" }
`), 0o644)
	return cfgFile, dir
}

type swapOut struct {
	Plugin, SHA256, Installed, Server string
	Live                              bool
}

func runSwap(t *testing.T, args ...string) (int, swapOut, string) {
	t.Helper()
	code, out, stderr := cli(t, append([]string{"plugins", "swap"}, args...)...)
	var o swapOut
	if code == 0 {
		if err := json.Unmarshal([]byte(out), &o); err != nil {
			t.Fatalf("output %s: %v", out, err)
		}
	}
	return code, o, out + stderr
}

// The shipped browser plugin (it imports ww_browser_*) swaps like any
// other, with no word about other plugins; without watch_plugins swap
// says a running server keeps the old version until it restarts.
func TestPluginsSwapBrowserPlugin(t *testing.T) {
	cfg, dir := swapConfig(t, map[string]string{"browser": "plugins/browser", "extract_links": "examples/extract_links"}, false)
	file := filepath.Join(t.TempDir(), "browser-new.wasm")
	b, _ := os.ReadFile(filepath.Join(dir, "browser.wasm"))
	os.WriteFile(file, b, 0o644)
	code, o, all := runSwap(t, "--config", cfg, "browser", file)
	if code != 0 || o.Live || !strings.Contains(o.Server, "keeps serving the old version until it restarts") || o.Installed != filepath.Join(dir, "browser.wasm") {
		t.Fatalf("exit %d: %s", code, all)
	}
	if strings.Contains(all, "blockdetect") || strings.Contains(all, "WARN") {
		t.Fatalf("swap talks about other plugins: %s", all)
	}
	if pin, _ := os.ReadFile(filepath.Join(dir, "browser.wasm.sha256")); !strings.HasPrefix(string(pin), o.SHA256) {
		t.Fatalf("pin sidecar %q", pin)
	}
}

// With watch_plugins, swap says whether a running server swapped the file
// in: yes when one serves from the folder, no (and why) when none does.
func TestPluginsSwapReportsPickup(t *testing.T) {
	cfg, _ := swapConfig(t, map[string]string{"extract_links": "examples/extract_links"}, true)
	next, err := wasmbuild.Build("examples/extract_links", "-trimpath")
	if err != nil {
		t.Fatal(err)
	}
	code, o, all := runSwap(t, "--config", cfg, "--wait", "300ms", "extract_links", next)
	if code != 0 || o.Live || !strings.Contains(o.Server, "no running server picked it up within 300ms") {
		t.Fatalf("no server: exit %d: %s", code, all)
	}

	h := serverHost(t, cfg)
	prev, err := wasmbuild.Build("examples/extract_links")
	if err != nil {
		t.Fatal(err)
	}
	code, o, all = runSwap(t, "--config", cfg, "--wait", "60s", "extract_links", prev)
	if code != 0 || !o.Live || !strings.Contains(o.Server, "a running server swapped it in") {
		t.Fatalf("running server: exit %d: %s", code, all)
	}
	for _, p := range h.Plugins() {
		if p.Name == "extract_links" && p.SHA256 != o.SHA256 {
			t.Fatalf("the server serves %s, swap said %s", p.SHA256, o.SHA256)
		}
	}
}
