package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGrantsCLI adds, lists and revokes origin grants in host.grants_dir,
// per personality, refusing wildcards and unknown personalities.
func TestGrantsCLI(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.toml")
	os.WriteFile(cfg, []byte("[host]\ngrants_dir = \"g\"\ndefault_personality = \"p\"\n[personalities.p]\n[personalities.q]\n"), 0o644)
	sh := func(args ...string) (int, string) {
		t.Helper()
		var out, errb bytes.Buffer
		code := run(append([]string{"--config", cfg, "grants"}, args...), strings.NewReader(""), &out, &errb)
		return code, out.String() + errb.String()
	}
	if code, out := sh("add", "--tool", "browser_click", "--origin", "https://Shop.example:443/cart"); code == 0 || !strings.Contains(out, "input_invalid") || !strings.Contains(out, "write https://shop.example") {
		t.Fatalf("add with a path: %d %s", code, out)
	}
	if code, out := sh("add", "--tool", "browser_click", "--origin", "https://Shop.example:443/"); code != 0 || !strings.Contains(out, "granted browser_click on https://shop.example to personality p") {
		t.Fatalf("add: %d %s", code, out)
	}
	if code, out := sh("add", "--risk", "act", "--origin", "http://127.0.0.1:8080", "--personality", "q"); code != 0 {
		t.Fatalf("add risk: %d %s", code, out)
	}
	for _, bad := range [][]string{
		{"add", "--tool", "browser_click", "--origin", "https://*.example"},
		{"add", "--tool", "browser_click", "--risk", "act", "--origin", "https://a.example"},
		{"add", "--risk", "everything", "--origin", "https://a.example"},
		{"add", "--tool", "browser_click", "--origin", "https://a.example", "--personality", "nobody"},
		{"revoke", "--tool", "browser_type", "--origin", "https://shop.example"},
	} {
		if code, out := sh(bad...); code == 0 {
			t.Errorf("%v accepted: %s", bad, out)
		}
	}
	code, out := sh("list")
	if code != 0 || !strings.Contains(out, "browser_click") || !strings.Contains(out, "https://shop.example") || strings.Contains(out, "127.0.0.1") {
		t.Fatalf("list p: %d %s", code, out)
	}
	if st, err := os.Stat(filepath.Join(dir, "g", "p.json")); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("grants file: %v %v", st, err)
	}
	if code, out := sh("revoke", "--tool", "browser_click", "--origin", "https://shop.example"); code != 0 || !strings.Contains(out, "revoked") {
		t.Fatalf("revoke: %d %s", code, out)
	}
	if code, out := sh("list"); code != 0 || strings.Contains(out, "shop.example") {
		t.Fatalf("list after revoke: %d %s", code, out)
	}
	if code, out := sh("list", "--personality", "q"); code != 0 || !strings.Contains(out, "act") || !strings.Contains(out, "http://127.0.0.1:8080") {
		t.Fatalf("list q: %d %s", code, out)
	}
	if code, out := sh("add", "--tool", "browser_click", "--origin", "http://bücher.example", "--personality", "q"); code != 0 || !strings.Contains(out, "http://xn--bcher-kva.example") {
		t.Fatalf("add a Unicode origin: %d %s", code, out)
	}
}

// TestGrantsNoConfigDir: without host.grants_dir and a user config folder
// the grants commands refuse, naming the key, and write nothing in the
// shared temp folder.
func TestGrantsNoConfigDir(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.toml")
	os.WriteFile(cfg, []byte("[host]\ndefault_personality = \"p\"\n[personalities.p]\n"), 0o644)
	t.Setenv("HOME", "")
	t.Setenv("XDG_CONFIG_HOME", "")
	var out, errb bytes.Buffer
	code := run([]string{"--config", cfg, "grants", "add", "--tool", "browser_click", "--origin", "https://a.example"}, strings.NewReader(""), &out, &errb)
	if code == 0 || !strings.Contains(errb.String()+out.String(), "host.grants_dir") || !strings.Contains(errb.String()+out.String(), "not_available") {
		t.Fatalf("%d %s%s", code, out.String(), errb.String())
	}
}
