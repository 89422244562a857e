package host

import (
	"encoding/json"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"sync"

	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/hostfuncs/vault"
)

// The one mask for every string that leaves the host to a person rather
// than to the agent: approval questions (the page's title, an element's
// name and text, its URL), a takeover's reason (the agent's words) and
// the event log. Tool results have their masker plugin and the host's
// check after it; these strings never pass the result pipeline, so the
// host masks them itself, with the same values and more: the session's
// secrets (filled or typed) and every value the vault stores, which the
// page or the agent may echo without the session having filled it.

// maskMark is what a masked value shows as (the masker plugin's mark).
const maskMark = "••••••"

// masker masks with the session's secrets and, once the vault service
// is open, every value the vault stores.
type masker struct {
	secrets *hostfuncs.Secrets
	// vault is the vault's store, nil until the vault service opens;
	// warn logs once that it could not be read.
	vault *vault.Store
	warn  sync.Once
	log   *slog.Logger
}

// text hides every secret value of the session in s, raw or in the
// encodings a URL or a JSON string gives it. ok is false when the vault
// could not be read: its values are unknown, and the caller withholds s.
func (m *masker) text(personality, session, s string) (string, bool) {
	values, ok := m.values(personality, session)
	return maskValues(s, values), ok
}

// values are the session's secrets and the vault's stored values,
// longest first (a longer value is masked before a value inside it).
func (m *masker) values(personality, session string) ([]string, bool) {
	values := m.secrets.Values(personality, session)
	ok := true
	if st := m.vault; st != nil {
		stored, err := st.Values()
		if err != nil {
			m.warn.Do(func() {
				m.log.Warn("the vault could not be read to mask what people are shown: an agent's words are withheld from them, events are masked for the session's secrets only", "err", err)
			})
			ok = false
		}
		for _, v := range stored {
			if len(v) >= 2 { // as hostfuncs.Secrets.Add: shorter would shred every text
				values = append(values, v)
			}
		}
		slices.SortFunc(values, func(a, b string) int { return len(b) - len(a) })
	}
	return values, ok
}

// maskValues replaces each value in s, in every form it is checked in.
func maskValues(s string, values []string) string {
	for _, v := range values {
		esc, _ := json.Marshal(v)
		for _, form := range []string{v, string(esc[1 : len(esc)-1]), url.QueryEscape(v), url.PathEscape(v)} {
			if form != "" {
				s = strings.ReplaceAll(s, form, maskMark)
			}
		}
	}
	return s
}

// event masks an event's data for its session: the event log is read
// by people (the console's tail, the events file). Data that masking
// would make invalid JSON (a value spanning its structure) is withheld.
func (m *masker) event(e hostfuncs.Event) hostfuncs.Event {
	if len(e.Data) == 0 {
		return e
	}
	values, _ := m.values(e.Personality, e.Session)
	if len(values) == 0 {
		return e
	}
	masked := maskValues(string(e.Data), values)
	if masked == string(e.Data) {
		return e
	}
	if !json.Valid([]byte(masked)) {
		masked = `{"withheld":"the event's data held a secret value and could not be masked"}`
	}
	e.Data = json.RawMessage(masked)
	return e
}
