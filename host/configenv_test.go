package host

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A config's string values take ${VAR} from the environment (a pod's IP,
// a secret), ${VAR:-default} when unset, and $${ stays a literal ${; a
// variable that is not set refuses the config naming it and its key.
func TestConfigFromEnvironment(t *testing.T) {
	t.Setenv("WW_TEST_POD_IP", "10.1.2.3")
	t.Setenv("WW_TEST_EMPTY", "")
	const text = `
[host]
log_level = "${WW_TEST_LEVEL:-info}"

[serve]
http = "${WW_TEST_POD_IP}:8931"
allowed_origins = ["https://${WW_TEST_POD_IP}", "https://${WW_TEST_NOPE:-example.com}"]
max_conns = 12

[personalities.p]
description = "costs $${HOME} and ${WW_TEST_EMPTY:-nothing}"
`
	cfg, err := ParseConfig(text, "test.toml", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Serve.HTTP; got != "10.1.2.3:8931" {
		t.Errorf("serve.http = %q, want the pod IP from the environment", got)
	}
	if got := cfg.Host.LogLevel; got != "info" {
		t.Errorf("host.log_level = %q, want the default of an unset variable", got)
	}
	if got := strings.Join(cfg.Serve.AllowedOrigins, " "); got != "https://10.1.2.3 https://example.com" {
		t.Errorf("serve.allowed_origins = %q: arrays are expanded too", got)
	}
	if cfg.Serve.MaxConns != 12 {
		t.Errorf("serve.max_conns = %d: a number must survive the expansion", cfg.Serve.MaxConns)
	}
	if got := cfg.Personalities["p"].Description; got != "costs ${HOME} and nothing" {
		t.Errorf("description = %q: $${ is a literal ${ and an empty variable takes its default", got)
	}

	for _, c := range []struct{ text, want []string }{
		{[]string{`[serve]`, `http = "${WW_TEST_UNSET_ADDR}:8931"`}, []string{"WW_TEST_UNSET_ADDR", "serve.http", "not set"}},
		{[]string{`[personalities.p]`, `description = "${WW_TEST_EMPTY}"`}, []string{"WW_TEST_EMPTY", "personalities.p.description"}},
		{[]string{`[serve]`, `allowed_origins = ["https://${WW_TEST_GONE"]`}, []string{"serve.allowed_origins[0]", "closing }"}},
		{[]string{`[serve]`, `http = "${1X}"`}, []string{"serve.http", "not a variable"}},
	} {
		_, err := ParseConfig(strings.Join(c.text, "\n"), "bad.toml", t.TempDir())
		if err == nil {
			t.Errorf("%s: the config loaded; want it refused", c.text[1])
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not say %q", c.text[1], err, w)
			}
		}
	}
}

// A personality file in personalities_dir is expanded too.
func TestConfigFromEnvironmentPersonalityDir(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "agent.toml"), []byte(`description = "${WW_TEST_ROLE}"`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	text := `[host]` + "\n" + `personalities_dir = "` + dir + `"` + "\n"
	if _, err := ParseConfig(text, "test.toml", dir); err == nil || !strings.Contains(err.Error(), "WW_TEST_ROLE") || !strings.Contains(err.Error(), "agent.toml") {
		t.Fatalf("unset variable in a personality file: err = %v, want it refused naming the variable and the file", err)
	}
	t.Setenv("WW_TEST_ROLE", "reader")
	cfg, err := ParseConfig(text, "test.toml", dir)
	if err != nil {
		t.Fatal(err)
	}
	if got := cfg.Personalities["agent"].Description; got != "reader" {
		t.Fatalf("description = %q, want the variable's value", got)
	}
}
