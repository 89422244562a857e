package abi

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestHookRequestRoundTrip(t *testing.T) {
	html := "<html>" + strings.Repeat("<p>a & b</p>", 1000) + "{\"x\":1}</html>"
	req := &HookRequest{Role: HookDetect, Tool: "browser_navigate", Result: &Result{Text: "ok", Page: &Page{URL: "https://x.test/", Status: 403, Title: "T", Text: "visible \x00 text", HTML: html}}}
	for _, raw := range []bool{false, true} {
		in, err := EncodeHookRequest(req, raw)
		if err != nil {
			t.Fatal(err)
		}
		if raw && strings.Contains(string(in[:len(in)-len(html)]), "<p>") {
			t.Fatal("the raw form carries the HTML inside its JSON")
		}
		if !raw && strings.Contains(string(in), `\u003c`) {
			t.Fatal("JSON escapes HTML")
		}
		var got HookRequest
		if err := DecodeHookRequest(in, &got); err != nil {
			t.Fatalf("raw=%v: %v", raw, err)
		}
		a, _ := json.Marshal(req)
		b, _ := json.Marshal(&got)
		if string(a) != string(b) {
			t.Fatalf("raw=%v: round trip differs", raw)
		}
	}
	if req.Result.Page.HTML != html {
		t.Fatal("encoding changed the caller's request")
	}
	for _, bad := range [][]byte{nil, []byte("xx"), []byte{2, 0, 0, 0, '{', '}'}, []byte{2, 0, 0, 0, '{', '}', 9, 0, 0, 0}} {
		var r HookRequest
		if DecodeHookRequest(bad, &r) == nil {
			t.Errorf("%q decoded", bad)
		}
	}
}

// A snapshot travels raw both ways for a plugin with FeatureRawSnapshot:
// not inside the JSON, and back the same.
func TestHookSnapshotRoundTrip(t *testing.T) {
	snap := "- generic [ref=e1]:\n" + strings.Repeat("  - link \"a \\\"b\\\" <c> & d\" [ref=e2]\n", 500)
	for _, role := range []HookRole{HookCompact, HookMask} {
		req := &HookRequest{Role: role, Tool: "browser_snapshot", Args: json.RawMessage(`{"ref":"e2"}`), Result: &Result{Text: "ok", Snapshot: snap, Warnings: []string{"w"}}}
		for _, raw := range []bool{false, true} {
			in, err := EncodeHookRequest(req, raw)
			if err != nil {
				t.Fatal(err)
			}
			if raw == (in[0] == '{') || raw && !strings.HasSuffix(string(in), snap) {
				t.Fatalf("%s raw=%v: the snapshot is not where it belongs: %.80q", role, raw, in)
			}
			var got HookRequest
			if err := DecodeHookRequest(in, &got); err != nil {
				t.Fatalf("%s raw=%v: %v", role, raw, err)
			}
			a, _ := json.Marshal(req)
			b, _ := json.Marshal(&got)
			if string(a) != string(b) {
				t.Fatalf("%s raw=%v: round trip differs:\n%s\n%s", role, raw, a, b)
			}
			resp := &HookResponse{Result: got.Result, Error: &Error{Code: CodeTimeout, Message: "m"}}
			out, err := EncodeHookResponse(resp, raw)
			if err != nil {
				t.Fatal(err)
			}
			var back HookResponse
			if err := DecodeHookResponse(out, raw, &back); err != nil {
				t.Fatalf("%s raw=%v: answer: %v", role, raw, err)
			}
			a, _ = json.Marshal(resp)
			b, _ = json.Marshal(&back)
			if string(a) != string(b) {
				t.Fatalf("%s raw=%v: answer round trip differs", role, raw)
			}
		}
	}
	if !RawHookInput(HookCompact, func(f string) bool { return f == FeatureRawSnapshot }) || RawHookInput(HookDetect, func(f string) bool { return f == FeatureRawSnapshot }) {
		t.Fatal("RawHookInput: a snapshot feature is for the roles other than detect")
	}
	// A plugin that did not ask answers JSON: a frame from it is refused;
	// a frame with a snapshot in its JSON too is refused.
	framed, _ := EncodeHookResponse(&HookResponse{Result: &Result{Snapshot: "x"}}, true)
	var r HookResponse
	if DecodeHookResponse(framed, false, &r) == nil {
		t.Fatal("a frame from a plugin without the feature decoded")
	}
	twice, _ := Frame(&HookResponse{Result: &Result{Snapshot: "y"}}, []byte("x"))
	if DecodeHookResponse(twice, true, &r) == nil {
		t.Fatal("a frame with a snapshot in its header decoded")
	}
	// A header of 123 bytes makes a frame that starts with '{'.
	for pad := 0; pad < 300; pad++ {
		resp := &HookResponse{Result: &Result{Text: strings.Repeat("p", pad), Snapshot: "s"}}
		out, _ := EncodeHookResponse(resp, true)
		var got HookResponse
		if err := DecodeHookResponse(out, true, &got); err != nil || got.Result.Snapshot != "s" {
			t.Fatalf("pad %d (first byte %q): %v", pad, out[0], err)
		}
	}
}
