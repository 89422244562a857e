package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/plugintest"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
	"github.com/wasmwright/wasmwright/sandbox"
)

// These tests load each result-hook plugin as the host does: built to
// .wasm, compiled by the sandbox, called through the fast path, with stub
// host functions (the masker's ww_secrets_mask_values answers values).

var cacheDir = func() string {
	d, _ := os.MkdirTemp("", "ww-hooks-cache-")
	return d
}()

func loadPlugin(t *testing.T, dir string, values func(string) ([]string, error)) *sandbox.Plugin {
	t.Helper()
	hf := stubs(func(s string) []string { v, _ := values(s); return v })
	for i := range hf {
		if hf[i].Name == abi.HostSecretsMaskValues {
			hf[i].Fn = func(_ context.Context, _ string, req []byte) ([]byte, error) {
				var r abi.SecretsMaskValuesRequest
				json.Unmarshal(req, &r)
				v, err := values(r.Session)
				if err != nil {
					return nil, err
				}
				return json.Marshal(abi.SecretsMaskValuesResponse{Values: v})
			}
		}
	}
	eng, err := sandbox.NewEngine(sandbox.Config{CacheDir: cacheDir, HostFuncs: hf})
	if err != nil {
		t.Fatal(err)
	}
	wasm, err := wasmbuild.Bytes(dir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := eng.Load(context.Background(), dir, wasm, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Retire(context.Background()); eng.Close(context.Background()) })
	if !p.Fast {
		t.Fatal("an SDK plugin must use the fast path")
	}
	plugintest.SelfTest(t, p)
	return p
}

func callHook(t *testing.T, p *sandbox.Plugin, req abi.HookRequest) (*abi.HookResponse, error) {
	t.Helper()
	in, _ := json.Marshal(req)
	out, err := p.Call(context.Background(), abi.OpHook, in)
	if err != nil {
		return nil, err
	}
	var resp abi.HookResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		t.Fatalf("output %s: %v", out, err)
	}
	return &resp, nil
}

func noValues(string) ([]string, error) { return nil, nil }

func TestBlockdetectInSandbox(t *testing.T) {
	p := loadPlugin(t, "plugins/blockdetect", noValues)
	if !slices.Equal(p.Manifest().Hooks, []abi.HookRole{abi.HookDetect}) || len(p.Manifest().Capabilities) != 0 || slices.Contains(p.Imports(), abi.HostSecretsMaskValues) {
		t.Fatalf("manifest %+v imports %v", p.Manifest(), p.Imports())
	}
	wall := abi.Page{URL: "https://shop.test/", Status: 403, Headers: map[string]string{"server": "cloudflare", "cf-mitigated": "challenge"}, Title: "Just a moment..."}
	resp, err := callHook(t, p, abi.HookRequest{Role: abi.HookDetect, Tool: "browser_navigate", HasTakeover: true, Result: &abi.Result{Page: &wall}})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Error == nil || resp.Error.Code != abi.CodeBotWall || resp.Error.Details["vendor"] != "Cloudflare" || !strings.Contains(resp.Error.Message, "browser_request_takeover") {
		t.Fatalf("got %+v", resp.Error)
	}
	clean := abi.Page{URL: "https://shop.test/", Status: 200, Headers: map[string]string{"server": "cloudflare"}, Title: "Shop", Text: strings.Repeat("Products and prices. ", 20)}
	resp, err = callHook(t, p, abi.HookRequest{Role: abi.HookDetect, Tool: "browser_navigate", Result: &abi.Result{Page: &clean}})
	if err != nil || resp.Error != nil || resp.Result != nil {
		t.Fatalf("clean page: %+v %v", resp, err)
	}
}

func TestSnapcompactInSandbox(t *testing.T) {
	p := loadPlugin(t, "plugins/snapcompact", noValues)
	if !slices.Equal(p.Manifest().Hooks, []abi.HookRole{abi.HookCompact}) || len(p.Manifest().Capabilities) != 0 {
		t.Fatalf("manifest %+v", p.Manifest())
	}
	var b strings.Builder
	b.WriteString("- list [ref=e1]:\n")
	for i := 0; i < 40; i++ {
		b.WriteString("  - listitem [ref=x]:\n    - link \"Item\" [ref=e" + strconv.Itoa(100+i) + "] [cursor=pointer]:\n      - /url: /i\n")
	}
	snap := "- generic [ref=e0]:\n" + indent(b.String())
	resp, err := callHook(t, p, abi.HookRequest{Role: abi.HookCompact, Tool: "browser_snapshot", Result: &abi.Result{Snapshot: snap}})
	if err != nil {
		t.Fatal(err)
	}
	got := resp.Result.Snapshot
	if !strings.Contains(got, "… 30 more items: browser_snapshot ref=e1") || strings.Contains(got, "/url") || len(got)*4 > len(snap) {
		t.Fatalf("compacted (%d of %d bytes):\n%s", len(got), len(snap), got)
	}
	resp, err = callHook(t, p, abi.HookRequest{Role: abi.HookCompact, Tool: "browser_snapshot", Args: json.RawMessage(`{"ref":"e1"}`), Result: &abi.Result{Snapshot: b.String()}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(resp.Result.Snapshot, "more items") || strings.Count(resp.Result.Snapshot, "[ref=e") != 41 {
		t.Fatalf("unfolded:\n%s", resp.Result.Snapshot)
	}
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(strings.TrimSuffix(s, "\n"), "\n", "\n  ") + "\n"
}

func TestSecretmaskInSandbox(t *testing.T) {
	vals := func(s string) ([]string, error) {
		if s == "broken" {
			return nil, abi.Errorf(abi.CodeRefused, "no secrets.mask grant")
		}
		return []string{"hunter2 & co", "tok_abc123"}, nil
	}
	p := loadPlugin(t, "plugins/secretmask", vals)
	if !slices.Equal(p.Manifest().Hooks, []abi.HookRole{abi.HookMask}) || !slices.Equal(p.Manifest().Capabilities, []string{"secrets.mask"}) || !slices.Contains(p.Imports(), abi.HostSecretsMaskValues) {
		t.Fatalf("manifest %+v imports %v", p.Manifest(), p.Imports())
	}
	req := abi.HookRequest{Role: abi.HookMask, Tool: "browser_type", Session: "s1", Result: &abi.Result{
		Text:     "typed hunter2 &amp; co",
		Snapshot: `- textbox "Password" [ref=e8]: hunter2 & co`,
		Data:     json.RawMessage(`{"echo":"hunter2+%26+co","auth":"Basic dTp0b2tfYWJjMTIz"}`),
		Page:     &abi.Page{URL: "https://x.test/?t=tok_abc123", HTML: "<i>aHVudGVyMiAmIGNv</i>"},
	}, Error: &abi.Error{Code: abi.CodeExecutionFailed, Message: "hunter2\u0020\u0026 co rejected"}}
	resp, err := callHook(t, p, req)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(resp)
	for _, leak := range []string{"hunter2", "tok_abc", "dG9rX2FiYzEy", "aHVudGVyMiAmIGNv"} {
		if strings.Contains(string(out), leak) {
			t.Fatalf("%q leaked: %s", leak, out)
		}
	}
	if resp.Result.Page == nil || resp.Error == nil || resp.Error.Code != abi.CodeExecutionFailed {
		t.Fatalf("shape lost: %s", out)
	}
	// No values, no masking: fail closed.
	req.Session = "broken"
	_, err = callHook(t, p, req)
	var e *abi.Error
	if err == nil || !asErr(err, &e) || e.Code != abi.CodePluginFailed || !strings.Contains(e.Message, "withheld") {
		t.Fatalf("want plugin_failed, got %v", err)
	}
}

func asErr(err error, e **abi.Error) bool {
	x, ok := err.(*abi.Error)
	if ok {
		*e = x
	}
	return ok
}

// The compactor and the masker take the snapshot raw (abi.FeatureRawSnapshot)
// and answer it raw: the same answer as through JSON, on a corpus-sized
// snapshot with quotes, newlines and a secret in it.
func TestRawSnapshotInSandbox(t *testing.T) {
	const secret = "hunter2-Secret"
	var b strings.Builder
	b.WriteString("- generic [ref=e0]:\n")
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&b, "  - link \"Story %d: \\\"quoted\\\" <b> & more\" [ref=e%d] [cursor=pointer]:\n    - /url: /s/%d\n", i, i+1, i)
	}
	b.WriteString("  - textbox \"Password\" [ref=e9999]: " + secret + "\n")
	snap := b.String()
	for _, tc := range []struct {
		dir  string
		role abi.HookRole
	}{{"plugins/snapcompact", abi.HookCompact}, {"plugins/secretmask", abi.HookMask}} {
		p := loadPlugin(t, tc.dir, func(string) ([]string, error) { return []string{secret}, nil })
		if !p.HasFeature(abi.FeatureRawSnapshot) {
			t.Fatalf("%s does not ask for %s", tc.dir, abi.FeatureRawSnapshot)
		}
		req := abi.HookRequest{Role: tc.role, Tool: "browser_snapshot", Session: "s", Result: &abi.Result{Text: "ok", Snapshot: snap}}
		viaJSON, err := callHook(t, p, req)
		if err != nil {
			t.Fatal(err)
		}
		in, err := abi.EncodeHookRequest(&req, abi.RawHookInput(tc.role, p.HasFeature))
		if err != nil {
			t.Fatal(err)
		}
		if json.Valid(in) || strings.Contains(string(in[:len(in)-len(snap)]), "Story 1") {
			t.Fatalf("%s: the request is not framed with the snapshot raw", tc.dir)
		}
		out, err := p.Call(context.Background(), abi.OpHook, in)
		if err != nil {
			t.Fatal(err)
		}
		if json.Valid(out) {
			t.Fatalf("%s: a framed request got a JSON answer", tc.dir)
		}
		var raw abi.HookResponse
		if err := abi.DecodeHookResponse(out, true, &raw); err != nil {
			t.Fatal(err)
		}
		a, _ := json.Marshal(viaJSON)
		c, _ := json.Marshal(&raw)
		if string(a) != string(c) || raw.Result.Snapshot == snap {
			t.Fatalf("%s: raw and JSON answers differ (or nothing was done): %d vs %d bytes", tc.dir, len(a), len(c))
		}
		if tc.role == abi.HookMask && strings.Contains(raw.Result.Snapshot, secret) {
			t.Fatal("the masker left the secret in a raw snapshot")
		}
	}
}
