package sandbox

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/internal/testenv"
)

// The compiled code and the manifest Precompile ships are what Load looks
// up: a host with an empty cache_dir seeded from it loads the plugin
// without compiling or running it (its manifest is the shipped one), and
// compiling it on first use makes no file a cold compile would have made
// beyond the seeded ones. An entry that does not verify (its bytes, the
// plugin's sha256, the instrumentation version) is not copied.
func TestShippedCompiledCode(t *testing.T) {
	testenv.Long(t, "compiles a plugin over empty caches on purpose")
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
	described := filepath.ToSlash(strings.TrimPrefix(describedFile("", sha256Hex(wasm)), string(filepath.Separator)))
	if len(shipped) < 2 || !contains(shipped, described) {
		t.Fatalf("precompiled files: %v (want compiled code and %s)", shipped, described)
	}
	loadWith := func(cache, shippedDir string) (seeded []string, compiled bool) {
		e := engine(t, Config{CacheDir: cache, ShippedDir: shippedDir})
		seeded = files(cache)
		p, err := e.Load(ctx, "misbehave", wasm, "")
		if err != nil {
			t.Fatal(err)
		}
		compiled = p.Compiled()
		if err := p.Compile(); err != nil {
			t.Fatal(err)
		}
		p.Retire(ctx)
		e.Close(ctx)
		return seeded, compiled
	}
	cold := t.TempDir()
	if seeded, compiled := loadWith(cold, ""); len(seeded) != 0 || !compiled {
		t.Fatalf("seeded without shipped code: %v; compiled at load: %v", seeded, compiled)
	}
	if got := files(cold); strings.Join(got, " ") != strings.Join(shipped, " ") {
		t.Fatalf("a cold load made %v, precompile shipped %v", got, shipped)
	}
	warm := t.TempDir()
	seeded, compiled := loadWith(warm, plugins)
	if strings.Join(seeded, " ") != strings.Join(shipped, " ") {
		t.Fatalf("seeded %v, shipped %v", seeded, shipped)
	}
	if compiled {
		t.Fatal("a plugin whose manifest was shipped was compiled at load")
	}
	if got := files(warm); strings.Join(got, " ") != strings.Join(shipped, " ") {
		t.Fatalf("the shipped entries are not the ones Load uses: shipped %v, the seeded load ended with %v", shipped, got)
	}

	// Not verified: not copied.
	mpath := filepath.Join(plugins, ShippedCache, manifestFile)
	orig, _ := os.ReadFile(mpath)
	for _, rel := range shipped {
		entry := filepath.Join(plugins, ShippedCache, filepath.FromSlash(rel))
		code, _ := os.ReadFile(entry)
		os.WriteFile(entry, append([]byte{code[0] ^ 1}, code[1:]...), 0o600)
		cache := filepath.Join(t.TempDir(), "c")
		if n, err := seedCache(plugins, cache); err != nil || n != len(shipped)-1 || contains(files(cache), rel) {
			t.Errorf("entry %s spoiled: copied %d of %d (%v): %v", rel, n, len(shipped), err, files(cache))
		}
		os.WriteFile(entry, code, 0o600)
	}
	for what, spoil := range map[string]func(m *shippedManifest){
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

// A plugin that imports host functions in Extism's convention (wwx_*, as
// a stock PDK does) precompiles too: make build shipped no compiled code
// at all when one such plugin was in the folder.
func TestPrecompileExtismConventionImports(t *testing.T) {
	testenv.Long(t, "compiles a plugin over an empty cache on purpose")
	plugins := t.TempDir()
	wasm := build(t, "host/testdata/stockpdk")
	if err := os.WriteFile(filepath.Join(plugins, "stockpdk.wasm"), wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Precompile(context.Background(), plugins); err != nil {
		t.Fatalf("precompiling a plugin that imports wwx_* host functions: %v", err)
	}
	if _, err := os.Stat(filepath.Join(plugins, ShippedCache, manifestFile)); err != nil {
		t.Fatalf("no manifest of the shipped compiled code: %v", err)
	}
}
