package vault

import (
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/weborigin"
)

// A credential and its rules: the secret value that never prints, the
// policy (which personalities, which origins), names and origins checked
// and normalized.

// mask is what a Secret prints as.
const mask = "••••••"

// Secret is a value that must never be printed: every fmt verb and slog
// show a mask. Reveal returns the value, for the one place that uses it.
type Secret string

func (s Secret) Reveal() string { return string(s) }

func (Secret) String() string { return mask }

func (Secret) GoString() string { return mask }

func (Secret) LogValue() slog.Value { return slog.StringValue(mask) }

func (Secret) Format(f fmt.State, verb rune) { io.WriteString(f, mask) }

func (s Secret) MarshalText() ([]byte, error) { return []byte(s), nil }

func (s *Secret) UnmarshalText(b []byte) error { *s = Secret(b); return nil }

// Credential is one stored login.
type Credential struct {
	Name     string `json:"name"`
	Username Secret `json:"username"`
	Password Secret `json:"password"`
	TOTP     *TOTP  `json:"totp,omitempty"`
	Policy   Policy `json:"policy"`
	Created  string `json:"created,omitempty"`
	Updated  string `json:"updated,omitempty"`
}

// Format prints a credential by name only.
func (c Credential) Format(f fmt.State, verb rune) { fmt.Fprintf(f, "credential %s", c.Name) }

// LogValue logs a credential by name only.
func (c Credential) LogValue() slog.Value { return slog.StringValue("credential " + c.Name) }

// Policy says where, by whom and how a credential may be filled. Deny by
// default: empty lists allow nothing.
type Policy struct {
	// Origins are exact origins (scheme://host[:port]): https, or http on
	// loopback only (127.0.0.1, ::1, localhost).
	Origins       []string `json:"origins"`
	Personalities []string `json:"personalities"`
	// Unattended lets an agent fill the credential with no human present.
	Unattended bool `json:"unattended"`
	// MaskUsername makes a filled username a secret of the session too
	// (masked like the password). Off by default: a username is usually
	// shown by the site itself ("Welcome back, ada"), and the agent needs
	// to read that.
	MaskUsername bool `json:"mask_username,omitempty"`
}

// Info is what may be shown about a credential: its name, policy and
// whether it has a TOTP seed. Never a value.
type Info struct {
	Name    string `json:"name"`
	Policy  Policy `json:"policy"`
	HasTOTP bool   `json:"has_totp"`
	Updated string `json:"updated,omitempty"`
}

// Info returns what may be shown about c.
func (c Credential) Info() Info {
	return Info{Name: c.Name, Policy: c.Policy, HasTOTP: c.TOTP != nil, Updated: c.Updated}
}

var nameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$`)

// ValidName checks a credential name.
func ValidName(name string) error {
	if !nameRe.MatchString(name) {
		return fmt.Errorf("credential name %q: use 1 to 64 letters, digits, '.', '_', '@' or '-', starting with a letter or digit", name)
	}
	return nil
}

// Validate checks a credential before it is stored. Messages name fields,
// never values.
func (c *Credential) Validate() error {
	if err := ValidName(c.Name); err != nil {
		return err
	}
	if c.Username == "" && c.Password == "" {
		return fmt.Errorf("credential %s: a username or a password is needed", c.Name)
	}
	if strings.ContainsAny(string(c.Username)+string(c.Password), "\n\r") {
		return fmt.Errorf("credential %s: username and password must be one line each", c.Name)
	}
	if c.TOTP != nil {
		if err := c.TOTP.Validate(); err != nil {
			return fmt.Errorf("credential %s: %w", c.Name, err)
		}
	}
	for i, o := range c.Policy.Origins {
		n, err := NormalizeOrigin(o)
		if err != nil {
			return fmt.Errorf("credential %s: %w", c.Name, err)
		}
		c.Policy.Origins[i] = n
	}
	c.Policy.Origins = sortedUnique(c.Policy.Origins)
	for _, p := range c.Policy.Personalities {
		if !abi.ValidID(p) {
			return fmt.Errorf("credential %s: personality %q: use letters, digits, _ and - only", c.Name, p)
		}
	}
	c.Policy.Personalities = sortedUnique(c.Policy.Personalities)
	return nil
}

// NormalizeOrigin checks an allowed origin and returns it in the form the
// page's origin is compared with (weborigin.Parse: lower-case scheme and
// host, punycode, no default port, nothing after the host). https only,
// but http on loopback.
func NormalizeOrigin(o string) (string, error) {
	origin, err := weborigin.Parse(o)
	if err != nil {
		return "", err
	}
	u, _ := url.Parse(origin)
	switch u.Scheme {
	case "https":
	case "http":
		if !Loopback(u.Hostname()) {
			return "", fmt.Errorf("origin %q: http is allowed only on loopback (127.0.0.1, ::1, localhost); use https", o)
		}
	default:
		return "", fmt.Errorf("origin %q: only https origins (or http on loopback) are allowed", o)
	}
	return origin, nil
}

// Loopback reports whether host is 127.0.0.1, ::1 or localhost.
func Loopback(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	return h == "localhost" || h == "127.0.0.1" || h == "::1"
}

// OriginOf is the origin of a page or frame URL (weborigin.Of); "null"
// for anything that is not http(s) (about:blank, data:, srcdoc frames),
// which matches no allowed origin.
func OriginOf(raw string) string { return weborigin.Of(raw) }

func sortedUnique(s []string) []string {
	sort.Strings(s)
	out := s[:0]
	for i, v := range s {
		if i == 0 || v != s[i-1] {
			out = append(out, v)
		}
	}
	return out
}

// originAllowed reports whether origin is one of allowed. An allowed
// origin is normalised again, so one stored before origins were
// normalised (in Unicode, say) matches the page's punycode host.
func originAllowed(allowed []string, origin string) bool {
	for _, a := range allowed {
		if n, err := weborigin.Parse(a); a == origin || (err == nil && n == origin) {
			return true
		}
	}
	return false
}

// MaskedKinds are the parts of a credential filled under policy p that
// become the session's secrets: hidden in every later result by the
// masker, and in screenshots and PDFs by the browser. This is the one
// place that decides it. Passwords and TOTP codes always; the username
// only when the policy says MaskUsername.
func MaskedKinds(p Policy) map[string]bool {
	return map[string]bool{"username": p.MaskUsername, "password": true, "totp": true}
}
