package host

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/distribute"
	"github.com/wasmwright/wasmwright/host/pluginset"
	"github.com/wasmwright/wasmwright/host/signature"
)

// nextEventFor waits for an event about sum and fails the test unless it
// is of kind want: a drop must not be refused or set aside on its way.
func (c chanSink) nextEventFor(t *testing.T, sum, want string) {
	t.Helper()
	// A hang-catcher: a swap compiles the new version and self-tests it,
	// which took 37 s at load 33.
	deadline := time.After(3 * time.Minute)
	for {
		select {
		case e := <-c:
			if !strings.Contains(string(e.Data), sum) {
				continue
			}
			if e.Kind == want {
				return
			}
			t.Fatalf("drop %s: got %s (%s) before %s", sum[:12], e.Kind, e.Data, want)
		case <-deadline:
			t.Fatalf("no %s event for %s within 3 minutes", want, sum[:12])
		}
	}
}

// A watched drop that needs a signature waits (SignatureWait) for it: a
// .minisig written after the .wasm swaps it in, and an old .minisig beside
// a new .wasm does not get it called tampered before its own signature
// arrives.
func TestWatchedDropWaitsForItsSignature(t *testing.T) {
	h, file, priv, events := signedWatchedHost(t)

	next := readBuilt(t, "sandbox/testdata/misbehave", "-trimpath")
	for i, wasm := range [][]byte{next, withCustomSection(next)} {
		sum := sha(wasm)
		if i == 0 {
			os.Remove(file + signature.Ext) // first: no signature yet
		} // then: the previous version's signature stays beside it
		drop(file, wasm, true)
		events.nextEventFor(t, sum, "plugin.awaiting_signature")
		os.WriteFile(file+signature.Ext+".tmp", distribute.Sign(priv, wasm, file), 0o644)
		os.Rename(file+signature.Ext+".tmp", file+signature.Ext)
		events.nextEventFor(t, sum, "plugin.swapped")
		if cur, _ := h.plugins.Slot("misbehave").Current(); cur.SHA256 != sum {
			t.Fatalf("drop %d: %s serves", i, cur.SHA256[:12])
		}
		if _, err := h.Call(context.Background(), Request{Personality: "p", Tool: "echo"}); err != nil {
			t.Fatal(err)
		}
	}
}

// A watched drop whose own signature does not verify is refused and set
// aside like any refused drop: the file, its pin and its signature move to
// .rejected/, NAME.wasm.refused.json says its sha256, code and why, and
// the old version keeps serving.
func TestWatchedDropWithBadSignatureIsSetAside(t *testing.T) {
	h, file, priv, events := signedWatchedHost(t)
	before, _ := h.plugins.Slot("misbehave").Current()
	next := withCustomSection(readBuilt(t, "sandbox/testdata/misbehave", "-trimpath"))
	sum := sha(next)
	drop(file, next, true)
	// Its own signature, written after it, of other bytes.
	os.WriteFile(file+signature.Ext+".tmp", distribute.Sign(priv, []byte("other bytes"), file), 0o644)
	os.Rename(file+signature.Ext+".tmp", file+signature.Ext)
	events.waitEvent(t, "plugin.set_aside", sum)

	rejected := filepath.Join(filepath.Dir(file), ".rejected", "misbehave.wasm.refused")
	var rec struct{ SHA256, Code, Reason string }
	raw, err := os.ReadFile(rejected + ".json")
	if err != nil || json.Unmarshal(raw, &rec) != nil || rec.SHA256 != sum || rec.Code != "refused" || !strings.Contains(rec.Reason, "signature") {
		t.Fatalf("record: %s %v", raw, err)
	}
	if got, _ := pluginset.SHA256File(rejected); got != sum {
		t.Fatalf("the refused file is not in .rejected/ (%s)", got)
	}
	for _, left := range []string{file, file + ".sha256", file + signature.Ext} {
		if _, err := os.Stat(left); !os.IsNotExist(err) {
			t.Errorf("%s left in place: %v", filepath.Base(left), err)
		}
	}
	if cur, _ := h.plugins.Slot("misbehave").Current(); cur.SHA256 != before.SHA256 {
		t.Fatalf("%s serves, want the old %s", cur.SHA256[:12], before.SHA256[:12])
	}
}
