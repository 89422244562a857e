package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/hostfuncs/vault"
)

// TestSecretsCLI adds, grants, revokes, lists and removes a credential
// with values read from stdin, and checks no value is ever printed or
// stored in clear.
func TestSecretsCLI(t *testing.T) {
	t.Setenv(vault.PassphraseEnv, "")
	dir := t.TempDir()
	cfg := filepath.Join(dir, "c.toml")
	os.WriteFile(cfg, []byte("[vault]\nfile = \"v.age\"\n"), 0o644)
	const user, pass, seed = "cli-user-x", "cli pass with spaces", "JBSWY3DPEHPK3PXP"
	sh := func(stdin string, args ...string) (int, string) {
		t.Helper()
		var out, errb bytes.Buffer
		code := run(append([]string{"--config", cfg, "secrets"}, args...), strings.NewReader(stdin), &out, &errb)
		all := out.String() + errb.String()
		for _, v := range []string{user, pass, seed} {
			if strings.Contains(all, v) {
				t.Fatalf("secrets %v printed a value: %s", args, all)
			}
		}
		return code, all
	}
	if code, out := sh(user+"\n"+pass+"\n"+seed+"\n", "credential", "add", "site", "--origin", "https://example.org", "--personality", "default"); code != 0 {
		t.Fatalf("add: %d %s", code, out)
	}
	if _, out := sh("", "list"); strings.Contains(out, "mask_username") {
		t.Fatalf("a new credential masks its username: %s", out)
	}
	if code, out := sh("", "grant", "site", "--origin", "http://127.0.0.1:8080", "--personality", "ops", "--unattended", "--mask-username"); code != 0 {
		t.Fatalf("grant: %d %s", code, out)
	}
	if _, out := sh("", "list"); !strings.Contains(out, `"mask_username": true`) {
		t.Fatalf("grant --mask-username: %s", out)
	}
	if code, out := sh("", "revoke", "site", "--mask-username"); code != 0 {
		t.Fatalf("revoke --mask-username: %d %s", code, out)
	}
	if code, out := sh("other-user\nother-pass\n", "credential", "add", "masked", "--origin", "https://masked.example", "--mask-username"); code != 0 {
		t.Fatalf("add --mask-username: %d %s", code, out)
	}
	if m, ok, _ := vault.Open(vault.Options{File: filepath.Join(dir, "v.age")}).Get("masked"); !ok || !m.Policy.MaskUsername {
		t.Fatalf("add --mask-username did not set the policy: %v", ok)
	}
	if code, out := sh("", "grant", "site", "--origin", "http://example.org"); code == 0 || !strings.Contains(out, "loopback") {
		t.Fatalf("http on a public host was granted: %d %s", code, out)
	}
	if code, out := sh("", "revoke", "site", "--origin", "https://example.org", "--personality", "default"); code != 0 {
		t.Fatalf("revoke: %d %s", code, out)
	}
	code, out := sh("", "list")
	if code != 0 || !strings.Contains(out, `"http://127.0.0.1:8080"`) || strings.Contains(out, "https://example.org") ||
		!strings.Contains(out, `"ops"`) || !strings.Contains(out, `"unattended": true`) || !strings.Contains(out, `"has_totp": true`) {
		t.Fatalf("list: %d %s", code, out)
	}
	c, ok, err := vault.Open(vault.Options{File: filepath.Join(dir, "v.age")}).Get("site")
	if err != nil || !ok || c.Policy.MaskUsername || c.Username.Reveal() != user || c.Password.Reveal() != pass || c.TOTP == nil {
		t.Fatalf("stored credential: ok=%v err=%v", ok, err)
	}
	raw, _ := os.ReadFile(filepath.Join(dir, "v.age"))
	if bytes.Contains(raw, []byte(pass)) || bytes.Contains(raw, []byte(user)) {
		t.Fatal("vault holds a value in clear")
	}
	if code, out := sh("bad\nvalues\nnot-base32!\n", "credential", "add", "bad", "--origin", "https://example.org"); code == 0 {
		t.Fatalf("a bad TOTP seed was stored: %s", out)
	}
	for _, name := range []string{"site", "masked"} {
		if code, out := sh("", "rm", name); code != 0 {
			t.Fatalf("rm: %d %s", code, out)
		}
	}
	if _, out := sh("", "list"); strings.TrimSpace(out) != "[]" {
		t.Fatalf("after rm: %s", out)
	}
}

// TestSecretsNoConfigDir: without [vault] file and a user config folder
// the secrets commands refuse, naming the key, instead of keeping the
// vault in the shared temp folder.
func TestSecretsNoConfigDir(t *testing.T) {
	t.Setenv(vault.PassphraseEnv, "")
	t.Setenv("HOME", "")
	t.Setenv("XDG_CONFIG_HOME", "")
	cfg := filepath.Join(t.TempDir(), "c.toml")
	os.WriteFile(cfg, []byte("[host]\n"), 0o644)
	var out, errb bytes.Buffer
	code := run([]string{"--config", cfg, "secrets", "list"}, strings.NewReader(""), &out, &errb)
	if all := out.String() + errb.String(); code == 0 || !strings.Contains(all, "vault.file") || !strings.Contains(all, "not_available") {
		t.Fatalf("%d %s", code, all)
	}
}
