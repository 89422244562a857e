// Package blockdetect_test drives the detect hook plugin (a Rust module,
// lib.rs) as the host does: built to .wasm, loaded in the real sandbox,
// called through its exports. Its internals have Rust unit tests
// (make rust-test).
//
// Parity: with BLOCKDETECT_PARITY_GO set to a blockdetect.wasm built from
// the Go detector this module replaced, every hook call of these tests
// also goes to that module, and any answer that differs in a field fails
// the test; the totals are printed at the end. Build the Go module from
// the last commit that had it:
//
//	git worktree add /tmp/bd-go 5fe1fdf && cd /tmp/bd-go/plugins/blockdetect &&
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o /tmp/blockdetect-go.wasm .
package blockdetect_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/plugintest"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
	"github.com/wasmwright/wasmwright/sandbox"
)

const (
	kindChallenge = "challenge"
	kindCaptcha   = "captcha"
	kindBlock     = "block"
)

var (
	loadOnce       sync.Once
	detector, goBD *sandbox.Plugin
	detectorSize   int
	loadErr        error
	// parity totals: answers compared with the Go module's, and how many
	// differed
	compared, differed atomic.Int64
)

func TestMain(m *testing.M) {
	code := m.Run()
	if goBD != nil {
		fmt.Printf("parity with the Go detector: %d answers compared, %d differences\n", compared.Load(), differed.Load())
		if differed.Load() > 0 && code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// plugin is the detector loaded in a sandbox engine of the package's own,
// built once; and, in parity mode, the Go module beside it.
func plugin(t testing.TB) *sandbox.Plugin {
	t.Helper()
	loadOnce.Do(func() {
		eng, err := sandbox.NewEngine(sandbox.Config{Timeout: time.Minute})
		if err != nil {
			loadErr = err
			return
		}
		path, err := wasmbuild.Build("plugins/blockdetect")
		if err != nil {
			loadErr = err
			return
		}
		if detector, detectorSize, loadErr = load(eng, "blockdetect", path); loadErr != nil {
			return
		}
		if p := os.Getenv("BLOCKDETECT_PARITY_GO"); p != "" {
			goBD, _, loadErr = load(eng, "blockdetect-go", p)
		}
	})
	if loadErr != nil {
		t.Fatal(loadErr)
	}
	return detector
}

func load(eng *sandbox.Engine, name, path string) (*sandbox.Plugin, int, error) {
	wasm, err := os.ReadFile(path)
	if err != nil {
		return nil, 0, err
	}
	p, err := eng.Load(context.Background(), name, wasm, "")
	return p, len(wasm), err
}

// hookVia sends req to the detector as the host does (the page raw,
// abi.FeatureRawPage) and returns its answer; in parity mode it checks the
// Go module answers the same.
func hookVia(t testing.TB, req abi.HookRequest) *abi.HookResponse {
	t.Helper()
	in, err := abi.EncodeHookRequest(&req, true)
	if err != nil {
		t.Fatal(err)
	}
	return hookRaw(t, in)
}

// hookRaw sends an encoded hook request (JSON or a frame).
func hookRaw(t testing.TB, in []byte) *abi.HookResponse {
	t.Helper()
	resp := callHook(t, plugin(t), in)
	if goBD != nil {
		compared.Add(1)
		if want := callHook(t, goBD, in); !reflect.DeepEqual(resp, want) {
			differed.Add(1)
			t.Errorf("parity: the Go detector answered\n%+v\nthe Rust one\n%+v", errOf(want), errOf(resp))
		}
	}
	return resp
}

func errOf(r *abi.HookResponse) any {
	if r.Error == nil {
		return "no error"
	}
	return *r.Error
}

func callHook(t testing.TB, p *sandbox.Plugin, in []byte) *abi.HookResponse {
	t.Helper()
	out, err := p.Call(context.Background(), abi.OpHook, in)
	if err != nil {
		t.Fatalf("%s: hook failed: %v", p.Name, err)
	}
	var resp abi.HookResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatalf("%s: %v: %s", p.Name, err, out)
	}
	return &resp
}

func nav(p abi.Page, takeover bool) abi.HookRequest {
	return abi.HookRequest{Role: abi.HookDetect, Tool: "browser_navigate", HasTakeover: takeover, Result: &abi.Result{Text: "ok", Page: &p}}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

func TestSelfTestAndManifest(t *testing.T) {
	p := plugin(t)
	r := plugintest.SelfTest(t, p)
	if len(r.Cases) != 2 {
		t.Fatalf("self test: %d cases, want 2: %+v", len(r.Cases), r)
	}
	// The host runs the cases the plugin ships: each must come out as it says.
	for _, c := range r.Cases {
		resp := hookVia(t, abi.HookRequest{Role: c.Role, Tool: "browser_navigate", Result: c.Result})
		if got := errCode(resp); got != c.Want {
			t.Errorf("self-test case %q: %q, want %q", c.Name, got, c.Want)
		}
	}
	// Lean: compiling it is not a cost a user sees (the Go module it
	// replaced was 4.1 MiB).
	if detectorSize > 1<<20 {
		t.Errorf("the module is %d bytes, more than 1 MiB", detectorSize)
	}
	m := p.Manifest()
	if m.Name != "blockdetect" || len(m.Hooks) != 1 || m.Hooks[0] != abi.HookDetect || len(m.Capabilities) != 0 || !m.HasFeature(abi.FeatureRawPage) || !p.Fast {
		t.Fatalf("manifest: %+v (fast path %v)", m, p.Fast)
	}
}

func errCode(r *abi.HookResponse) abi.Code {
	if r.Error == nil {
		return ""
	}
	return r.Error.Code
}
