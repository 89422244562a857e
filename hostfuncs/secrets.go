package hostfuncs

import (
	"context"
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
		if c.Hook != abi.HookMask {
			return abi.SecretsMaskValuesResponse{}, abi.Errorf(abi.CodeRefused, "plugin %s asked for secret values outside a mask hook: only the masker, while masking a result, may read them", c.Plugin)
		}
		if req.Session != "" && req.Session != c.Session {
			return abi.SecretsMaskValuesResponse{}, abi.Errorf(abi.CodeRefused, "a masker may read only the session it masks (%q), not %q", c.Session, req.Session)
		}
		return abi.SecretsMaskValuesResponse{Values: s.Values(c.Personality, c.Session)}, nil
	})
}
