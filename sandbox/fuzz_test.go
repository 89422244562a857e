package sandbox

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/wasmwright/wasmwright/internal/testenv"
)

// validator compiles modules with the feature set Load runs them with
// (wazero's defaults: WebAssembly 2.0). The interpreter validates exactly
// as the compiler does and compiles much faster.
var validator = sync.OnceValue(func() wazero.Runtime {
	return wazero.NewRuntimeWithConfig(context.Background(), wazero.NewRuntimeConfigInterpreter())
})

func compiles(wasm []byte) error {
	ctx := context.Background()
	m, err := validator().CompileModule(ctx, wasm)
	if err != nil {
		return err
	}
	return m.Close(ctx)
}

// spectestModules are wazero's spec-test modules, read from the module
// cache (never copied into this repository).
func spectestModules(t testing.TB) [][]byte {
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Logf("no spec-test seeds: go env GOMODCACHE: %v", err)
		return nil
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "github.com", "tetratelabs", "wazero@v1.12.0", "internal", "integration_test", "spectest")
	var mods [][]byte
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".wasm") {
			if b, err := os.ReadFile(p); err == nil {
				mods = append(mods, b)
			}
		}
		return nil
	})
	if len(mods) == 0 {
		t.Logf("no spec-test seeds: %s holds no .wasm files (run go mod download github.com/tetratelabs/wazero)", dir)
	}
	return mods
}

// checkInstrument is the property: the rewriter never panics, and a module
// wazero compiles is either refused with a reason or rewritten into a
// module that compiles, keeps its exports and is rewritten the same way
// twice. It reports whether it refused the module as unsupported.
//
// As in Load, wazero sees a module only once the rewriter has accepted it:
// wazero allocates by declared counts before checking them (a 35-byte
// module in testdata/fuzz made it allocate 2 GiB), and the rewriter, which
// reads every count against the bytes present, is what keeps such modules
// from it.
func checkInstrument(t *testing.T, wasm []byte) (unsupported bool) {
	out, err := instrument(wasm, fuelOptions{})
	if err != nil {
		if err.Error() == "" {
			t.Fatal("refused without a reason")
		}
		return errors.Is(err, errUnsupported)
	}
	// The rewrite drops the "name" section (whose function indices it
	// shifts), so wazero never decodes one in Load; its decoder allocates
	// by that section's counts too, so it is dropped here as well.
	if compiles(withoutNames(wasm)) != nil {
		return false // nothing is promised for an invalid module
	}
	if err := compiles(out); err != nil {
		t.Fatalf("the instrumented module does not compile: %v", err)
	}
	again, _ := instrument(wasm, fuelOptions{})
	if !bytes.Equal(out, again) {
		t.Fatal("the rewrite is not deterministic")
	}
	a, errA := readModuleInfo(wasm)
	b, errB := readModuleInfo(out)
	if errA == nil {
		if errB != nil {
			t.Fatalf("the rewrite broke the module's imports or exports: %v", errB)
		}
		for name := range a.Exports {
			if !b.Exports[name] {
				t.Fatalf("export %s lost", name)
			}
		}
	}
	return false
}

// withoutNames returns wasm without its "name" custom sections.
func withoutNames(wasm []byte) []byte {
	out := append([]byte(nil), wasm[:8]...)
	r := &reader{b: wasm, p: 8}
	for r.p < len(wasm) {
		start := r.p
		id := r.byte()
		n := r.u32()
		if r.err != nil || int(n) > len(wasm)-r.p {
			return wasm
		}
		body := wasm[r.p : r.p+int(n)]
		r.p += int(n)
		if id == 0 && (&reader{b: body}).name() == "name" {
			continue
		}
		out = append(out, wasm[start:r.p]...)
	}
	return out
}

func FuzzInstrument(f *testing.F) {
	for _, m := range spectestModules(f) {
		f.Add(m)
	}
	for _, m := range hostileModules() {
		f.Add(m)
	}
	for _, dir := range []string{"examples/extract_links", "sandbox/testdata/misbehave", "sandbox/testdata/plainextism"} {
		f.Add(build(f, dir))
	}
	f.Fuzz(func(t *testing.T, wasm []byte) { checkInstrument(t, wasm) })
}

// The seed corpus, counted: every valid spec-test module is instrumented
// unless it uses what the host does not run (atomics, multiple memories).
func TestInstrumentSpecModules(t *testing.T) {
	mods := spectestModules(t)
	if len(mods) == 0 {
		testenv.Require(t, false, "wazero's spec-test modules are not in the module cache")
	}
	valid, refused := 0, 0
	for _, m := range mods {
		if compiles(m) != nil {
			continue
		}
		valid++
		if _, err := instrument(m, fuelOptions{}); err != nil {
			refused++
			if !errors.Is(err, errUnsupported) {
				t.Errorf("a valid module refused for a reason other than an unsupported feature: %v", err)
			}
		}
		checkInstrument(t, m)
	}
	t.Logf("%d spec-test modules, %d valid, %d of those refused", len(mods), valid, refused)
	if valid == 0 {
		t.Fatal("no spec-test module compiled: is the validator's feature set wrong?")
	}
}
