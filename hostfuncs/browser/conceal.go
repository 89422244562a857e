package browser

import (
	"maps"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
)

// secretValues are the values the caller's session must not show.
func (s *concealer) secretValues(personality, session string) []string {
	if s.opts.SecretValues == nil {
		return nil
	}
	return s.opts.SecretValues(personality, key(personality, session).session)
}

// concealer keeps what a session must not show out of its results: the
// values typed into password inputs, by the agent (keepSecret) or by an
// operator (operatorTyped, settleTyped), go to the masker, and snapshots
// show them as masked (redact).
type concealer struct {
	*env

	typingMu sync.Mutex
	typing   map[sessKey]*operatorTyping
}

// keepSecret hands a value typed or filled into a password field to the
// masker (Options.OnSecret), under the caller's session.
func (s *concealer) keepSecret(c *hostfuncs.Caller, value string) {
	s.keep(c.Personality(), c.Session(), value)
}

// redact replaces the value of every secret field (secretFieldFn: a
// password input, or one the page marks as one, or one a "show password"
// button turned into text) in a snapshot: Playwright prints a filled
// password as the textbox's value. Each textbox
// line that carries a value is checked, all at once (a round trip per
// field, one after another, cost a form-heavy page tens of milliseconds);
// when a check fails the value is redacted anyway. A field in known (by
// ref: plain or not, learned from an earlier snapshot of the same
// document with nothing changed since but focus and values) is not asked
// again. It returns the snapshot redacted and what is known after it:
// known and every field it asked with an answer. Lines are scanned by
// hand (a regexp over a large snapshot cost tens of milliseconds);
// textboxValue is the same rule.
func (s *concealer) redact(t *tab, snap string, known map[string]bool) (string, map[string]bool) {
	fields := valueLines(snap)
	if len(fields) == 0 {
		return snap, known
	}
	// A page that stops answering must not cost a second per textbox: past
	// the deadline every remaining value is redacted without asking.
	deadline := time.Now().Add(s.cfg.actionWait())
	plain := make([]bool, len(fields))
	answered := make([]bool, len(fields))
	var wg sync.WaitGroup
	slots := make(chan struct{}, 16)
	for i, f := range fields {
		if p, ok := known[f.ref]; ok {
			plain[i] = p
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			// Each check may take what is left of the deadline (stretched
			// with the machine's load): a fixed second per field redacted a
			// plain field of a page that was merely slow to answer.
			left := time.Until(deadline)
			if left <= 0 {
				return
			}
			secretChecks.Add(1)
			v, err := t.page.GetByRef(f.ref).Locator(changeEngine + "=secret").TextContent(
				pw.LocatorTextContentOptions{Timeout: pw.Float(float64(left.Milliseconds()) + 1)})
			answered[i] = err == nil && (v == "plain" || v == "secret")
			plain[i] = answered[i] && v == "plain"
		}()
	}
	wg.Wait()
	// known is shared with the kept snapshot it came from: what was
	// learned goes into a copy.
	learned := known
	for i, f := range fields {
		if !answered[i] {
			continue
		}
		if len(learned) == len(known) {
			learned = make(map[string]bool, len(known)+1)
			maps.Copy(learned, known)
		}
		learned[f.ref] = plain[i]
	}
	var b strings.Builder
	last := 0 // snap[:last] is written to b
	for i, f := range fields {
		if plain[i] {
			continue
		}
		if b.Len() == 0 {
			b.Grow(len(snap))
		}
		b.WriteString(snap[last:f.start])
		b.WriteString(f.head)
		b.WriteString(": " + abi.RedactedValue)
		last = f.end
	}
	if last == 0 {
		return snap, learned
	}
	b.WriteString(snap[last:])
	return b.String(), learned
}

// valueLine is a line of a snapshot that shows a textbox's value:
// snap[start:end], head the line up to the value, ref the field's.
type valueLine struct {
	start, end int
	head, ref  string
}

// valueLines finds the lines of snap that show a textbox's value: the
// textbox's own line, or a "- text:" child of a textbox with children (its
// value when the field also shows a placeholder).
func valueLines(snap string) []valueLine {
	if !strings.Contains(snap, "- textbox") {
		return nil
	}
	var fields []valueLine
	// open is the textbox whose children follow, and openIndent its line's
	// indent.
	open, openIndent := "", 0
	for pos := 0; pos < len(snap); {
		end := strings.IndexByte(snap[pos:], '\n')
		if end < 0 {
			end = len(snap)
		} else {
			end += pos
		}
		line := snap[pos:end]
		indent := len(line) - len(strings.TrimLeft(line, " "))
		if open != "" && indent <= openIndent {
			open = ""
		}
		if head, ref, ok := textboxLine(line); ok {
			fields = append(fields, valueLine{pos, end, head, ref})
		} else if ref, ok := textboxParent(line); ok {
			open, openIndent = ref, indent
		} else if open != "" && strings.HasPrefix(line[indent:], "- text: ") {
			fields = append(fields, valueLine{pos, end, line[:indent+len("- text")], open})
		}
		pos = end + 1
	}
	return fields
}

// secretChecks counts the fields redact asked the page about, for tests.
var secretChecks atomic.Int64

// textboxParent matches a textbox line with a ref and children ("- textbox
// "Name" [ref=e5]:"), whose value, if any, is a child line of its own.
func textboxParent(line string) (ref string, ok bool) {
	rest := strings.TrimSpace(line)
	if !strings.HasPrefix(rest, "- textbox") || !strings.HasSuffix(rest, ":") {
		return "", false
	}
	if after := rest[len("- textbox"):]; after != "" && isWordByte(after[0]) {
		return "", false
	}
	// The last [ref=...]: marks may follow it ("[ref=e5] [focusable]:").
	for i := strings.LastIndex(rest, "[ref="); i >= 0; i = strings.LastIndex(rest[:i], "[ref=") {
		if r, n := refAt(rest[i+len("[ref="):]); n > 0 && strings.HasPrefix(rest[i+len("[ref=")+n:], "]") {
			return r, true
		}
	}
	return "", false
}

// textboxLine matches one snapshot line against textboxValue: a textbox
// with a ref and a value. head is the line up to the value's ": ".
func textboxLine(line string) (head, ref string, ok bool) {
	rest := strings.TrimLeft(line, " \t\f\v\r")
	if !strings.HasPrefix(rest, "- textbox") {
		return "", "", false
	}
	if after := rest[len("- textbox"):]; after != "" && isWordByte(after[0]) {
		return "", "", false
	}
	// The regexp's greedy prefix takes the last [ref=...] that is followed
	// by a colon-free stretch, ": " and at least one character.
	for i := strings.LastIndex(line, "[ref="); i >= 0; i = strings.LastIndex(line[:i], "[ref=") {
		r, n := refAt(line[i+len("[ref="):])
		if n == 0 {
			continue
		}
		tail := line[i+len("[ref=")+n:]
		if !strings.HasPrefix(tail, "]") {
			continue
		}
		tail = tail[1:]
		c := strings.IndexByte(tail, ':')
		if c < 0 || !strings.HasPrefix(tail[c:], ": ") || len(tail) <= c+2 {
			continue
		}
		return line[:len(line)-len(tail)+c], r, true
	}
	return "", "", false
}

func isWordByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// Secret fields. A value typed into a field the page marks as a password
// is a session secret, whoever types it: the agent (typeText, typeAt,
// fillForm) or an operator in the live view (operator.input). The rule and
// the search for the focused field are shared by both.

// secretFieldFn is the rule: an input of type password; one the page marks
// for a password or a one-time code (autocomplete); or a text input named
// for a password (password, passwd, passcode, pwd, pw), which is what a
// "show password" button leaves behind when it turns the type to text (the
// name and id stay).
const secretFieldFn = `function secretField(e) {
	if (!e || e.tagName !== "INPUT") return false;
	const type = String(e.type).toLowerCase();
	if (type === "password") return true;
	const ac = String(e.getAttribute("autocomplete") || "").toLowerCase().split(/\s+/);
	if (ac.includes("current-password") || ac.includes("new-password") || ac.includes("one-time-code")) return true;
	return type === "text" && /pass(word|wd|code)|pwd|(^|[\s_.\-\[])pw($|[\s_.\-\]])/i.test(String(e.name) + " " + String(e.id));
}`

// operatorTyping is what the concealer keeps of an operator's typing in a
// session: the secret field being typed into, with its value so far, and
// the fields seen as secret (so one a "show password" button turned into
// plain text stays secret).
type operatorTyping struct {
	field  *typedField
	secret map[fieldID]bool
}

// fieldID names a field: its frame and its key in the frame.
type fieldID struct {
	frame pw.Frame
	key   string
}

// typedField is a secret field an operator is typing into, and its value
// after the latest keystroke.
type typedField struct {
	id    fieldID
	value string
}

// keep hands value to the masker (Options.OnSecret) as a secret of
// personality's session.
func (s *concealer) keep(personality, session, value string) {
	if value != "" && s.opts.OnSecret != nil {
		s.opts.OnSecret(personality, key(personality, session).session, value)
	}
}

// operatorTyped records what the operator's latest input left in the
// focused element of k's session. A human types a password one key at a
// time, so the value is held until the typing ends (settleTyped) rather
// than kept at each key: every prefix would become a secret, and a two-
// letter prefix masked everywhere shreds every result. Typing moving to
// another field ends the typing in the last one.
func (s *concealer) operatorTyped(k sessKey, f focusedField) {
	s.typingMu.Lock()
	defer s.typingMu.Unlock()
	st := s.typingOf(k)
	id := fieldID{f.frame, f.Key}
	if f.Secret {
		st.remember(id)
	}
	if st.field != nil && st.field.id != id {
		s.keep(k.personality, k.session, st.field.value)
		st.field = nil
	}
	if f.Field && st.secret[id] {
		st.field = &typedField{id: id, value: f.Value}
	}
}

// typingOf is k's typing state, made on first use. typingMu is held.
func (s *concealer) typingOf(k sessKey) *operatorTyping {
	st := s.typing[k]
	if st == nil {
		st = &operatorTyping{secret: map[fieldID]bool{}}
		s.typing[k] = st
	}
	return st
}

// operatorFocused notes that the operator's input focused f (a click): a
// secret field is remembered as one before a "show password" button turns
// it into plain text.
func (s *concealer) operatorFocused(k sessKey, f focusedField) {
	if !f.Field || !f.Secret {
		return
	}
	s.typingMu.Lock()
	defer s.typingMu.Unlock()
	st := s.typingOf(k)
	st.remember(fieldID{f.frame, f.Key})
}

// maxSecretFields bounds the secret fields remembered per session.
const maxSecretFields = 256

// remember marks id as a secret field. Past the bound the oldest
// memories go (all at once): a page with that many password fields is no
// login form, and a field forgotten is still secret while its type is.
func (st *operatorTyping) remember(id fieldID) {
	if len(st.secret) >= maxSecretFields && !st.secret[id] {
		clear(st.secret)
	}
	st.secret[id] = true
}

// settleTyped ends the operator's typing in k's session: the value of the
// secret field typed into becomes a session secret. It runs before
// anything the typing could reach leaves the service: before and after
// every host function call of the session, before an operator input that
// can submit or leave the field (a click, Enter, a navigation), when the
// human hands the session back, and before the session closes.
func (s *concealer) settleTyped(k sessKey) {
	s.typingMu.Lock()
	st := s.typing[k]
	var v string
	if st != nil && st.field != nil {
		v, st.field = st.field.value, nil
	}
	s.typingMu.Unlock()
	s.keep(k.personality, k.session, v)
}

// forgetTyped drops what was kept of k's session's typing (it closed);
// a value still held (typed since settleTyped) becomes a secret first.
func (s *concealer) forgetTyped(k sessKey) {
	s.typingMu.Lock()
	st := s.typing[k]
	delete(s.typing, k)
	s.typingMu.Unlock()
	if st != nil && st.field != nil {
		s.keep(k.personality, k.session, st.field.value)
	}
}
