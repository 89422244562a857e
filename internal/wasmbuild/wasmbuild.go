// Package wasmbuild compiles plugins to .wasm for tests and benchmarks, so
// `go test ./...` needs no prior make step: Go plugin modules, and
// AssemblyScript plugins (a folder with index.ts) once `make asc` has
// installed the compiler.
package wasmbuild

import (
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

// Bytes builds the plugin module in dir and returns its .wasm.
func Bytes(dir string, extra ...string) ([]byte, error) {
	p, err := Build(dir, extra...)
	if err != nil {
		return nil, err
	}
	return os.ReadFile(p)
}

// TestCacheDir is the compilation cache folder the tests of the host
// module share, kept across runs as a host's own cache is: compiling a Go
// plugin (4 MB of WebAssembly) costs seconds, and a test binary starting
// on an empty folder paid that for every plugin it loads, on every run.
// Everything in it is keyed by content (the module's bytes, wazero's
// version, the instrumentation version), so test binaries of several
// packages and worktrees share it safely; wazero and the sandbox write
// each entry whole (a temporary file renamed into place). A test that
// counts compiles on purpose takes an empty folder of its own
// (t.TempDir()). If the shared folder cannot be made, a fresh temporary
// one serves this binary.
func TestCacheDir() string {
	d := filepath.Join(os.TempDir(), "ww-test-compile-cache")
	if err := os.MkdirAll(d, 0o755); err == nil {
		return d
	}
	d, _ = os.MkdirTemp("", "ww-test-cache-")
	return d
}
