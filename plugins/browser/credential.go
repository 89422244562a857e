package main

import (
	"encoding/json"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
	sdk "github.com/wasmwright/wasmwright/plugin-sdk"
)

// vaultFill is the capability of browser_fill_credential. The plugin must
// declare it (its import ww_vault_fill needs it); the tool requires it, so
// a personality without the grant does not see the tool.
const vaultFill = "vault.fill"

func init() {
	sdk.Needs(vaultFill)
	sdk.RawTool("browser_fill_credential", descFillCredential, fillCredentialSchema, fillCredential, sdk.Requires(vaultFill, act))
}

const descFillCredential = `Log in with a stored credential, by name: the host fills the username, the password and, when asked, the current one-time (TOTP) code into fields of the current page, without you ever seeing them. Pass refs from the latest snapshot: username_ref, password_ref (must be a password field), totp_ref (the one-time code field). submit: true presses Enter after the fill, or a ref clicks that button. Returns the page's new snapshot and which fields were filled on which origin.
The credential's owner decides where it may be used: the page and the frames of the fields must be on an origin allowed for it, and your role must be allowed. A refusal says which rule stopped it (not_found, refused_personality, refused_unattended, refused_origin, refused_field_type, origin_changed); do not try to get around it, ask the user. Filled values appear as •••••• in every later result.`

var fillCredentialSchema = json.RawMessage(`{
  "type": "object",
  "properties": {
    "credential": {"type": "string", "description": "the stored credential's name (the user or operator tells you which)"},
    "username_ref": {"type": "string", "description": "ref of the username or email field"},
    "password_ref": {"type": "string", "description": "ref of the password field (an input of type password)"},
    "totp_ref": {"type": "string", "description": "ref of the one-time code field; the host fills the current TOTP code"},
    "submit": {"type": ["boolean", "string"], "description": "true: press Enter after the fill; a ref: click that button"},
    "snapshot": {"type": "string", "enum": ["diff", "full", "none"], "description": "the page snapshot to return: diff (default) the changes since your last snapshot, full the whole snapshot, none no snapshot"}
  },
  "required": ["credential"],
  "additionalProperties": false
}`)

type fillCredentialArgs struct {
	Credential  string          `json:"credential"`
	UsernameRef string          `json:"username_ref"`
	PasswordRef string          `json:"password_ref"`
	TOTPRef     string          `json:"totp_ref"`
	Submit      json.RawMessage `json:"submit"`
	SnapshotMode
}

func fillCredential(c *sdk.Call, raw []byte) ([]byte, error) {
	var in fillCredentialArgs
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, abi.Errorf(abi.CodeInputInvalid, "arguments of browser_fill_credential: %v", err)
	}
	req := abi.VaultFillRequest{Credential: in.Credential, UsernameRef: in.UsernameRef, PasswordRef: in.PasswordRef, TOTPRef: in.TOTPRef, NoSnapshot: in.none()}
	if s := strings.TrimSpace(string(in.Submit)); s != "" && s != "null" {
		var b bool
		var ref string
		switch {
		case json.Unmarshal(in.Submit, &b) == nil:
			req.Submit = b
		case json.Unmarshal(in.Submit, &ref) == nil:
			req.SubmitRef = ref
		default:
			return nil, abi.Errorf(abi.CodeInputInvalid, "submit is true, false or the ref of the button to click")
		}
	}
	r, err := sdk.VaultFill(req)
	if err != nil {
		return nil, err
	}
	text := "Filled " + strings.Join(r.Filled, ", ") + " of credential " + in.Credential + " on " + r.Origin
	if r.Submitted {
		text += " and submitted the form"
	}
	text += "."
	if r.Navigated {
		text += " The page navigated."
	}
	res := result(text, r.State, r.Snapshot)
	res.Page = r.Page
	res = withData(res, map[string]any{"filled": r.Filled, "origin": r.Origin, "submitted": r.Submitted})
	return json.Marshal(res)
}
