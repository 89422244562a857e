// Package signature verifies plugin signatures. A signed plugin carries a
// minisign (Ed25519) signature of its .wasm in a NAME.wasm.minisig sidecar, the file the
// minisign tool itself reads and writes. The keys that may vouch for a
// plugin are host.trusted_keys (every plugin) and plugins.NAME.trusted_keys
// (that plugin only). A personality with require_signatures = true loads
// only plugins whose signature verifies against one of those keys, checked
// before a byte of the plugin is compiled: at start, at swap and at a
// watched file drop.
//
// Signing is the CLI's (distribute); the kernel needs only verifying,
// since require_signatures is checked on every load, swap and file drop.
package signature

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"aead.dev/minisign"

	"github.com/wasmwright/wasmwright/abi"
)

// Ext is the suffix of a plugin's signature sidecar.
const Ext = ".minisig"

// KeyID formats a minisign key ID as the minisign tool prints it.
func KeyID(id uint64) string { return fmt.Sprintf("%016X", id) }

// ParseTrustedKey reads one trusted key: a minisign public key ("RW..."),
// or the path of a minisign .pub file, relative to dir.
func ParseTrustedKey(k, dir string) (minisign.PublicKey, error) {
	var pk minisign.PublicKey
	if err := pk.UnmarshalText([]byte(strings.TrimSpace(k))); err == nil {
		return pk, nil
	}
	if !filepath.IsAbs(k) {
		k = filepath.Join(dir, k)
	}
	pk, err := minisign.PublicKeyFromFile(k)
	if err != nil {
		return pk, fmt.Errorf("trusted key %q is neither a minisign public key nor a readable .pub file: %v", k, err)
	}
	return pk, nil
}

// Read returns the signature sidecar of a plugin file, or nil
// when there is none.
func Read(file string) []byte {
	b, err := os.ReadFile(file + Ext)
	if err != nil {
		return nil
	}
	return b
}

// Verify checks sig, the text of a .minisig sidecar, over wasm
// against keys, and returns the ID of the key that signed it. A refusal
// names plugin name and what to do.
func Verify(name string, wasm, sig []byte, keys []minisign.PublicKey) (string, error) {
	if sig == nil {
		return "", abi.Errorf(abi.CodeRefused, "plugin %s is not signed (no %s sidecar beside its .wasm): sign it with `wasmwright plugins sign FILE --key KEY`, or pull a signed version", name, Ext).With("plugin", name)
	}
	var s minisign.Signature
	if err := s.UnmarshalText(sig); err != nil {
		return "", abi.Errorf(abi.CodeRefused, "plugin %s: its %s sidecar is not a minisign signature (%v): sign it again with `wasmwright plugins sign`", name, Ext, err).With("plugin", name)
	}
	id := KeyID(s.KeyID)
	for _, k := range keys {
		if k.ID() != s.KeyID {
			continue
		}
		if !minisign.Verify(k, wasm, sig) {
			return "", abi.Errorf(abi.CodeRefused, "plugin %s: the signature by key %s does not match the file: it was changed after signing (tampered, or rebuilt without signing again); get the signed original, or sign the new build", name, id).With("plugin", name)
		}
		return id, nil
	}
	return "", abi.Errorf(abi.CodeRefused, "plugin %s is signed by key %s, which this host does not trust: if you trust its author, add their public key to plugins.%s.trusted_keys (or host.trusted_keys)", name, id, name).With("plugin", name)
}
