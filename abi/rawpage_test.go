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
