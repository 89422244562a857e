package host

import (
	"context"

	"github.com/wasmwright/wasmwright/hostfuncs/operator"
	"github.com/wasmwright/wasmwright/hostfuncs/vault"
)

// What the CLI's administration commands (`secrets`, `grants`) and its
// `call` see of the kernel's stores, opened from the config without a
// running host. As in frontends.go, the values are the services' own,
// named here as aliases, so a front-end imports host and no service
// package (internal/layout fences the CLI too).

type (
	// CredentialStore is the encrypted credential vault (Config.VaultStore).
	CredentialStore = vault.Store
	// Credential is one stored login and its policy.
	Credential = vault.Credential
	// CredentialPolicy is where and for whom a credential may be filled.
	CredentialPolicy = vault.Policy
	// Secret is a value that prints as a mask, never as itself.
	Secret = vault.Secret
	// GrantStore is the store of origin-scoped act grants (OpenGrants).
	GrantStore = operator.Grants
	// Grant lets a tool, or a risk, run without asking on one origin.
	Grant = operator.Grant
)

// ValidCredentialName refuses a credential name the vault would not store.
func ValidCredentialName(name string) error { return vault.ValidName(name) }

// ParseTOTP reads a TOTP seed given as base32 or as an otpauth://totp/
// URI. Errors name what is wrong, never the seed.
func ParseTOTP(s string) (*vault.TOTP, error) { return vault.ParseTOTP(s) }

// CredentialOrigin checks an origin a credential may be filled into and
// returns it normalised: https only, but http on loopback.
func CredentialOrigin(o string) (string, error) { return vault.NormalizeOrigin(o) }

// WithHumanPresent marks ctx as a call a person is present for, so the
// vault may fill credentials that require one.
func WithHumanPresent(ctx context.Context) context.Context { return vault.WithHumanPresent(ctx) }

// OpenGrants opens the grants store of the config's grants folder
// (GrantsDir).
func (c *Config) OpenGrants() (*GrantStore, error) {
	dir, err := c.GrantsDir()
	if err != nil {
		return nil, err
	}
	return operator.OpenGrants(dir)
}
