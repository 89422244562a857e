package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/testenv"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

// The three first-party hook plugins run in one personality's pipeline,
// and each is swapped for a new build while calls flow through it: no call
// fails, every result is still detected, compacted and masked.
func TestFirstPartyHooksSwapUnderLoad(t *testing.T) {
	// A stress test (swaps against a stream of calls): the full tier runs it.
	testenv.Heavy(t, "a minute of swaps under concurrent calls")
	f := newFixture(t, map[string]string{
		"misbehave":   "sandbox/testdata/misbehave",
		"blockdetect": "plugins/blockdetect",
		"snapcompact": "plugins/snapcompact",
		"secretmask":  "plugins/secretmask",
	})
	h := f.host(t, `
[plugins.misbehave]
[plugins.blockdetect]
[plugins.snapcompact]
[plugins.secretmask]
[personalities.agent]
plugins = ["misbehave", "blockdetect", "snapcompact", "secretmask"]
tools = ["*"]
grants = ["events", "secrets.mask"]
hooks = { detect = "blockdetect", compact = "snapcompact", mask = "secretmask" }
`, nil, fmt.Sprintf("cache_dir = %q", t.TempDir())) // empty: the first round's swaps compile under load, as a new build's do
	ctx := context.Background()
	h.Secrets().Add("agent", "s", "hunter2-secret")
	snapshot := "- generic [ref=e1]:\n  - link \"Home\" [ref=e2]:\n    - /url: https://example.test/\n  - paragraph [ref=e3]: your code is hunter2-secret"
	args, _ := json.Marshal(map[string]string{"title": "Shop", "snapshot": snapshot, "text": "welcome hunter2-secret"})
	check := func() error {
		res, err := h.Call(ctx, Request{Personality: "agent", Session: "s", Tool: "page", Args: args})
		if err != nil {
			return err
		}
		b, _ := json.Marshal(res)
		switch {
		case strings.Contains(string(b), "hunter2-secret"):
			return abi.Errorf(abi.CodeSecretLeak, "leak: %s", b)
		case strings.Contains(res.Snapshot, "/url:") || !strings.Contains(res.Snapshot, "[ref=e2]"):
			return abi.Errorf(abi.CodeExecutionFailed, "not compacted: %q", res.Snapshot)
		case !strings.Contains(res.Text, "••••••"):
			return abi.Errorf(abi.CodeExecutionFailed, "not masked: %q", res.Text)
		}
		return nil
	}
	if err := check(); err != nil {
		t.Fatal(err)
	}
	wall, _ := json.Marshal(map[string]any{"title": "Just a moment...", "status": 403, "headers": map[string]string{"cf-mitigated": "challenge", "server": "cloudflare"}})
	if _, err := h.Call(ctx, Request{Personality: "agent", Session: "s", Tool: "page", Args: wall}); errCode(err) != abi.CodeBotWall || !strings.Contains(err.Error(), "Cloudflare") {
		t.Fatalf("the detector must fail a challenge page: %v", err)
	}

	load := hammer(3, check)
	lat := map[string][]time.Duration{}
	for round := 0; round < 2; round++ {
		for _, name := range []string{"blockdetect", "snapcompact", "secretmask"} {
			var wasm []byte
			if round == 0 {
				wasm = readBuilt(t, "plugins/"+name, otherBuild("plugins/"+name)...)
			} else {
				wasm = readBuilt(t, "plugins/"+name)
			}
			s := sha256.Sum256(wasm)
			rep, err := h.Swap(ctx, name, wasm, hex.EncodeToString(s[:]))
			if err != nil {
				t.Fatalf("swap %s: %v", name, err)
			}
			lat[name] = append(lat[name], rep.Total)
		}
	}
	calls, failures, first := load()
	if failures != 0 {
		t.Fatalf("%d of %d calls failed during swaps: %v", failures, calls, first)
	}
	t.Logf("%d pipeline calls during 6 swaps, 0 failed; swap latency (first build uncached, second warm): %v", calls, lat)
}

// otherBuild is what builds plugin dir to other bytes than wasmbuild's
// plain build (a new version to swap in): -trimpath for a Go plugin,
// another optimisation level for a Rust one (a folder with lib.rs).
func otherBuild(dir string) []string {
	if _, err := os.Stat(filepath.Join(wasmbuild.Root(), dir, "lib.rs")); err == nil {
		return []string{"-C", "opt-level=z"}
	}
	return []string{"-trimpath"}
}
