package pluginset

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"log/slog"
	"os"
	"path/filepath"
	"testing"

	"github.com/tetratelabs/wazero"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/testenv"
	"github.com/wasmwright/wasmwright/sandbox"
)

// A serving version that fills no hook role keeps no copy of its file in
// memory (nothing rolls back to it: rollback.go), and the sandbox lets its
// bytes go once it is compiled; a hook's version keeps its bytes, for the
// rollback to it that a failing successor may need.
func TestOnlyHooksKeepTheirBytes(t *testing.T) {
	dir := testenv.Plugins(t, "page_title.wasm")
	testenv.Plugins(t, "blockdetect.wasm")
	ctx := context.Background()
	files, pins := map[string]string{}, map[string]string{}
	folder := t.TempDir()
	var funcs []sandbox.HostFunc
	seen := map[string]bool{}
	for _, name := range []string{"page_title", "blockdetect"} {
		// Copied: the set keeps last good versions beside its files.
		b, err := os.ReadFile(filepath.Join(dir, name+".wasm"))
		if err != nil {
			t.Fatal(err)
		}
		files[name] = filepath.Join(folder, name+".wasm")
		os.WriteFile(files[name], b, 0o644)
		sum := sha256.Sum256(b)
		pins[name] = hex.EncodeToString(sum[:])
		funcs = append(funcs, stubsFor(t, b, seen)...)
	}
	eng, err := sandbox.NewEngine(sandbox.Config{CacheDir: t.TempDir(), HostFuncs: funcs, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close(ctx)
	set := Load(ctx, files, Options{Engine: eng, Logger: slog.New(slog.DiscardHandler), RollbackAfter: 3,
		ConfigPin: func(name string) string { return pins[name] }, CheckSignature: func(string, []byte, []byte) error { return nil }})
	tool, hook := set.Slot("page_title"), set.Slot("blockdetect")
	if tool.Serving() == nil || hook.Serving() == nil {
		t.Fatalf("not serving: page_title %v, blockdetect %v", tool.err.Load(), hook.err.Load())
	}
	if tool.good == nil || tool.good.wasm != nil {
		t.Fatalf("the tool plugin's slot keeps its file's bytes in memory (%v)", tool.good != nil)
	}
	if hook.good == nil || len(hook.good.wasm) == 0 {
		t.Fatal("the hook plugin's slot let its bytes go: nothing to roll back to")
	}
	if err := tool.Serving().Compile(); err != nil {
		t.Fatal(err)
	}
	if err := tool.Serving().Release(); err != nil || !tool.Serving().Compiled() {
		t.Fatalf("the tool plugin's compiled version could be released (%v): its bytes were kept", err)
	}
}

// stubsFor are host functions, each failing, for the host imports of wasm
// not in seen.
func stubsFor(t *testing.T, wasm []byte, seen map[string]bool) []sandbox.HostFunc {
	t.Helper()
	ctx := context.Background()
	r := wazero.NewRuntime(ctx)
	defer r.Close(ctx)
	m, err := r.CompileModule(ctx, wasm)
	if err != nil {
		t.Fatal(err)
	}
	var out []sandbox.HostFunc
	for _, f := range m.ImportedFunctions() {
		mod, name, _ := f.Import()
		canon, _ := abi.CanonicalHostFunc(name)
		if mod != abi.HostModule || canon == abi.ImportHostTake || canon == abi.ImportLog || seen[canon] {
			continue
		}
		seen[canon] = true
		out = append(out, sandbox.HostFunc{Name: canon, Fn: func(context.Context, string, []byte) ([]byte, error) {
			return nil, abi.Errorf(abi.CodeNotAvailable, "stub")
		}})
	}
	return out
}
