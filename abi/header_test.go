package abi

import (
	"encoding/json"
	"testing"
)

func FuzzDecodeHeaderMatchesJSON(f *testing.F) {
	for _, s := range []string{
		`{"tool":"a","session":"s","personality":"p","call_id":"c1"}`,
		`{}`, ` { "tool" : "x\"y\\u00e9" } `, `{"tool":1}`, `{"other":"x"}`, `[]`, `{"tool":"a",}`, `{"tool":"a"} x`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want, got CallHeader
		werr := json.Unmarshal(b, &want)
		gerr := decodeHeader(b, &got)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("%q: json err %v, ours %v", b, werr, gerr)
		}
		if werr == nil && want != got {
			t.Fatalf("%q: json %+v, ours %+v", b, want, got)
		}
	})
}

func TestFrameRoundTrip(t *testing.T) {
	h := CallHeader{Tool: "t", Session: "s\"1", CallID: "c"}
	b, err := Frame(h, []byte(`{"x":1}`))
	if err != nil {
		t.Fatal(err)
	}
	var got CallHeader
	body, err := Unframe(b, &got)
	if err != nil || got != h || string(body) != `{"x":1}` {
		t.Fatalf("%+v %s %v", got, body, err)
	}
	if _, err := Unframe([]byte{9, 0, 0, 0, '{'}, &got); err == nil {
		t.Fatal("a short frame must fail")
	}
}
