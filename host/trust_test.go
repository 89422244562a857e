package host

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"aead.dev/minisign"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/distribute"
	"github.com/wasmwright/wasmwright/host/signature"
)

func newKey(t testing.TB) (minisign.PublicKey, minisign.PrivateKey) {
	t.Helper()
	pub, priv, err := minisign.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return pub, priv
}

// withCustomSection returns wasm with a custom section appended: a module
// that still loads and runs, but not the bytes that were signed.
func withCustomSection(wasm []byte) []byte {
	payload := append([]byte{4}, "evil, not signed"...)
	return append(append(append([]byte(nil), wasm...), 0, byte(len(payload))), payload...)
}

// writePlugin replaces a plugin file and pins it with a .sha256 sidecar,
// so only its signature decides.
func writePlugin(t testing.TB, file string, wasm, sig []byte) {
	t.Helper()
	s := sha256.Sum256(wasm)
	os.Remove(file + signature.Ext)
	if sig != nil {
		os.WriteFile(file+signature.Ext, sig, 0o644)
	}
	os.WriteFile(file+".sha256", []byte(hex.EncodeToString(s[:])+"  "+filepath.Base(file)+"\n"), 0o644)
	if err := os.WriteFile(file, wasm, 0o644); err != nil {
		t.Fatal(err)
	}
}

const signedConfig = `
[plugins.extract_links]
%s
[personalities.locked]
plugins = ["extract_links"]
tools = ["*"]
grants = ["events"]
require_signatures = true
[personalities.open]
plugins = ["misbehave"]
tools = ["*"]
grants = ["events"]
[plugins.misbehave]
`

// signingFixture is a fixture with extract_links and misbehave built, the
// path of extract_links' file (the plugin the signature tests sign) and
// its bytes.
func signingFixture(t *testing.T) (f *fixture, file string, wasm []byte) {
	t.Helper()
	f = newFixture(t, map[string]string{"extract_links": "examples/extract_links", "misbehave": "sandbox/testdata/misbehave"})
	file = filepath.Join(f.plugins, "extract_links.wasm")
	wasm, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	return f, file, wasm
}

// A personality with require_signatures loads a plugin only when its
// .minisig verifies against a key the config trusts: unsigned, altered
// and stranger-signed files are refused with the plugin named and the next
// step, and other personalities keep working.
func TestRequireSignatures(t *testing.T) {
	f, file, wasm := signingFixture(t)
	pub, priv := newKey(t)
	strangerPub, stranger := newKey(t)
	os.WriteFile(filepath.Join(f.dir, "author.pub"), mustText(pub), 0o644)
	hostKey := fmt.Sprintf("trusted_keys = [%q]", pub.String())
	pluginKey := `trusted_keys = ["author.pub"]` // a .pub file, relative to the config
	tampered := withCustomSection(wasm)
	// call answers with the tool's result, or the reason the plugin did
	// not load.
	call := func(h *Host) error {
		if info := h.Plugins()[0]; info.Error != nil {
			return info.Error
		}
		_, err := h.Call(context.Background(), Request{Personality: "locked", Tool: "extract_links", Args: []byte(`{"html":"<a href=/q>Q</a>"}`)})
		return err
	}
	for _, c := range []struct {
		name, hostKeys, pluginKeys string
		wasm, sig                  []byte
		want                       string // "" = loads and answers
	}{
		{"signed, host key", hostKey, "", wasm, distribute.Sign(priv, wasm, file), ""},
		{"signed, plugin key", "", pluginKey, wasm, distribute.Sign(priv, wasm, file), ""},
		{"altered custom section", hostKey, "", tampered, distribute.Sign(priv, wasm, file), "does not match the file"},
		{"unsigned", hostKey, "", wasm, nil, "is not signed"},
		{"garbage signature", hostKey, "", wasm, []byte("not a signature\n"), "not a minisign signature"},
		{"stranger's key", hostKey, "", wasm, distribute.Sign(stranger, wasm, file), "key " + signature.KeyID(strangerPub.ID()) + ", which this host does not trust"},
		{"no key trusted", "", "", wasm, distribute.Sign(priv, wasm, file), "does not trust: if you trust its author, add their public key to plugins.extract_links.trusted_keys"},
	} {
		t.Run(c.name, func(t *testing.T) {
			// Each case judges its file alone: no last good version of an
			// earlier case to fall back on (TestLastGoodIsSignedToo).
			os.RemoveAll(filepath.Join(filepath.Dir(file), ".last-good"))
			writePlugin(t, file, c.wasm, c.sig)
			h := f.host(t, fmt.Sprintf(signedConfig, c.pluginKeys), nil, c.hostKeys)
			err := call(h)
			if c.want == "" {
				if err != nil {
					t.Fatalf("a signed plugin must load and answer: %v", err)
				}
				return
			}
			if errCode(err) != abi.CodeRefused || !strings.Contains(err.Error(), c.want) ||
				!strings.Contains(err.Error(), "personality locked requires signed plugins: plugin extract_links") {
				t.Fatalf("want refused %q, got %v", c.want, err)
			}
			// The personality that does not require signatures is unaffected.
			if _, err := h.Call(context.Background(), Request{Personality: "open", Tool: "echo"}); err != nil {
				t.Fatal(err)
			}
		})
	}
	// The altered file is a working plugin: only its signature refused it.
	writePlugin(t, file, tampered, distribute.Sign(priv, wasm, file))
	h := f.host(t, strings.Replace(fmt.Sprintf(signedConfig, ""), "require_signatures = true", "", 1), nil, hostKey)
	if err := call(h); err != nil {
		t.Fatalf("without require_signatures the same file loads: %v", err)
	}
}

// A swap, by call or by a watched file drop, is held to the same rule: a
// new version without a valid signature is refused and the old one serves.
func TestSwapRequiresSignature(t *testing.T) {
	h, file, priv, events := signedWatchedHost(t)
	old, _ := os.ReadFile(file) // the signed version that serves
	if _, err := h.Call(context.Background(), Request{Personality: "p", Tool: "echo"}); err != nil {
		t.Fatal(err)
	}
	next := readBuilt(t, "sandbox/testdata/misbehave", "-trimpath")
	s := sha256.Sum256(next)
	sum := hex.EncodeToString(s[:])
	if _, err := h.Swap(context.Background(), "misbehave", next, sum); errCode(err) != abi.CodeRefused || !strings.Contains(err.Error(), "is not signed") {
		t.Fatalf("unsigned swap: %v", err)
	}
	if _, err := h.Swap(context.Background(), "misbehave", next, sum, distribute.Sign(priv, old, file)); errCode(err) != abi.CodeRefused || !strings.Contains(err.Error(), "does not match") {
		t.Fatalf("swap with another file's signature: %v", err)
	}
	// A drop whose signature is another file's is refused and set aside
	// (TestWatchedDropWithBadSignatureIsSetAside); dropped again with its
	// own, it swaps in. (A drop whose signature never comes:
	// TestWatchedDropWaitsForItsSignature.)
	writePlugin(t, file, next, nil)
	os.WriteFile(file+signature.Ext, distribute.Sign(priv, old, file), 0o644)
	events.waitEvent(t, "plugin.set_aside", sum)
	if cur, _ := h.plugins.Slot("misbehave").Current(); cur.SHA256 == sum {
		t.Fatal("a drop with a wrong signature was swapped in")
	}
	writePlugin(t, file, next, distribute.Sign(priv, next, file))
	events.waitEvent(t, "plugin.swapped", sum)
	if _, err := h.Call(context.Background(), Request{Personality: "p", Tool: "echo"}); err != nil {
		t.Fatal(err)
	}
}

func mustText(pub minisign.PublicKey) []byte {
	b, _ := pub.MarshalText()
	return b
}

func TestTrustedKeysAreChecked(t *testing.T) {
	_, err := ParseConfig("[host]\ntrusted_keys = [\"RWQnotakey\"]\n", "t.toml", t.TempDir())
	if err == nil || !strings.Contains(err.Error(), `trusted key`) || !strings.Contains(err.Error(), "wasmwright plugins keygen") {
		t.Fatalf("a bad key must be a config error: %v", err)
	}
}

// TestLastGoodIsSignedToo: the last good version a host falls back to is
// held to require_signatures like the plugin file: a signed one serves
// after an unsigned drop, and a last good copy altered on disk is refused.
func TestLastGoodIsSignedToo(t *testing.T) {
	f, file, wasm := signingFixture(t)
	pub, priv := newKey(t)
	hostKey := fmt.Sprintf("trusted_keys = [%q]", pub.String())
	call := func(h *Host) error {
		if info := h.Plugins()[0]; info.Error != nil {
			return info.Error
		}
		_, err := h.Call(context.Background(), Request{Personality: "locked", Tool: "extract_links", Args: []byte(`{"html":"<a href=/q>Q</a>"}`)})
		return err
	}
	writePlugin(t, file, wasm, distribute.Sign(priv, wasm, file))
	if err := call(f.host(t, fmt.Sprintf(signedConfig, ""), nil, hostKey)); err != nil {
		t.Fatalf("the signed plugin: %v", err)
	}
	lastGood := filepath.Join(f.plugins, ".last-good", "extract_links.wasm")
	if _, err := os.Stat(lastGood + signature.Ext); err != nil {
		t.Fatalf("the last good version was kept without its signature: %v", err)
	}
	writePlugin(t, file, wasm, nil) // an unsigned drop
	if err := call(f.host(t, fmt.Sprintf(signedConfig, ""), nil, hostKey)); err != nil {
		t.Fatalf("after an unsigned drop the signed last good version should serve: %v", err)
	}
	tampered := withCustomSection(wasm)
	os.WriteFile(lastGood, tampered, 0o644)
	sum := sha256.Sum256(tampered)
	os.WriteFile(lastGood+".sha256", []byte(hex.EncodeToString(sum[:])+"  extract_links.wasm\n"), 0o644)
	if err := call(f.host(t, fmt.Sprintf(signedConfig, ""), nil, hostKey)); errCode(err) != abi.CodeRefused {
		t.Fatalf("an altered last good copy must be refused under require_signatures, got %v", err)
	}
}

// signedWatchedHost serves plugin misbehave, signed, to a personality that
// requires signatures, watching its plugins folder: it returns the host,
// the plugin's file, the signing key and the host's events.
func signedWatchedHost(t *testing.T) (*Host, string, minisign.PrivateKey, chanSink) {
	t.Helper()
	f := newFixture(t, map[string]string{"misbehave": "sandbox/testdata/misbehave"})
	pub, priv := newKey(t)
	file := filepath.Join(f.plugins, "misbehave.wasm")
	old, _ := os.ReadFile(file)
	writePlugin(t, file, old, distribute.Sign(priv, old, file))
	events := make(chanSink, 64)
	h := f.host(t, "[plugins.misbehave]\n[personalities.p]\nplugins = [\"misbehave\"]\ntools = [\"*\"]\ngrants = [\"events\"]\nrequire_signatures = true\n", events,
		"watch_plugins = true", fmt.Sprintf("trusted_keys = [%q]", pub.String()))
	return h, file, priv, events
}
