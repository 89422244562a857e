package host

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/wasmwright/wasmwright/capability"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/hostfuncs/browser"
	"github.com/wasmwright/wasmwright/hostfuncs/vault"
)

// VaultConfig is the [vault] table (unknown keys refused):
//
//	[vault]
//	file = "vault.age"        # default: <user config dir>/wasmwright/vault.age (never the temp folder)
//	key_file = "vault.key"    # age X25519 identity, created on first write; default: <file>.key
//
// When WASMWRIGHT_VAULT_PASSPHRASE is set, the vault is encrypted to that
// passphrase (scrypt) instead of the key file. Relative paths are relative
// to the config file.
type VaultConfig struct {
	// File is the encrypted vault. Default: <user config dir>/wasmwright/vault.age.
	File string `toml:"file"`
	// KeyFile is the age X25519 identity, created on the first write, used
	// unless WASMWRIGHT_VAULT_PASSPHRASE is set. Default: <file>.key.
	KeyFile string `toml:"key_file"`
}

// VaultStore opens the credential vault the [vault] table names. The CLI
// (wasmwright secrets) and the host use the same one.
func (c *Config) VaultStore() (*vault.Store, error) {
	var vc VaultConfig
	if err := c.DecodeSection("vault", c.Vault, &vc); err != nil {
		return nil, err
	}
	return vault.Open(vault.Options{File: c.path(vc.File), KeyFile: c.path(vc.KeyFile)}), nil
}

// newVault builds the vault service: ww_vault_fill over the configured
// store and the host's browser (if any). It always exists, so a plugin
// importing ww_vault_fill links on every host; with no vault file every
// credential is not_found. Filled values go to the session's secrets
// before the fill, and every fill writes one audit event to the sink.
func newVault(cfg *Config, log *slog.Logger, svcs []Service, secrets *hostfuncs.Secrets, emit func(hostfuncs.Event)) (Service, error) {
	store, err := cfg.VaultStore()
	if err != nil {
		return nil, err
	}
	// With no place for the vault (no [vault] file, no user config
	// folder) a host whose personalities may fill credentials refuses to
	// start; any other runs, its (unreachable) fills refused.
	if err := store.Err(); err != nil {
		for _, pn := range sortedKeys(cfg.Personalities) {
			if g, _ := capability.Parse(cfg.Personalities[pn].Grants); g[capability.VaultFill] {
				return nil, fmt.Errorf("personality %s may fill credentials (vault.fill): %w", pn, err)
			}
		}
	}
	var b vault.Browser
	for _, s := range svcs {
		if bs, ok := s.(*browser.Service); ok {
			b = vaultBrowser{bs}
		}
	}
	return vault.NewService(store, vault.ServiceOptions{
		Logger: log, Browser: b, AddSecret: secrets.Add,
		Emit: emit,
	}), nil
}

// vaultBrowser adapts the browser service to what the vault needs.
type vaultBrowser struct{ b *browser.Service }

func (v vaultBrowser) BeginFill(ctx context.Context, c *hostfuncs.Caller) (vault.Fill, error) {
	f, err := v.b.BeginCredentialFill(ctx, c)
	if err != nil {
		return nil, err
	}
	return f, nil
}

func (v vaultBrowser) HumanDriving(personality, session string) bool {
	return v.b.HumanDriving(personality, session)
}
