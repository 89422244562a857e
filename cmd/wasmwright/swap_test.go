package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aead.dev/minisign"

	"github.com/wasmwright/wasmwright/distribute"
	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/host/pluginset"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

// With a live server watching the folder, swap hands the file to it (it
// runs the checks once, not the command and then the server) and reports
// its verdict: a detector that panics, one that misses the host's wall, a
// file that calls itself another name and an unsigned file are refused
// with their code, the server keeps its version, and the folder holds
// what it held; a good file goes live.
func TestPluginsSwapThroughWatchingServer(t *testing.T) {
	pub, priv, err := minisign.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	dir := wasmbuild.Installed(t, map[string]string{"testhooks": "host/testdata/testhooks"})
	dst := filepath.Join(dir, "testhooks.wasm")
	old, _ := os.ReadFile(dst)
	os.WriteFile(dst+".minisig", distribute.Sign(priv, old, dst), 0o644)
	cfgFile := filepath.Join(t.TempDir(), "ww.toml")
	os.WriteFile(cfgFile, []byte(`
[host]
plugins_dir = "`+dir+`"
cache_dir = "`+filepath.Join(os.TempDir(), "ww-cli-test-cache")+`"
watch_plugins = true
trusted_keys = ["`+pub.String()+`"]
[plugins.testhooks]
[personalities.p]
plugins = ["testhooks"]
tools = ["*"]
grants = ["events"]
hooks = { detect = "testhooks" }
require_signatures = true
`), 0o644)
	h := serverHost(t, cfgFile)
	if !pluginset.Watched(dst) {
		t.Fatal("the watching server holds no watch lock on testhooks.wasm")
	}
	serving := func() string {
		for _, p := range h.Plugins() {
			if p.Name == "testhooks" {
				return p.SHA256
			}
		}
		return ""
	}
	before := readInstalled(dst)
	candidate := func(mod, flags string, signed bool) string {
		t.Helper()
		f, err := wasmbuild.Build(mod, flags)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(f)
		file := filepath.Join(t.TempDir(), "testhooks.wasm")
		os.WriteFile(file, b, 0o644)
		if signed {
			os.WriteFile(file+".minisig", distribute.Sign(priv, b, file), 0o644)
		}
		return file
	}
	for _, bad := range []struct{ what, file, code, says string }{
		{"a panicking detector", candidate("host/testdata/testhooks", "-ldflags=-X main.broken=panic", true), "refused", "a running server refused it"},
		{"a detector missing the wall", candidate("host/testdata/testhooks", "-ldflags=-X main.broken=blind", true), "refused", "a running server refused it"},
		{"another plugin's file", candidate("examples/extract_links", "-trimpath", true), "refused", `calls itself "extract_links"`},
		{"an unsigned file", candidate("host/testdata/testhooks", "-trimpath", false), "refused", "requires signed plugins"},
	} {
		code, out, stderr := cli(t, "plugins", "swap", "--config", cfgFile, "testhooks", bad.file)
		var res struct {
			Error struct{ Code, Message string }
		}
		json.Unmarshal([]byte(out), &res)
		if code != 1 || !strings.Contains(res.Error.Code, bad.code) || !strings.Contains(res.Error.Message, bad.says) {
			t.Fatalf("%s: exit %d, want %s saying %q: %s%s", bad.what, code, bad.code, bad.says, out, stderr)
		}
		if got := readInstalled(dst); string(got.wasm) != string(before.wasm) || string(got.pin) != string(before.pin) || string(got.sig) != string(before.sig) {
			t.Fatalf("%s: the folder does not hold what it held", bad.what)
		}
		if s := serving(); s != before.sha256(t) {
			t.Fatalf("%s: the server serves %s, not its old version", bad.what, s)
		}
	}
	good := candidate("host/testdata/testhooks", "-trimpath", true)
	code, o, all := runSwap(t, "--config", cfgFile, "testhooks", good)
	if code != 0 || !o.Live || serving() != o.SHA256 {
		t.Fatalf("a good file: exit %d, serving %s: %s", code, serving(), all)
	}
}

func (f installedFiles) sha256(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "f")
	os.WriteFile(p, f.wasm, 0o644)
	s, err := pluginset.SHA256File(p)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// serverHost is a host as serve runs it on the config at path (no
// browser): it watches the plugins folder. It closes with the test.
func serverHost(t *testing.T, path string) *host.Host {
	t.Helper()
	c, err := host.LoadConfig(path)
	if err != nil {
		t.Fatal(err)
	}
	h, err := host.New(context.Background(), c, host.Options{NoBrowser: true, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close(context.Background()) })
	return h
}
