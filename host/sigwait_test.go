package host

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/host/distribute"
	"github.com/wasmwright/wasmwright/host/signature"
)

// nextEventFor waits for an event about sum and fails the test unless it
// is of kind want: a drop must not be refused or set aside on its way.
func (c chanSink) nextEventFor(t *testing.T, sum, want string) {
	t.Helper()
	deadline := time.After(30 * time.Second)
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
			t.Fatalf("no %s event for %s within 30s", want, sum[:12])
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
		s := sha256.Sum256(wasm)
		sum := hex.EncodeToString(s[:])
		if i == 0 {
			os.Remove(file + signature.Ext) // first: no signature yet
		} // then: the previous version's signature stays beside it
		os.WriteFile(file+".sha256", []byte(sum+"  misbehave.wasm\n"), 0o644)
		os.WriteFile(file+".tmp", wasm, 0o644)
		os.Rename(file+".tmp", file)
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
