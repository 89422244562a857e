package host

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
)

// TestSecretStateNeedsConfigDir: with no user config folder (neither
// XDG_CONFIG_HOME nor HOME) and no folder in the config, a host whose
// personalities ask for approval (grants) or may fill credentials (vault)
// refuses to start, naming the key to set; the shared temp folder is
// never used. A host that needs neither starts.
func TestSecretStateNeedsConfigDir(t *testing.T) {
	t.Setenv("HOME", "")
	t.Setenv("XDG_CONFIG_HOME", "")
	start := func(body string) error {
		t.Helper()
		dir := t.TempDir()
		cfg, err := ParseConfig("[host]\ncache_dir = "+`"`+filepath.Join(dir, "cache")+`"`+"\ndefault_personality = \"p\"\n"+body, "c.toml", dir)
		if err != nil {
			t.Fatal(err)
		}
		h, err := New(context.Background(), cfg, Options{NoBrowser: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
		if err == nil {
			h.Close(context.Background())
		}
		return err
	}
	if err := start("[personalities.p]\n"); err != nil {
		t.Fatalf("a host that needs no secret state: %v", err)
	}
	for body, key := range map[string]string{
		"[personalities.p]\n[personalities.p.approval]\nact = \"ask\"\n": "host.grants_dir",
		"[personalities.p]\ngrants = [\"vault.fill\"]\n":                 "vault.file",
	} {
		if err := start(body); err == nil || !strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "not_available") {
			t.Errorf("%q: %v, want a refusal naming %s", body, err, key)
		}
	}
	if err := start("[personalities.p]\ngrants = [\"vault.fill\"]\n[personalities.p.approval]\nact = \"ask\"\n[vault]\nfile = \"v/vault.age\"\n"); err == nil || !strings.Contains(err.Error(), "host.grants_dir") {
		t.Errorf("with [vault] file but no grants_dir: %v", err)
	}
}
