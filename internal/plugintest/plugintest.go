// Package plugintest drives a first-party plugin module the way its own
// tests do: built from source (internal/wasmbuild), loaded once into a
// sandbox engine of its own, its hook called as the host calls it, its
// self test run.
package plugintest

import (
	"context"
	"encoding/json"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
	"github.com/wasmwright/wasmwright/sandbox"
)

// Module is a plugin module built and loaded once for a package's tests.
type Module struct {
	Dir    string         // the module's folder, relative to the repository root
	Config sandbox.Config // the engine's (Timeout a minute when zero)

	once sync.Once
	p    *sandbox.Plugin
	size int
	err  error
}

// Plugin builds and loads the module on first use; a failure fails t.
func (m *Module) Plugin(t testing.TB) *sandbox.Plugin {
	t.Helper()
	m.once.Do(func() {
		wasm, err := wasmbuild.Bytes(m.Dir)
		if err != nil {
			m.err = err
			return
		}
		m.size = len(wasm)
		cfg := m.Config
		if cfg.Timeout == 0 {
			cfg.Timeout = time.Minute
		}
		eng, err := sandbox.NewEngine(cfg)
		if err != nil {
			m.err = err
			return
		}
		m.p, m.err = eng.Load(context.Background(), filepath.Base(m.Dir), wasm, "")
	})
	if m.err != nil {
		t.Fatal(m.err)
	}
	return m.p
}

// Size is the module's .wasm in bytes (after Plugin).
func (m *Module) Size() int { return m.size }

// Hook runs req on p's hook as the host does: the snapshot or page raw
// when raw and p declares the feature, JSON otherwise. It returns p's
// output and its decoded answer; the call's own failure is returned, a
// request or an answer that does not code fails t.
func Hook(t testing.TB, p *sandbox.Plugin, req *abi.HookRequest, raw bool) ([]byte, *abi.HookResponse, error) {
	t.Helper()
	in, err := abi.EncodeHookRequest(req, raw && abi.RawHookInput(req.Role, p.HasFeature))
	if err != nil {
		t.Fatal(err)
	}
	out, err := p.Call(context.Background(), abi.OpHook, in)
	if err != nil {
		return nil, nil, err
	}
	var resp abi.HookResponse
	if err := abi.DecodeHookResponse(out, true, &resp); err != nil {
		t.Fatalf("%s: bad hook output %s: %v", p.Name, out, err)
	}
	return out, &resp, nil
}

// SelfTest runs p's self test, fails t unless it reports OK, and returns
// the report (the cases the plugin ships, for the host to run).
func SelfTest(t testing.TB, p *sandbox.Plugin) abi.SelfTestReport {
	t.Helper()
	out, err := p.Call(context.Background(), abi.OpSelfTest, nil)
	if err != nil {
		t.Fatalf("self test: %v", err)
	}
	var r abi.SelfTestReport
	if err := json.Unmarshal(out, &r); err != nil || !r.OK {
		t.Fatalf("self test: %s %v", out, err)
	}
	return r
}
