package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

// push checks what pull checks before it publishes anything: a file that
// does not load as a plugin, and one whose manifest names another plugin
// than --name, are refused (the registry here answers nothing, so an
// unchecked push would fail reaching it, not be refused).
func TestPushChecksWhatPullChecks(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", filepath.Join(os.TempDir(), "ww-cli-test-cache"))
	dir := pluginsDir(t)
	good := filepath.Join(dir, "extract_links.wasm")
	garbage := filepath.Join(t.TempDir(), "garbage.wasm")
	os.WriteFile(garbage, []byte("\x00asm not really"), 0o644)
	ref := "127.0.0.1:1/plugins/x:1"
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"not a plugin", []string{garbage, ref}, "does not load as a plugin"},
		{"another name", []string{good, ref, "--name", "page_tools"}, `calls itself \"extract_links\" in its manifest, not \"page_tools\"`},
	} {
		code, out, _ := cli(t, append([]string{"plugins", "push", "--plain-http"}, c.args...)...)
		if code != 1 || !strings.Contains(out, `"code": "refused"`) || !strings.Contains(out, c.want) || !strings.Contains(out, "nothing was published") {
			t.Errorf("%s: want refused %q, got %d %s", c.name, c.want, code, out)
		}
	}
	// A good file gets past the checks: it fails reaching the registry.
	code, out, _ := cli(t, "plugins", "push", "--plain-http", good, ref, "--name", "extract_links")
	if code != 1 || strings.Contains(out, "nothing was published") {
		t.Fatalf("a good file must reach the publishing step: %d %s", code, out)
	}
}

// plugins list's state says what happened to the file whose last good
// version serves: set aside (and why), missing, or refused.
func TestListFileState(t *testing.T) {
	aside := abi.Errorf(abi.CodePluginFailed, "plugin p's file (sha256 abc) was set aside at T: rolled back: 3 hook calls in a row failed").With("set_aside", "/x/.rejected/p.wasm.refused")
	if got := fileState(aside); !strings.HasPrefix(got, "its file was set aside (/x/.rejected/p.wasm.refused): ") || strings.Contains(got, "refused: ") {
		t.Errorf("set aside: %s", got)
	}
	if got := fileState(abi.Errorf(abi.CodeNotAvailable, "plugin p is not installed (p.wasm is missing)")); !strings.HasPrefix(got, "its file is missing: ") {
		t.Errorf("missing: %s", got)
	}
	if got := fileState(abi.Errorf(abi.CodeRefused, "calls itself q")); got != "its file was refused: refused: calls itself q" {
		t.Errorf("refused: %s", got)
	}
}

// examples/minimal.toml, the first config an author needs, loads and
// answers a first call of the example plugin.
func TestMinimalConfigFirstCall(t *testing.T) {
	t.Setenv("WASMWRIGHT_PLUGINS_DIR", pluginsDir(t))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(os.TempDir(), "ww-cli-test-cache"))
	cfg := filepath.Join(wasmbuild.Root(), "examples", "minimal.toml")
	code, out, stderr := cli(t, "--config", cfg, "call", "extract_links", `{"html":"<a href=/x>x</a>"}`)
	if code != 0 || !strings.Contains(out, `"href": "/x"`) {
		t.Fatalf("first call with examples/minimal.toml: %d %s %s", code, out, stderr)
	}
}
