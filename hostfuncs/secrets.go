package hostfuncs

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"net/url"
	"sync"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/sandbox"
)

// Secrets remembers, per (personality, session), every secret value that
// entered the session: filled by the vault or typed into a password field.
// The masker plugin reads them through ww_secrets_mask_values (grant
// secrets.mask), and the host checks every outgoing result against them.
type Secrets struct {
	mu     sync.RWMutex
	values map[[2]string]map[string]bool
}

// NewSecrets returns an empty store.
func NewSecrets() *Secrets { return &Secrets{values: map[[2]string]map[string]bool{}} }

// Add records a value for a session. Empty and one-character values are
// ignored: masking them would shred every result.
func (s *Secrets) Add(personality, session, value string) {
	if len(value) < 2 {
		return
	}
	k := [2]string{personality, session}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.values[k] == nil {
		s.values[k] = map[string]bool{}
	}
	s.values[k][value] = true
}

// Values lists a session's values, longest first so that a masker replacing
// in order never leaves the tail of a longer value behind.
func (s *Secrets) Values(personality, session string) []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	m := s.values[[2]string{personality, session}]
	out := make([]string, 0, len(m))
	for v := range m {
		out = append(out, v)
	}
	sortLongestFirst(out)
	return out
}

// Carried names the form in which req holds one of a session's values
// (raw, json, url, base64, hex), or returns "" when it holds none. The
// check is for honest mistakes and plain copying; a plugin that transforms
// a value first (reversed, split) is not caught: see docs/security.md's threat
// model. Values that appear in from (what the agent itself sent) are
// skipped: the agent may repeat what it wrote.
func (s *Secrets) Carried(personality, session string, req, from []byte) string {
	s.mu.RLock()
	m := s.values[[2]string{personality, session}]
	if len(m) == 0 || len(req) == 0 {
		s.mu.RUnlock()
		return ""
	}
	values := make([]string, 0, len(m))
	for v := range m {
		values = append(values, v)
	}
	s.mu.RUnlock()
	low := bytes.ToLower(req)
	for _, v := range values {
		esc, _ := json.Marshal(v)
		if bytes.Contains(from, esc[1:len(esc)-1]) {
			continue
		}
		forms := [][2]string{
			{"raw", v},
			{"json", string(esc[1 : len(esc)-1])},
			{"url", url.QueryEscape(v)},
			{"url", url.PathEscape(v)},
			{"base64", base64.StdEncoding.EncodeToString([]byte(v))},
			{"base64", base64.RawURLEncoding.EncodeToString([]byte(v))},
		}
		for _, f := range forms {
			if bytes.Contains(req, []byte(f[1])) {
				return f[0]
			}
		}
		// Percent and hex encodings come in either case.
		for _, f := range []string{url.QueryEscape(v), url.PathEscape(v), hex.EncodeToString([]byte(v))} {
			if bytes.Contains(low, bytes.ToLower([]byte(f))) {
				return "url/hex"
			}
		}
	}
	return ""
}

// Forget drops a session's values (the session closed).
func (s *Secrets) Forget(personality, session string) {
	s.mu.Lock()
	delete(s.values, [2]string{personality, session})
	s.mu.Unlock()
}

func sortLongestFirst(v []string) {
	for i := 1; i < len(v); i++ {
		for j := i; j > 0 && (len(v[j]) > len(v[j-1]) || len(v[j]) == len(v[j-1]) && v[j] < v[j-1]); j-- {
			v[j], v[j-1] = v[j-1], v[j]
		}
	}
}

// MaskValues is ww_secrets_mask_values. Grant: secrets.mask, and only
// while the caller runs as the mask hook. A masker only ever gets the
// values of the session it is masking.
func (s *Secrets) MaskValues() sandbox.HostFunc {
	return JSON(abi.HostSecretsMaskValues, func(ctx context.Context, c *Caller, req abi.SecretsMaskValuesRequest) (abi.SecretsMaskValuesResponse, error) {
		if c.Hook() != abi.HookMask {
			return abi.SecretsMaskValuesResponse{}, abi.Errorf(abi.CodeRefused, "plugin %s asked for secret values outside a mask hook: only the masker, while masking a result, may read them", c.Plugin())
		}
		if req.Session != "" && req.Session != c.Session() {
			return abi.SecretsMaskValuesResponse{}, abi.Errorf(abi.CodeRefused, "a masker may read only the session it masks (%q), not %q", c.Session(), req.Session)
		}
		return abi.SecretsMaskValuesResponse{Values: s.Values(c.Personality(), c.Session())}, nil
	})
}
