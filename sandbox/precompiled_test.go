package sandbox

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// The compiled code Precompile ships is what Load looks up: a host with an
// empty cache_dir seeded from it loads the plugin without compiling it
// (its cache gains no file a cold compile would have made beyond the
// seeded ones). An entry that does not verify (its bytes, the plugin's
// sha256, the instrumentation version) is not copied.
func TestShippedCompiledCode(t *testing.T) {
	ctx := context.Background()
	plugins := t.TempDir()
	wasm := build(t, "sandbox/testdata/misbehave")
	if err := os.WriteFile(filepath.Join(plugins, "misbehave.wasm"), wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Precompile(ctx, plugins); err != nil {
		t.Fatal(err)
	}
	files := func(dir string) []string {
		h, err := hashTree(dir)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for k := range h {
			out = append(out, k)
		}
		sort.Strings(out)
		return out
	}
	shipped := files(filepath.Join(plugins, ShippedCache))
	if len(shipped) != 1 {
		t.Fatalf("precompiled files: %v", shipped)
	}
	loadWith := func(cache, shippedDir string) []string {
		e := engine(t, Config{CacheDir: cache, ShippedDir: shippedDir})
		seeded := files(cache)
		p, err := e.Load(ctx, "misbehave", wasm, "")
		if err != nil {
			t.Fatal(err)
		}
		p.Retire(ctx)
		e.Close(ctx)
		return seeded
	}
	cold := t.TempDir()
	if seeded := loadWith(cold, ""); len(seeded) != 0 {
		t.Fatalf("seeded without shipped code: %v", seeded)
	}
	compiled := files(cold)
	warm := t.TempDir()
	seeded := loadWith(warm, plugins)
	if len(seeded) != 1 || seeded[0] != shipped[0] {
		t.Fatalf("seeded %v, shipped %v", seeded, shipped)
	}
	if got := files(warm); len(got) != len(compiled) || !contains(compiled, shipped[0]) {
		t.Fatalf("the shipped entry is not the one Load uses: shipped %v, a cold load made %v, the seeded load ended with %v", shipped, compiled, got)
	}

	// Not verified: not copied.
	mpath := filepath.Join(plugins, ShippedCache, manifestFile)
	orig, _ := os.ReadFile(mpath)
	entry := filepath.Join(plugins, ShippedCache, filepath.FromSlash(shipped[0]))
	code, _ := os.ReadFile(entry)
	for what, spoil := range map[string]func(m *shippedManifest){
		"entry bytes":    func(*shippedManifest) { os.WriteFile(entry, append([]byte{code[0] ^ 1}, code[1:]...), 0o600) },
		"plugin sha256":  func(m *shippedManifest) { m.Plugins[0].SHA256 = sha256Hex([]byte("other")) },
		"instrument":     func(m *shippedManifest) { m.Instrument++ },
		"wazero version": func(m *shippedManifest) { m.Wazero = "v0.0.1" },
		"path escapes": func(m *shippedManifest) {
			m.Plugins[0].Cache = map[string]string{"../" + shipped[0]: m.Plugins[0].Cache[shipped[0]]}
		},
	} {
		var m shippedManifest
		json.Unmarshal(orig, &m)
		spoil(&m)
		b, _ := json.Marshal(m)
		os.WriteFile(mpath, b, 0o644)
		cache := filepath.Join(t.TempDir(), "c")
		if n, err := seedCache(plugins, cache); err != nil || n != 0 {
			t.Errorf("%s spoiled: copied %d (%v)", what, n, err)
		}
		if got := files(cache); len(got) != 0 {
			t.Errorf("%s spoiled: the cache got %v", what, got)
		}
		os.WriteFile(entry, code, 0o600)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
