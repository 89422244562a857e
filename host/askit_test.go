package host

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/wasmwright/wasmwright/internal/testenv"
)

// A plugin built with the AssemblyScript kit answers non-ASCII text whole:
// the kit outputs UTF-8 bytes, not as-pdk 1.0.0's Host.outputString, which
// sizes by UTF-16 length and cuts the answer (the host then reads invalid
// JSON). A real asc build, through the host.
func TestAssemblyScriptKitOutputsNonASCIIWhole(t *testing.T) {
	t.Parallel() // its own host: overlaps the other such tests' waits
	testenv.Heavy(t, "the AssemblyScript kit (node, build/asc)")
	f := newFixture(t, map[string]string{"askit": "host/testdata/askit"})
	h := f.host(t, "[plugins.askit]\n[personalities.p]\nplugins = [\"askit\"]\ntools = [\"*\"]\n", nil)
	args, _ := json.Marshal(map[string]string{"text": "héllo wörld"})
	res, err := h.Call(context.Background(), Request{Personality: "p", Tool: "askit_echo", Args: args})
	if want := "héllo wörld — ünïcødé ✓ 日本語 🙂"; err != nil || res.Text != want {
		t.Fatalf("want %q, got %+v %v", want, res, err)
	}
}
