package live

import (
	"strings"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/wait"
)

// Operator input kinds (Input.Kind).
const (
	Click    = "click"
	Scroll   = "scroll"
	Type     = "type"
	Key      = "key"
	Navigate = "navigate"
	Back     = "back"
)

// Input is one action of an operator on the live view. X and Y are CSS
// pixels of the viewport (a frame's Width and Height).
type Input struct {
	Kind   string  `json:"kind"`
	X      float64 `json:"x,omitempty"`
	Y      float64 `json:"y,omitempty"`
	DX     float64 `json:"dx,omitempty"`
	DY     float64 `json:"dy,omitempty"`
	Text   string  `json:"text,omitempty"`
	Key    string  `json:"key,omitempty"`
	URL    string  `json:"url,omitempty"`
	Button string  `json:"button,omitempty"`
}

// Input plays an operator's action on the session's current tab, bounded.
// What the operator types into a secret field becomes a session secret, as
// the agent's typing does: after each key or text the focused field is
// read, in whichever frame it is, and its value held (Tabs.Focused) until
// the typing ends; an input that can submit the form or leave the field
// ends it first (endsTyping, Tabs.Settle), so the value is a secret before
// any request carries it.
func (v *View) Input(personality, session string, in Input) error {
	p := v.tabs.Current(personality, session)
	if p == nil {
		return abi.Errorf(abi.CodeNoSession, "the session %s/%s has no open page", personality, session)
	}
	if len(in.Text) > 4096 || len(in.Key) > 64 || len(in.URL) > 8192 {
		return abi.Errorf(abi.CodeInputInvalid, "operator input too long: type at most 4096 bytes at once")
	}
	do, err := v.action(p, in)
	if err != nil {
		return err
	}
	if endsTyping(in) {
		v.tabs.Settle(personality, session)
	}
	unlock := v.locks.hold(personality, session) // not while a concealed capture hides fields
	err = wait.Bounded(v.tabs.NavigationWait()+operatorWait, do)
	unlock()
	if err != nil {
		return abi.Errorf(abi.CodeExecutionFailed, "the page did not take the operator's %s: %v", in.Kind, err)
	}
	if in.Kind == Type || in.Kind == Key || in.Kind == Click {
		v.tabs.Focused(personality, session, p, in.Kind == Click)
	}
	return nil
}

// action is what in does on p; a URL to open is checked first.
func (v *View) action(p pw.Page, in Input) (func() error, error) {
	switch in.Kind {
	case Click:
		return func() error { return p.Mouse().Click(in.X, in.Y) }, nil
	case Scroll:
		return func() error {
			if err := p.Mouse().Move(in.X, in.Y); err != nil {
				return err
			}
			return p.Mouse().Wheel(in.DX, in.DY)
		}, nil
	case Type:
		return func() error { return p.Keyboard().InsertText(in.Text) }, nil
	case Key:
		return func() error { return p.Keyboard().Press(in.Key) }, nil
	case Navigate:
		u, err := v.tabs.CheckURL(in.URL)
		if err != nil {
			return nil, err
		}
		return func() error {
			_, err := p.Goto(u, pw.PageGotoOptions{Timeout: pw.Float(float64(v.tabs.NavigationWait().Milliseconds()))})
			return err
		}, nil
	case Back:
		return func() error { _, err := p.GoBack(); return err }, nil
	}
	return nil, abi.Errorf(abi.CodeInputInvalid, "unknown operator input %q: use click, scroll, type, key, navigate or back", in.Kind)
}

// endsTyping reports whether in may end the operator's typing in a field:
// anything but text, scrolling and keys that edit in place (Backspace,
// arrows...). Enter submits a form, Tab and a click move the focus.
func endsTyping(in Input) bool {
	switch in.Kind {
	case Type, Scroll:
		return false
	case Key:
		last := in.Key[strings.LastIndexByte(in.Key, '+')+1:]
		return strings.Contains(in.Key, "+") || last == "Enter" || last == "NumpadEnter" || last == "Tab" || last == "Escape"
	}
	return true
}
