// Package rustkit_test checks the Rust plugin kit (plugin-sdk/rust) through
// real hosts: wasmwright's sandbox, which takes the ww_* fast path, and a
// plain Extism host, which takes the Extism exports. The kit's internals
// have their own unit tests (make rust-test).
package rustkit_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	extism "github.com/extism/go-sdk"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
	"github.com/wasmwright/wasmwright/sandbox"
)

func kitcheck(t *testing.T) []byte {
	t.Helper()
	wasm, err := wasmbuild.Bytes("plugin-sdk/rust/testdata/kitcheck")
	if err != nil {
		t.Fatal(err)
	}
	return wasm
}

func TestKitThroughTheSandbox(t *testing.T) {
	eng, err := sandbox.NewEngine(sandbox.Config{Timeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	defer eng.Close(ctx)
	p, err := eng.Load(ctx, "kitcheck", kitcheck(t), "")
	if err != nil {
		t.Fatal(err)
	}
	m := p.Manifest()
	if m.Name != "kitcheck" || m.ABI != abi.Version() || len(m.Tools) != 1 || !m.Tools[0].ReadOnly || !m.HasFeature(abi.FeatureRawSnapshot) || m.Protocols[abi.ProtocolBrowser] != (abi.ABIVersion{Major: 1}) {
		t.Fatalf("manifest: %+v", m)
	}
	// The hook, with the snapshot raw and as JSON: the answer comes back
	// in the form it was asked, and reads the same.
	req := &abi.HookRequest{Role: abi.HookCompact, Tool: "browser_snapshot", Session: "s1", Result: &abi.Result{Text: "é ok", Snapshot: "- link \"ü\" [ref=e1]\n"}, Error: &abi.Error{Code: abi.CodeTimeout, Message: "m"}}
	for _, raw := range []bool{true, false} {
		in, _ := abi.EncodeHookRequest(req, raw)
		out, err := p.Call(ctx, abi.OpHook, in)
		if err != nil {
			t.Fatal(err)
		}
		if framed := out[0] != '{'; framed != raw {
			t.Fatalf("raw %v: answered framed=%v: %q", raw, framed, out)
		}
		var resp abi.HookResponse
		if err := abi.DecodeHookResponse(out, true, &resp); err != nil {
			t.Fatal(err)
		}
		if r := resp.Result; r == nil || r.Snapshot != "- LINK \"Ü\" [REF=E1]\n" || r.Text != "é ok" || len(r.Warnings) != 1 || r.Warnings[0] != "seen by kitcheck in s1" || resp.Error.Code != abi.CodeTimeout {
			t.Fatalf("raw %v: %q", raw, out)
		}
	}
	// A coded error comes back as the call's error.
	in, _ := abi.EncodeHookRequest(&abi.HookRequest{Role: abi.HookCompact, Tool: "boom"}, false)
	if _, err := p.Call(ctx, abi.OpHook, in); abi.AsError(err).Code != abi.CodeTimeout || !strings.Contains(err.Error(), "boom was slow") {
		t.Fatalf("boom: %v", err)
	}
	// A broken request fails closed, saying why.
	if _, err := p.Call(ctx, abi.OpHook, []byte(`{"role":"compact","result":{"text":1}}`)); abi.AsError(err).Code != abi.CodeInputInvalid || !strings.Contains(err.Error(), "text is not a string") {
		t.Fatalf("bad request: %v", err)
	}
	// A tool call, framed.
	call, _ := abi.Frame(abi.CallHeader{Tool: "kit_echo", Session: "s2"}, []byte(`{"say":"hi \"there\""}`))
	out, err := p.Call(ctx, abi.OpCall, call)
	var res abi.Result
	if err != nil || json.Unmarshal(out, &res) != nil || res.Text != `kit_echo in s2: hi "there"` {
		t.Fatalf("tool: %s %v", out, err)
	}
	out, err = p.Call(ctx, abi.OpSelfTest, nil)
	var rep abi.SelfTestReport
	if err != nil || json.Unmarshal(out, &rep) != nil || !rep.OK || len(rep.Cases) != 1 || rep.Cases[0].Result.Snapshot != "- a" {
		t.Fatalf("self-test: %s %v", out, err)
	}
}

// A plain Extism host (no ww_* fast path) runs the same module through the
// Extism exports and kernel.
func TestKitThroughPlainExtism(t *testing.T) {
	ctx := context.Background()
	pl, err := extism.NewPlugin(ctx, extism.Manifest{Wasm: []extism.Wasm{extism.WasmData{Data: kitcheck(t)}}}, extism.PluginConfig{EnableWasi: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer pl.Close(ctx)
	rc, out, err := pl.Call(abi.ExportDescribe, nil)
	var m abi.Manifest
	if err != nil || rc != 0 || json.Unmarshal(out, &m) != nil || m.Name != "kitcheck" {
		t.Fatalf("describe: %d %s %v", rc, out, err)
	}
	// Longer than 8 bytes and not a multiple of 8: both kernel copy loops.
	in, _ := abi.EncodeHookRequest(&abi.HookRequest{Role: abi.HookCompact, Tool: "t", Result: &abi.Result{Snapshot: strings.Repeat("- añ\n", 51)}}, true)
	rc, out, err = pl.Call(abi.ExportHook, in)
	var resp abi.HookResponse
	if err != nil || rc != 0 || abi.DecodeHookResponse(out, true, &resp) != nil || resp.Result.Snapshot != strings.Repeat("- AÑ\n", 51) {
		t.Fatalf("hook: %d %q %v", rc, out, err)
	}
	in, _ = abi.EncodeHookRequest(&abi.HookRequest{Role: abi.HookCompact, Tool: "boom"}, false)
	rc, _, err = pl.Call(abi.ExportHook, in)
	if rc != 1 || err == nil || !strings.Contains(err.Error(), `"code":"timeout"`) {
		t.Fatalf("a coded error through error_set: %d %v", rc, err)
	}
}
