package sandbox

// Compiled code shipped beside the plugins: `wasmwright plugins precompile`
// (run by make build) compiles every plugin of a folder into its .cache
// subfolder, a wazero compilation cache with each plugin's described
// manifest (described.go), and writes a manifest naming, per plugin file
// and sha256, the cache files it produced and their sha256. A host whose
// own cache lacks an entry copies it from there, so a first run neither
// compiles nor runs a plugin to list its tools. An entry is copied only when the manifest's wazero
// and instrumentation versions are this binary's, the plugin file still
// has the recorded sha256 and the entry file has its recorded sha256:
// anything else is ignored (the plugin is then compiled as usual).

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/tetratelabs/wazero"

	"github.com/wasmwright/wasmwright/abi"
)

// InstrumentVersion names the fuel rewrite (fuel.go): bump it when the
// rewrite changes, so shipped compiled code of the old rewrite is ignored.
const InstrumentVersion = 2

// ShippedCache is the folder, beside the plugins, of their compiled code.
const ShippedCache = ".cache"

const manifestFile = "MANIFEST.json"

type shippedManifest struct {
	Wazero     string          `json:"wazero"`
	Instrument int             `json:"instrument"`
	Plugins    []shippedPlugin `json:"plugins"`
}

type shippedPlugin struct {
	File   string            `json:"file"`
	SHA256 string            `json:"sha256"`
	Cache  map[string]string `json:"cache"` // cache file (relative, slash-separated) -> its sha256
}

// wazeroVersion names the folder wazero keeps this binary's compiled code
// in, within a cache dir ("wazero-VERSION-ARCH-OS"); "" when unknown (then
// nothing shipped is trusted). wazero names it: a throwaway cache shows it.
var wazeroVersion = sync.OnceValue(func() string {
	tmp, err := os.MkdirTemp("", "ww-wazero-")
	if err != nil {
		return ""
	}
	defer os.RemoveAll(tmp)
	c, err := wazero.NewCompilationCacheWithDir(tmp)
	if err != nil {
		return ""
	}
	c.Close(context.Background())
	ents, _ := os.ReadDir(tmp)
	if len(ents) != 1 || !ents[0].IsDir() || !strings.HasPrefix(ents[0].Name(), "wazero-") {
		return ""
	}
	return ents[0].Name()
})

// Precompile compiles every .wasm file of dir into dir/.cache, as Load
// would compile it, and writes the manifest there. It replaces what was
// there.
func Precompile(ctx context.Context, dir string) error {
	ver := wazeroVersion()
	if ver == "" {
		return fmt.Errorf("sandbox: wazero's compilation cache folder could not be named: is the temporary folder writable?")
	}
	files, err := filepath.Glob(filepath.Join(dir, "*.wasm"))
	if err != nil {
		return err
	}
	out := filepath.Join(dir, ShippedCache)
	if err := os.RemoveAll(out); err != nil {
		return err
	}
	m := shippedManifest{Wazero: ver, Instrument: InstrumentVersion}
	for _, f := range files {
		wasm, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		before, err := hashTree(out)
		if err != nil {
			return err
		}
		if err := describeInto(ctx, out, wasm); err != nil {
			return fmt.Errorf("sandbox: precompiling %s: %w", filepath.Base(f), err)
		}
		after, err := hashTree(out)
		if err != nil {
			return err
		}
		for k := range before {
			delete(after, k)
		}
		m.Plugins = append(m.Plugins, shippedPlugin{File: filepath.Base(f), SHA256: sha256Hex(wasm), Cache: after})
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(out, manifestFile), b, 0o644)
}

// describeInto loads wasm as a host does by default, with a cache in dir:
// its compiled code and its manifest land there. The host functions it
// imports are offered as stubs (describe calls none).
func describeInto(ctx context.Context, dir string, wasm []byte) error {
	info, err := readModuleInfo(wasm)
	if err != nil {
		return err
	}
	// Stubs are named as the host names its functions (ww_X), whichever
	// convention the plugin imports them in (ww_X or wwx_X).
	var funcs []HostFunc
	seen := map[string]bool{}
	for _, imp := range info.Imports {
		canon, _ := abi.CanonicalHostFunc(imp.Name)
		if imp.Module != abi.HostModule || canon == abi.ImportHostTake || canon == abi.ImportLog || seen[canon] {
			continue
		}
		seen[canon] = true
		funcs = append(funcs, HostFunc{Name: canon, Fn: func(context.Context, string, []byte) ([]byte, error) {
			return nil, abi.Errorf(abi.CodeNotAvailable, "no host functions while precompiling")
		}})
	}
	e, err := NewEngine(Config{CacheDir: dir, HostFuncs: funcs, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		return err
	}
	defer e.Close(ctx)
	p, err := e.Load(ctx, "precompile", wasm, "")
	if err != nil {
		return err
	}
	return p.Retire(ctx)
}

// hashTree maps each file under dir (slash-separated relative path) to its
// sha256; a missing dir is empty.
func hashTree(dir string) (map[string]string, error) {
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if os.IsNotExist(err) && p == dir {
				return filepath.SkipDir
			}
			return err
		}
		if d.Type().IsRegular() && d.Name() != manifestFile {
			rel, _ := filepath.Rel(dir, p)
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			out[filepath.ToSlash(rel)] = sha256Hex(b)
		}
		return nil
	})
	return out, err
}

func sha256Hex(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// seedCache copies into cacheDir the shipped compiled code of the plugins
// in pluginsDir that cacheDir lacks, and returns how many files it copied.
// Whatever does not verify is skipped.
func seedCache(pluginsDir, cacheDir string) (int, error) {
	src := filepath.Join(pluginsDir, ShippedCache)
	b, err := os.ReadFile(filepath.Join(src, manifestFile))
	if err != nil {
		if os.IsNotExist(err) {
			return 0, nil
		}
		return 0, err
	}
	var m shippedManifest
	if err := json.Unmarshal(b, &m); err != nil {
		return 0, fmt.Errorf("%s: %w", filepath.Join(src, manifestFile), err)
	}
	if ver := wazeroVersion(); ver == "" || m.Wazero != ver || m.Instrument != InstrumentVersion {
		return 0, nil
	}
	copied := 0
	for _, p := range m.Plugins {
		var missing []string
		for rel := range p.Cache {
			if !filepath.IsLocal(filepath.FromSlash(rel)) || !strings.HasPrefix(rel, m.Wazero+"/") && !strings.HasPrefix(rel, DescribedDir+"/") {
				continue // only this wazero's folder and manifests, never a path leaving the cache
			}
			if _, err := os.Stat(filepath.Join(cacheDir, filepath.FromSlash(rel))); os.IsNotExist(err) {
				missing = append(missing, rel)
			}
		}
		if len(missing) == 0 || filepath.Base(p.File) != p.File {
			continue
		}
		wasm, err := os.ReadFile(filepath.Join(pluginsDir, p.File))
		if err != nil || sha256Hex(wasm) != p.SHA256 {
			continue // rebuilt or gone since: compiled as usual
		}
		sort.Strings(missing)
		for _, rel := range missing {
			ok, err := copyVerified(filepath.Join(src, filepath.FromSlash(rel)), filepath.Join(cacheDir, filepath.FromSlash(rel)), p.Cache[rel])
			if err != nil {
				return copied, err
			}
			if ok {
				copied++
			}
		}
	}
	return copied, nil
}

// copyVerified copies src to dst when src's sha256 is want (false
// otherwise); dst appears whole or not at all. A hard link stands for
// the copy where the file system allows it.
func copyVerified(src, dst, want string) (bool, error) {
	b, err := os.ReadFile(src)
	if err != nil || sha256Hex(b) != want {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return false, err
	}
	if os.Link(src, dst) == nil {
		return true, nil
	}
	return true, writeAtomic(dst, b)
}
