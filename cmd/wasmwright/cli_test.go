package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

// pluginsDir builds the example plugin into a fresh folder pinned by
// SHA256SUMS, as `make plugins` does.
func pluginsDir(t *testing.T) string {
	t.Helper()
	return wasmbuild.Installed(t, map[string]string{"extract_links": "examples/extract_links"})
}

func cli(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

// The embedded default config, with the plugins folder from the
// environment as `make run` sets it.
func TestCallWithEmbeddedDefaults(t *testing.T) {
	t.Setenv("WASMWRIGHT_PLUGINS_DIR", pluginsDir(t))
	t.Setenv("XDG_CACHE_HOME", filepath.Join(os.TempDir(), "ww-cli-test-cache"))
	t.Setenv("WASMWRIGHT_CONFIG", "")

	code, out, stderr := cli(t, "call", "extract_links", `{"html":"<p><a href=\"https://a.test/\">Alpha</a></p>"}`)
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	var res struct {
		Text string `json:"text"`
		Data []struct{ Href, Text string }
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Data) != 1 || res.Data[0].Href != "https://a.test/" || res.Data[0].Text != "Alpha" {
		t.Fatalf("output %s (%v)", out, err)
	}

	// The default's locked-down reader lists links and has nothing else.
	if code, out, _ = cli(t, "call", "extract_links", `{"html":"<a href=x>y</a>"}`, "--personality", "reader"); code != 0 || !strings.Contains(out, "1 links") {
		t.Fatalf("reader extract_links: exit %d: %s", code, out)
	}
	code, out, _ = cli(t, "call", "browser_navigate", `{"url":"https://a.test/"}`, "--personality", "reader")
	var e struct {
		Error struct {
			Code, Message string
			Details       map[string]string
		}
	}
	if code != 1 || json.Unmarshal([]byte(out), &e) != nil || e.Error.Code != "not_found" ||
		!strings.Contains(e.Error.Message, "under personality reader (available: extract_links)") {
		t.Fatalf("reader: exit %d: %s", code, out)
	}

	for _, c := range []struct {
		args []string
		code string
	}{
		{[]string{"call", "extract_links", `{not json`}, "input_invalid"},
		{[]string{"call", "extract_links", `{"html":1}`}, "input_invalid"},
		{[]string{"call", "no_such_tool", `{}`}, "not_found"},
		{[]string{"call", "extract_links", "{}", "--personality", "ghost"}, "not_found"},
	} {
		code, out, _ := cli(t, c.args...)
		if code != 1 || !strings.Contains(out, `"code": "`+c.code+`"`) {
			t.Errorf("%v: exit %d, %s", c.args, code, out)
		}
	}

	code, out, _ = cli(t, "tools")
	if code != 0 || !strings.Contains(out, `"name": "extract_links"`) || !strings.Contains(out, `"input_schema"`) || !strings.Contains(out, `"risk": "read"`) {
		t.Fatalf("tools: %d %s", code, out)
	}
	code, out, _ = cli(t, "plugins", "inspect", "extract_links")
	if code != 0 || !strings.Contains(out, `"capabilities": [`) || !strings.Contains(out, "ww_events_emit") {
		t.Fatalf("inspect: %d %s", code, out)
	}
	// verify fails: the default config names plugins this folder lacks.
	code, out, _ = cli(t, "plugins", "verify")
	if code != 1 || !strings.Contains(out, "ok   extract_links") || !strings.Contains(out, "FAIL browser") {
		t.Fatalf("verify: %d %s", code, out)
	}
}

func TestCallWithConfigFile(t *testing.T) {
	dir := pluginsDir(t)
	cfg := filepath.Join(t.TempDir(), "ww.toml")
	os.WriteFile(cfg, []byte(`
[host]
plugins_dir = "`+dir+`"
default_personality = "links"
[plugins.extract_links]
[personalities.links]
plugins = ["extract_links"]
tools = ["extract_links"]
grants = ["events"]
`), 0o644)
	code, out, stderr := cli(t, "--config", cfg, "call", "extract_links", `{"html":"<a href=/q>Q</a>","max":1}`)
	if code != 0 || !strings.Contains(out, `"href": "/q"`) {
		t.Fatalf("exit %d: %s %s", code, out, stderr)
	}
	code, out, _ = cli(t, "--config", cfg, "plugins", "verify")
	if code != 0 || !strings.Contains(out, "ok   extract_links 1.0.0 sha256 ") {
		t.Fatalf("verify: %d %s", code, out)
	}
	os.WriteFile(cfg, []byte("[host]\nplugins_dirs = \"x\"\n"), 0o644)
	code, _, stderr = cli(t, "--config", cfg, "tools")
	if code == 0 || !strings.Contains(stderr, "unknown key host.plugins_dirs") {
		t.Fatalf("unknown key: %d %s", code, stderr)
	}
}
