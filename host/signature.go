package host

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"aead.dev/minisign"

	"github.com/wasmwright/wasmwright/abi"
)

// Plugin signatures. A signed plugin carries a minisign (Ed25519)
// signature of its .wasm in a NAME.wasm.minisig sidecar, the file the
// minisign tool itself reads and writes. The keys that may vouch for a
// plugin are host.trusted_keys (every plugin) and plugins.NAME.trusted_keys
// (that plugin only). A personality with require_signatures = true loads
// only plugins whose signature verifies against one of those keys, checked
// before a byte of the plugin is compiled: at start, at swap and at a
// watched file drop.

// SignatureExt is the suffix of a plugin's signature sidecar.
const SignatureExt = ".minisig"

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

// TrustedKeys are the keys that may sign plugin name: host.trusted_keys
// and plugins.NAME.trusted_keys.
func (c *Config) TrustedKeys(name string) ([]minisign.PublicKey, error) {
	var out []minisign.PublicKey
	for _, k := range append(append([]string(nil), c.Host.TrustedKeys...), c.Plugins[name].TrustedKeys...) {
		pk, err := ParseTrustedKey(k, c.Dir)
		if err != nil {
			return nil, err
		}
		out = append(out, pk)
	}
	return out, nil
}

// SignatureRequiredBy lists the personalities that load plugin name and
// set require_signatures.
func (c *Config) SignatureRequiredBy(name string) []string {
	var out []string
	for _, pn := range sortedKeys(c.Personalities) {
		if p := c.Personalities[pn]; p.RequireSignatures && contains(p.Plugins, name) {
			out = append(out, pn)
		}
	}
	return out
}

// validateKeys refuses a trusted key the host could not use.
func (c *Config) validateKeys() error {
	for _, name := range append([]string{""}, sortedKeys(c.Plugins)...) {
		if _, err := c.TrustedKeys(name); err != nil {
			return &ConfigError{c.Source, err.Error() + ": give the key line of a .pub file (wasmwright plugins keygen writes one)"}
		}
	}
	return nil
}

// ReadSignature returns the signature sidecar of a plugin file, or nil
// when there is none.
func ReadSignature(file string) []byte {
	b, err := os.ReadFile(file + SignatureExt)
	if err != nil {
		return nil
	}
	return b
}

// Sign signs wasm (the file name goes in the signed comment, as minisign
// does) and returns the text of the .minisig sidecar.
func Sign(key minisign.PrivateKey, wasm []byte, file string) []byte {
	r := minisign.NewReader(bytes.NewReader(wasm))
	io.Copy(io.Discard, r) // hashes wasm: minisign's prehashed form, its default
	trusted := "timestamp:" + strconv.FormatInt(time.Now().Unix(), 10) + "\tfile:" + filepath.Base(file) + "\thashed"
	return r.SignWithComments(key, trusted, "signature from wasmwright secret key "+KeyID(key.ID()))
}

// VerifySignature checks sig, the text of a .minisig sidecar, over wasm
// against keys, and returns the ID of the key that signed it. A refusal
// names plugin name and what to do.
func VerifySignature(name string, wasm, sig []byte, keys []minisign.PublicKey) (string, error) {
	if sig == nil {
		return "", abi.Errorf(abi.CodeRefused, "plugin %s is not signed (no %s sidecar beside its .wasm): sign it with `wasmwright plugins sign FILE --key KEY`, or pull a signed version", name, SignatureExt).With("plugin", name)
	}
	var s minisign.Signature
	if err := s.UnmarshalText(sig); err != nil {
		return "", abi.Errorf(abi.CodeRefused, "plugin %s: its %s sidecar is not a minisign signature (%v): sign it again with `wasmwright plugins sign`", name, SignatureExt, err).With("plugin", name)
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

// checkSignature refuses plugin name's wasm unless its signature verifies,
// when a personality loading it requires signatures.
func (h *Host) checkSignature(name string, wasm, sig []byte) error {
	req := h.cfg.SignatureRequiredBy(name)
	if len(req) == 0 {
		return nil
	}
	keys, err := h.cfg.TrustedKeys(name) // validated with the config
	if err == nil {
		_, err = VerifySignature(name, wasm, sig, keys)
	}
	var e *abi.Error
	if errors.As(err, &e) {
		e.Message = fmt.Sprintf("personality %s requires signed plugins: %s", strings.Join(req, ", "), e.Message)
	}
	return err
}
