package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
	"github.com/wasmwright/wasmwright/sandbox"
)

// hooks holds the three result-hook plugins loaded in one sandbox engine,
// with stub host functions: the masker's ww_secrets_mask_values answers
// with whatever maskValues holds for the session.
type hooks struct {
	eng                      *sandbox.Engine
	detect, compact, mask    *sandbox.Plugin
	mu                       sync.Mutex
	maskValues               map[string][]string
	latency                  map[abi.HookRole][]float64 // microseconds per call
	detectN, compactN, maskN int
}

func stubs(values func(session string) []string) []sandbox.HostFunc {
	ok := func(context.Context, string, []byte) ([]byte, error) { return []byte(`{}`), nil }
	return []sandbox.HostFunc{
		{Name: abi.HostInfo, Fn: ok},
		{Name: abi.HostEventsEmit, Fn: ok},
		{Name: abi.HostNetworkFetch, Fn: ok},
		{Name: abi.HostSecretsMaskValues, Fn: func(_ context.Context, _ string, req []byte) ([]byte, error) {
			var r abi.SecretsMaskValuesRequest
			if err := json.Unmarshal(req, &r); err != nil {
				return nil, abi.Errorf(abi.CodeInputInvalid, "%v", err)
			}
			return json.Marshal(abi.SecretsMaskValuesResponse{Values: values(r.Session)})
		}},
	}
}

func loadHooks() (*hooks, error) {
	h := &hooks{maskValues: map[string][]string{}, latency: map[abi.HookRole][]float64{}}
	cache := filepath.Join(wasmbuild.Root(), "build", "wazero-cache")
	eng, err := sandbox.NewEngine(sandbox.Config{
		CacheDir: cache,
		Timeout:  30 * time.Second,
		HostFuncs: stubs(func(s string) []string {
			h.mu.Lock()
			defer h.mu.Unlock()
			return h.maskValues[s]
		}),
	})
	if err != nil {
		return nil, err
	}
	h.eng = eng
	for _, p := range []struct {
		dir string
		dst **sandbox.Plugin
	}{{"plugins/blockdetect", &h.detect}, {"plugins/snapcompact", &h.compact}, {"plugins/secretmask", &h.mask}} {
		path, err := wasmbuild.Build(p.dir)
		if err != nil {
			return nil, err
		}
		wasm, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		pl, err := eng.Load(context.Background(), filepath.Base(p.dir), wasm, "")
		if err != nil {
			return nil, fmt.Errorf("loading %s: %w", p.dir, err)
		}
		*p.dst = pl
		rep, err := pl.Call(context.Background(), abi.OpSelfTest, nil)
		if err != nil {
			return nil, fmt.Errorf("%s self-test: %w", p.dir, err)
		}
		var r abi.SelfTestReport
		if err := json.Unmarshal(rep, &r); err != nil || !r.OK {
			return nil, fmt.Errorf("%s self-test failed: %s", p.dir, rep)
		}
	}
	return h, nil
}

func (h *hooks) close() {
	ctx := context.Background()
	for _, p := range []*sandbox.Plugin{h.detect, h.compact, h.mask} {
		if p != nil {
			p.Retire(ctx)
		}
	}
	h.eng.Close(ctx)
}

// call runs one hook through the sandbox and records its latency.
func (h *hooks) call(p *sandbox.Plugin, req abi.HookRequest) (*abi.HookResponse, error) {
	raw := abi.RawHookInput(req.Role, p.HasFeature)
	in, err := abi.EncodeHookRequest(&req, raw)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	out, err := p.Call(context.Background(), abi.OpHook, in)
	d := time.Since(t0)
	h.mu.Lock()
	h.latency[req.Role] = append(h.latency[req.Role], float64(d.Microseconds()))
	h.mu.Unlock()
	if err != nil {
		return nil, err
	}
	var resp abi.HookResponse
	if err := abi.DecodeHookResponse(out, abi.RawHookAnswer(req.Role, raw), &resp); err != nil {
		return nil, fmt.Errorf("hook output: %v: %.200s", err, out)
	}
	return &resp, nil
}

func (h *hooks) compactSnap(snap, ref string) (string, error) {
	req := abi.HookRequest{Role: abi.HookCompact, Tool: "browser_snapshot", Result: &abi.Result{Snapshot: snap}}
	if ref != "" {
		req.Args = json.RawMessage(fmt.Sprintf(`{"ref":%q}`, ref))
	}
	resp, err := h.call(h.compact, req)
	if err != nil {
		return "", err
	}
	if resp.Result == nil {
		return snap, nil
	}
	return resp.Result.Snapshot, nil
}
