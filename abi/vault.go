package abi

// HostVaultFill fills a stored credential into the current page by name.
// Grant: vault.fill. The plugin passes names and refs, never values: the
// host resolves the values only after every check passed, and the response
// carries no value.
const HostVaultFill = "ww_vault_fill"

// VaultFillRequest names a credential and the fields of the latest snapshot
// to fill. At least one of UsernameRef, PasswordRef, TOTPRef is needed.
type VaultFillRequest struct {
	Credential  string `json:"credential"`
	UsernameRef string `json:"username_ref,omitempty"`
	PasswordRef string `json:"password_ref,omitempty"`
	// TOTPRef receives the current one-time code of the credential's seed.
	TOTPRef string `json:"totp_ref,omitempty"`
	// SubmitRef is clicked after the fill; Submit presses Enter in the last
	// filled field instead.
	SubmitRef  string `json:"submit_ref,omitempty"`
	Submit     bool   `json:"submit,omitempty"`
	NoSnapshot bool   `json:"no_snapshot,omitempty"`
}

// VaultFillResponse answers HostVaultFill: the page after the fill and what
// was filled (field names, not values) on which origin.
type VaultFillResponse struct {
	State     BrowserState `json:"state"`
	Snapshot  string       `json:"snapshot,omitempty"`
	Navigated bool         `json:"navigated,omitempty"`
	Page      *Page        `json:"page,omitempty"`
	// Filled lists "username", "password", "totp" as filled.
	Filled []string `json:"filled"`
	Origin string   `json:"origin"`
	// Submitted is true when the form was submitted.
	Submitted bool `json:"submitted,omitempty"`
}

// Outcomes of a credential fill, as written in the audit event and in the
// "outcome" detail of a refusal.
const (
	VaultFilled             = "filled"
	VaultNotFound           = "not_found"
	VaultRefusedPersonality = "refused_personality"
	VaultRefusedUnattended  = "refused_unattended"
	VaultRefusedOrigin      = "refused_origin"
	VaultRefusedFieldType   = "refused_field_type"
	VaultOriginChanged      = "origin_changed"
	VaultError              = "error"
)
