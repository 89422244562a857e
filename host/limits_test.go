package host

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
)

// host.max_output_mb reaches the sandbox: a result over it is refused with
// resource_limit naming the key, and the host keeps serving.
func TestMaxOutputFromConfig(t *testing.T) {
	f := newFixture(t, map[string]string{"misbehave": "sandbox/testdata/misbehave"})
	h := f.host(t, "[plugins.misbehave]\n[personalities.p]\nplugins = [\"misbehave\"]\ntools = [\"*\"]\ngrants = [\"events\"]\n", nil, "max_output_mb = 1")
	ctx := context.Background()
	_, err := h.Call(ctx, Request{Personality: "p", Tool: "big", Args: json.RawMessage(`{"n":2000000}`)})
	if errCode(err) != abi.CodeResourceLimit || !strings.Contains(err.Error(), "host.max_output_mb") {
		t.Fatalf("want resource_limit naming host.max_output_mb, got %v", err)
	}
	if _, err := h.Call(ctx, Request{Personality: "p", Tool: "big", Args: json.RawMessage(`{"n":1000}`)}); err != nil {
		t.Fatalf("a small result after a refused one: %v", err)
	}
	for _, v := range []string{"-1", "4096"} {
		if _, err := ParseConfig("[host]\nmax_output_mb = "+v+"\n", "t.toml", t.TempDir()); err == nil || !strings.Contains(err.Error(), "max_output_mb") {
			t.Fatalf("max_output_mb = %s: want a refusal naming the key, got %v", v, err)
		}
	}
}
