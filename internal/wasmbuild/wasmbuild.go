// Package wasmbuild compiles plugins to .wasm for tests and benchmarks, so
// `go test ./...` needs no prior make step: Go plugin modules,
// AssemblyScript plugins (a folder with index.ts) once `make asc` has
// installed the compiler, and Rust plugins (a folder with lib.rs) once
// `make rustc` has installed Debian's rustc and its wasm32-wasi library.
package wasmbuild

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/tetratelabs/wazero"
)

var (
	mu    sync.Mutex
	built = map[string]string{}
)

// Root returns the repository root (the folder holding go.mod of the host).
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

// Build compiles the plugin module in dir (relative to the repository root)
// and returns the path of its .wasm. Output goes to build/wasm/, which the
// Makefile also fills; Go's build cache makes a rebuild of an unchanged
// plugin take a moment.
func Build(dir string, extra ...string) (string, error) {
	key := dir + fmt.Sprint(extra)
	mu.Lock()
	defer mu.Unlock()
	if p, ok := built[key]; ok {
		return p, nil
	}
	root := Root()
	name := filepath.Base(dir)
	if len(extra) > 0 {
		sum := sha256.Sum256([]byte(key))
		name += fmt.Sprintf("-%x", sum[:4])
	}
	out := filepath.Join(root, "build", "wasm", name+".wasm")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return "", err
	}
	// Keep build/ out of the host module's ./... (as the Makefile does).
	if gm := filepath.Join(root, "build", "go.mod"); !fileExists(gm) {
		os.WriteFile(gm, []byte("module wasmwright.invalid/build\n"), 0o644)
	}
	// Test binaries of several packages build the same plugin at once:
	// each writes its own temporary file and renames it into place, so no
	// reader ever sees a half-written module.
	tmp := fmt.Sprintf("%s.%d.tmp", out, os.Getpid())
	cmd := goCommand(tmp, extra)
	if fileExists(filepath.Join(root, dir, "index.ts")) {
		cmd = ascCommand(root, tmp, extra)
	}
	if fileExists(filepath.Join(root, dir, "lib.rs")) {
		// rustc has no build cache: a module built from the same sources
		// and flags is kept under their hash, so the test binaries of
		// every package share one compile (several seconds of CPU).
		cached, err := rustCached(root, dir, extra)
		if err != nil {
			return "", err
		}
		if fileExists(cached) {
			built[key] = cached
			return cached, nil
		}
		// One compile for all test binaries: the others wait on the lock
		// and find the module built.
		unlock, err := lockFile(cached + ".lock")
		if err != nil {
			return "", err
		}
		defer unlock()
		if fileExists(cached) {
			built[key] = cached
			return cached, nil
		}
		// rustc writes its intermediate objects beside its output, named
		// after it: two test binaries compiling the same module in one
		// folder removed each other's objects ("cannot open ...rcgu.o").
		// Each compile gets a folder of its own.
		work, err := os.MkdirTemp(filepath.Dir(cached), ".rustc-")
		if err != nil {
			return "", err
		}
		defer os.RemoveAll(work)
		out, tmp = cached, filepath.Join(work, "module.wasm")
		cmd = rustCommand(tmp, extra)
	}
	cmd.Dir = filepath.Join(root, dir)
	if b, err := cmd.CombinedOutput(); err != nil {
		os.Remove(tmp)
		return "", fmt.Errorf("building plugin %s: %v\n%s", dir, err, b)
	}
	if err := os.Rename(tmp, out); err != nil {
		os.Remove(tmp)
		return "", err
	}
	built[key] = out
	return out, nil
}

func goCommand(out string, extra []string) *exec.Cmd {
	args := append([]string{"build", "-buildmode=c-shared", "-o", out}, extra...)
	cmd := exec.Command("go", append(args, ".")...)
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
	return cmd
}

// ASCDir is where `make asc` installs the AssemblyScript compiler and
// Extism's AssemblyScript PDK (npm), relative to the repository root.
const ASCDir = "build/asc"

// ascCommand compiles an AssemblyScript plugin (a folder with index.ts and
// its asconfig.json) as `make plugins` does: packages resolve from ASCDir.
func ascCommand(root, out string, extra []string) *exec.Cmd {
	mods := filepath.Join(root, ASCDir, "node_modules")
	args := append([]string{filepath.Join(mods, "assemblyscript", "bin", "asc.js"), "index.ts", "--outFile", out, "--path", mods}, extra...)
	return exec.Command("node", args...)
}

// RustWasmFlags are the Makefile's RUST_WASM_FLAGS: a size-optimised,
// link-time-optimised cdylib for wasm32-wasi without symbols.
var RustWasmFlags = []string{"--edition", "2021", "--target", "wasm32-wasi", "--crate-type", "cdylib",
	"-C", "opt-level=s", "-C", "lto", "-C", "strip=symbols"}

// Rustc is the compiler of Rust plugins: $RUSTC, else Debian's
// /usr/bin/rustc (a rustup rustc first on PATH may lack the wasm target).
func Rustc() string {
	if r := os.Getenv("RUSTC"); r != "" {
		return r
	}
	return "/usr/bin/rustc"
}

// rustCached is where the Rust plugin in dir, built with extra, is kept:
// build/wasm/NAME-rs-HASH.wasm, HASH over the compiler, the flags, every
// file of the plugin's folder but Go tests (its .rs files and what they
// include_bytes!) and the kit's .rs files (plugin-sdk/rust).
func rustCached(root, dir string, extra []string) (string, error) {
	h := sha256.New()
	fmt.Fprintln(h, Rustc(), RustWasmFlags, extra)
	files, err := filepath.Glob(filepath.Join(root, dir, "*"))
	if err != nil {
		return "", err
	}
	kit, err := filepath.Glob(filepath.Join(root, "plugin-sdk", "rust", "*.rs"))
	if err != nil {
		return "", err
	}
	files = append(files, kit...)
	for _, f := range files {
		if st, err := os.Stat(f); err != nil || !st.Mode().IsRegular() || strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "%s %d\n", filepath.Base(f), len(b))
		h.Write(b)
	}
	return filepath.Join(root, "build", "wasm", fmt.Sprintf("%s-rs-%x.wasm", filepath.Base(dir), h.Sum(nil)[:8])), nil
}

// rustCommand compiles a Rust plugin (a folder with lib.rs, which includes
// the kit plugin-sdk/rust) as `make plugins` does.
func rustCommand(out string, extra []string) *exec.Cmd {
	args := append(append(append([]string{}, RustWasmFlags...), extra...), "-o", out, "lib.rs")
	return exec.Command(Rustc(), args...)
}

// lockFile takes an exclusive advisory lock on path (created if need be)
// and returns its release; the lock also ends with the process.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %w", path, err)
	}
	return func() { syscall.Flock(int(f.Fd()), syscall.LOCK_UN); f.Close() }, nil
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Install builds each plugin module (name → module folder relative to the
// repository root) into dst as NAME.wasm and pins them all in
// dst/SHA256SUMS, as `make plugins` does. It returns the hex sha256 of each.
func Install(dst string, mods map[string]string) (map[string]string, error) {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(mods))
	for n := range mods {
		names = append(names, n)
	}
	sort.Strings(names)
	sums := map[string]string{}
	var lines []string
	for _, name := range names {
		p, err := Build(mods[name])
		if err != nil {
			return nil, err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dst, name+".wasm"), b, 0o644); err != nil {
			return nil, err
		}
		s := sha256.Sum256(b)
		sums[name] = hex.EncodeToString(s[:])
		lines = append(lines, sums[name]+"  "+name+".wasm")
	}
	return sums, os.WriteFile(filepath.Join(dst, "SHA256SUMS"), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// Installed is a fresh folder of t's holding the plugin modules mods,
// built and pinned as Install does; a build that fails fails t.
func Installed(t testing.TB, mods map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if _, err := Install(dir, mods); err != nil {
		t.Fatal(err)
	}
	return dir
}

// Pin writes dir/SHA256SUMS for every .wasm in dir, as `make plugins`
// pins the built plugins: a host loads only a plugin its pin names.
func Pin(dir string) error {
	files, err := filepath.Glob(filepath.Join(dir, "*.wasm"))
	if err != nil {
		return err
	}
	var lines []string
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		lines = append(lines, hex.EncodeToString(sum[:])+"  "+filepath.Base(f))
	}
	return os.WriteFile(filepath.Join(dir, "SHA256SUMS"), []byte(strings.Join(lines, "\n")+"\n"), 0o644)
}

// Bytes builds the plugin module in dir and returns its .wasm.
func Bytes(dir string, extra ...string) ([]byte, error) {
	p, err := Build(dir, extra...)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(p)
}

var command struct {
	once sync.Once
	dir  string
	path string
	err  error
}

// Command builds the wasmwright binary (./cmd/wasmwright) once per
// process, into a folder of its own, and returns its path: a link takes a
// minute on a busy machine. RemoveCommand removes the folder.
func Command() (string, error) {
	command.once.Do(func() {
		if command.dir, command.err = os.MkdirTemp("", "ww-test-bin-"); command.err != nil {
			return
		}
		command.path = filepath.Join(command.dir, "wasmwright")
		build := exec.Command("go", "build", "-o", command.path, "./cmd/wasmwright")
		build.Dir = Root()
		if out, err := build.CombinedOutput(); err != nil {
			command.err = fmt.Errorf("building cmd/wasmwright: %v\n%s", err, out)
		}
	})
	return command.path, command.err
}

// RemoveCommand removes what Command built, if it ran (a TestMain's, once
// the tests have run).
func RemoveCommand() {
	if command.dir != "" {
		os.RemoveAll(command.dir)
	}
}

// TestCacheDir makes a fresh compilation cache folder for one test binary
// (name prefixes it) whose compiled code, and only that, is kept across
// runs: compiling a Go plugin (4 MB of WebAssembly) costs seconds, and a
// binary starting on an empty folder paid that for every plugin it loads,
// on every run. The folder's wazero subfolder is a link to one shared
// store: wazero keys each entry by the module's bytes and writes it whole
// (a temporary file renamed into place), so binaries of several packages
// share it safely. What the host keeps beside the code (described
// manifests, passed self-tests) stays in the fresh folder, so a test sees
// a first Load describe and a first start self-test as before. A test that
// counts compiles on purpose takes an empty folder of its own
// (t.TempDir()). If the link cannot be made, the folder is simply fresh.
func TestCacheDir(name string) string {
	d, err := os.MkdirTemp("", "ww-"+name+"-cache-")
	if err != nil {
		panic(err)
	}
	shareCompiled(d, filepath.Join(os.TempDir(), "ww-test-compiled"))
	return d
}

// shareCompiled replaces the subfolder wazero makes in dir with a link to
// the same subfolder of store, best effort.
func shareCompiled(dir, store string) {
	c, err := wazero.NewCompilationCacheWithDir(dir)
	if err != nil {
		return
	}
	c.Close(context.Background())
	made, err := os.ReadDir(dir)
	if err != nil || len(made) != 1 || !made[0].IsDir() {
		return
	}
	shared := filepath.Join(store, made[0].Name())
	if os.MkdirAll(shared, 0o755) != nil || os.Remove(filepath.Join(dir, made[0].Name())) != nil {
		return
	}
	os.Symlink(shared, filepath.Join(dir, made[0].Name()))
	pruneOnce.Do(func() { pruneStore(shared, storeUnused) })
}

var pruneOnce sync.Once

// storeUnused is how long an entry of the shared store may go unread
// before it is removed: every edit of a plugin adds an entry (of a few
// to tens of MB) that nothing reads again.
const storeUnused = 72 * time.Hour

// pruneStore removes the entries of dir not read (access time) within
// unused. An entry removed while another binary reads it stays readable
// through the open file; one removed just before is compiled again.
func pruneStore(dir string, unused time.Duration) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		if st, ok := info.Sys().(*syscall.Stat_t); ok && time.Since(time.Unix(st.Atim.Unix())) > unused {
			os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
