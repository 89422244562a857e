package main

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/internal/bench/mcpclient"
)

func TestCodeOfAToolAnswer(t *testing.T) {
	for in, want := range map[string]string{
		"error bot_wall: the page is a Cloudflare challenge": "bot_wall",
		"error timeout: plugin browser did not finish":       "timeout",
		"HTTP 503 Service Unavailable: busy":                 "transport",
	} {
		if got := codeOf(asToolError(errors.New(in))); got != want {
			t.Errorf("%q: code %q, want %q", in, got, want)
		}
	}
}

func TestLogLinesCountsWarningsByMessage(t *testing.T) {
	f, err := os.Create(filepath.Join(t.TempDir(), "serve.log"))
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`time=2026-12-01T15:00:00Z level=WARN msg="closing a tab that stopped responding" session=a url=x
time=2026-12-01T15:00:01Z level=INFO msg="plugin swapped" plugin=blockdetect
time=2026-12-01T15:00:02Z level=WARN msg="closing a tab that stopped responding" session=b
time=2026-12-01T15:00:03Z level=ERROR msg=stuck
`)
	f.Close()
	got := (&env{log: f}).logLines()
	if got["WARN: closing a tab that stopped responding"] != 2 || got["ERROR: stuck"] != 1 || len(got) != 2 {
		t.Fatalf("counted %v", got)
	}
}

// The soak's serve (and each fleet host) stretches its deadlines with the load unless told not
// to, through the host's own key.
func TestSoakConfigStretches(t *testing.T) {
	for _, stretch := range []bool{true, false} {
		dir := t.TempDir()
		for name, b := range map[string]mcpclient.Bench{"soak": soakBench(dir, stretch), "fleet": fleetBench(dir, "http://127.0.0.1:4444", "hub", stretch)} {
			text := b.Config()
			if name == "fleet" {
				text += "[network]\nproxy_listen = \"127.0.0.1\"\n" // as WriteConfig adds it, with the hub's address
			}
			cfg, err := host.ParseConfig(text, name+".toml", dir)
			if err != nil {
				t.Fatal(err)
			}
			if cfg.Host.StretchWithLoad != stretch {
				t.Fatalf("%s, -stretch=%t: serve's stretch_with_load is %t", name, stretch, cfg.Host.StretchWithLoad)
			}
		}
	}
}
