package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

// runAsCLIEnv makes the test binary act as the wasmwright command, so a
// test can hand it to a Makefile step (WASMWRIGHT=...) without building
// the command first.
const runAsCLIEnv = "WASMWRIGHT_TEST_RUN_AS_CLI"

func TestMain(m *testing.M) {
	if os.Getenv(runAsCLIEnv) == "1" {
		os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
	}
	code := m.Run()
	wasmbuild.RemoveCommand()
	os.Exit(code)
}

// `make build SIGN_KEY=FILE` signs the first-party plugins so a host with
// require_signatures loads them with no hand step: its signing step (make
// sign-plugins), run on a scratch folder with a fresh key, makes
// browser.wasm loadable by such a host, which refused it before.
func TestMakeSignsPlugins(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Fatalf("make is not installed: %v", err)
	}
	dir, keys := wasmbuild.Installed(t, map[string]string{"browser": "plugins/browser"}), t.TempDir()
	prefix := filepath.Join(keys, "operator")
	key := prefix + ".key"
	code, out, stderr := cli(t, "plugins", "keygen", prefix)
	var kg struct {
		PublicKey string `json:"public_key"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &kg) != nil || kg.PublicKey == "" {
		t.Fatalf("keygen: exit %d: %s%s", code, out, stderr)
	}
	cfgFile := filepath.Join(keys, "ww.toml")
	os.WriteFile(cfgFile, []byte(`
[host]
plugins_dir = "`+dir+`"
cache_dir = "`+filepath.Join(os.TempDir(), "ww-cli-test-cache")+`"
trusted_keys = ["`+kg.PublicKey+`"]
[plugins.browser]
[personalities.p]
plugins = ["browser"]
tools = ["*"]
grants = ["browser.read", "browser.act"]
require_signatures = true
`), 0o644)
	browserError := func() string {
		t.Helper()
		c, err := host.LoadConfig(cfgFile)
		if err != nil {
			t.Fatal(err)
		}
		// With the browser service (it starts nothing until a call), so
		// browser.wasm links.
		h, err := host.New(context.Background(), c, host.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close(context.Background())
		for _, p := range h.Plugins() {
			if p.Name == "browser" && p.Error != nil {
				return p.Error.Error()
			}
		}
		return ""
	}
	if e := browserError(); !strings.Contains(e, "is not signed") {
		t.Fatalf("before signing, a host with require_signatures loaded the unsigned browser.wasm (error %q)", e)
	}

	mk := exec.Command("make", "-s", "-C", wasmbuild.Root(), "sign-plugins", "PLUGINS_OUT="+dir, "SIGN_KEY="+key, "WASMWRIGHT="+os.Args[0])
	mk.Env = append(os.Environ(), runAsCLIEnv+"=1")
	if b, err := mk.CombinedOutput(); err != nil {
		t.Fatalf("make sign-plugins: %v\n%s", err, b)
	}
	if _, err := os.Stat(filepath.Join(dir, "browser.wasm.minisig")); err != nil {
		t.Fatalf("no signature beside browser.wasm: %v", err)
	}
	if e := browserError(); e != "" {
		t.Fatalf("after make sign-plugins, the host refuses browser.wasm: %s", e)
	}
}
