// Finding the focused field in whichever frame holds it: the operator's
// typing into a secret field, and the agent's typing at a point.

package browser

import (
	"time"

	pw "github.com/mxschmitt/playwright-go"
)

// focusedFieldJS answers, in one frame, for the element focused in it when
// the frame's document holds the page's focus (and it is not the frame
// element of a deeper frame, which answers for itself): whether it is a
// text field, whether a secret one, its value, and what names it in the
// frame (its place among the frame's fields, with its name and id). A
// frame that does not hold the focus answers null.
const focusedFieldJS = `() => {
	const secretField = ` + secretFieldFn + `;
	if (!document.hasFocus()) return null;
	let e = document.activeElement, shadow = false;
	while (e && e.shadowRoot && e.shadowRoot.activeElement) { e = e.shadowRoot.activeElement; shadow = true; }
	if (!e || e.tagName === "IFRAME" || e.tagName === "FRAME") return null;
	const field = e.tagName === "INPUT" || e.tagName === "TEXTAREA";
	if (!field) return {field: false, secret: false, value: "", key: ""};
	const at = shadow ? -1 : Array.prototype.indexOf.call(document.querySelectorAll("input, textarea"), e);
	return {field: true, secret: secretField(e), value: String(e.value), key: at + "|" + e.name + "|" + e.id};
}`

// focusedField is the element that holds a page's focus, found in
// whichever frame it is, of any origin: every frame is asked at once.
type focusedField struct {
	frame pw.Frame
	// Field: a text input or textarea; Secret: one the rule marks.
	Field, Secret bool
	Value         string
	// Key names the field within its frame (see focusedFieldJS).
	Key string
}

// focusWait bounds how long a frame is waited for when finding the
// focus: a frame that does not answer (a stuck ad frame) must not hold up
// every key an operator types.
const focusWait = time.Second

// typingFocusWait bounds the wait for the frame an operator is typing a
// secret into: its answer carries the value that becomes the secret, and
// on a loaded machine it came after focusWait, so the secret kept was the
// value one key earlier (the full code then went out unmasked).
const typingFocusWait = 10 * time.Second

// findFocused returns the focused element of p; found is false when no
// frame said it holds the focus, and unsure is set when a frame could not
// be asked or did not answer in time (so the focus may be in it). Every
// frame gets focusWait; typing, when not nil, is the frame of the secret
// field being typed into, which gets typingFocusWait.
func findFocused(p pw.Page, typing pw.Frame) (f focusedField, found, unsure bool) {
	frames := p.Frames()
	type answer struct {
		i      int
		v      any
		failed bool
	}
	answers := make(chan answer, len(frames))
	waitFor := -1
	for i, fr := range frames {
		if typing != nil && fr == typing {
			waitFor = i
		}
		go func() {
			v, err := fr.Evaluate(focusedFieldJS)
			answers <- answer{i, v, err != nil && !fr.IsDetached()}
		}()
	}
	deadline := time.NewTimer(focusWait)
	defer deadline.Stop()
	for range frames {
		var a answer
		select {
		case a = <-answers:
		case <-deadline.C:
			if waitFor < 0 {
				return f, found, true
			}
			unsure = true
			deadline.Reset(typingFocusWait - focusWait)
			select {
			case a = <-answers:
			case <-deadline.C:
				return f, found, true
			}
		}
		if a.i == waitFor {
			waitFor = -1
		}
		unsure = unsure || a.failed
		m, ok := a.v.(map[string]any)
		if !ok || found {
			continue
		}
		f.frame, found = frames[a.i], true
		f.Field, _ = m["field"].(bool)
		f.Secret, _ = m["secret"].(bool)
		f.Value, _ = m["value"].(string)
		f.Key, _ = m["key"].(string)
	}
	return f, found, unsure
}

// typingFrame is the frame of the secret field the operator of k's
// session is typing into, or nil.
func (s *concealer) typingFrame(k sessKey) pw.Frame {
	s.typingMu.Lock()
	defer s.typingMu.Unlock()
	if st := s.typing[k]; st != nil && st.field != nil {
		return st.field.id.frame
	}
	return nil
}
