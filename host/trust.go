package host

import (
	"errors"
	"fmt"
	"strings"

	"aead.dev/minisign"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/host/signature"
)

// Which keys the config trusts, and which personalities require plugins
// signed by them (host/signature verifies).

// TrustedKeys are the keys that may sign plugin name: host.trusted_keys
// and plugins.NAME.trusted_keys.
func (c *Config) TrustedKeys(name string) ([]minisign.PublicKey, error) {
	var out []minisign.PublicKey
	for _, k := range append(append([]string(nil), c.Host.TrustedKeys...), c.Plugins[name].TrustedKeys...) {
		pk, err := signature.ParseTrustedKey(k, c.Dir)
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

// CheckSignature checks sig, plugin name's signature sidecar (nil: none),
// when a personality of the config requires signed plugins: a tool that
// hands a file to a running host (`plugins swap`) refuses what the host
// would, before the file reaches its folder.
func (c *Config) CheckSignature(name string, wasm, sig []byte) error {
	req := c.SignatureRequiredBy(name)
	if len(req) == 0 {
		return nil
	}
	keys, err := c.TrustedKeys(name) // validated with the config
	if err == nil {
		_, err = signature.Verify(name, wasm, sig, keys)
	}
	var e *abi.Error
	if errors.As(err, &e) {
		e.Message = fmt.Sprintf("personality %s requires signed plugins: %s", strings.Join(req, ", "), e.Message)
	}
	return err
}
