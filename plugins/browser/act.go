package main

import (
	"fmt"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
	sdk "github.com/wasmwright/wasmwright/plugin-sdk"
)

// Interaction: acting on refs (click, type, fill, press, hover, scroll,
// select, drag, upload) and answering dialogs.

func actResult(verb string, r abi.BrowserActResponse) *abi.Result {
	text := verb
	if r.Detail != "" {
		text += " (" + r.Detail + ")"
	}
	text += "."
	if r.Navigated {
		text += " The page navigated."
	}
	res := result(text, r.State, r.Snapshot)
	res.Page = r.Page
	return res
}

type ClickArgs struct {
	Ref       string   `json:"ref,omitempty" desc:"the element's ref from the latest snapshot"`
	Double    bool     `json:"double,omitempty" desc:"double-click"`
	Button    string   `json:"button,omitempty" enum:"left|right|middle" desc:"mouse button (default left)"`
	Modifiers []string `json:"modifiers,omitempty" desc:"keys held during the click: Alt, Control, ControlOrMeta, Meta, Shift"`
	X         *float64 `json:"x,omitempty" desc:"viewport x, only when the element has no ref"`
	Y         *float64 `json:"y,omitempty" desc:"viewport y, only when the element has no ref"`
	SnapshotMode
}

func click(c *sdk.Call, in ClickArgs) (*abi.Result, error) {
	a := abi.ActClick
	verb := "Clicked"
	if in.Double {
		a, verb = abi.ActDblClick, "Double-clicked"
	}
	r, err := sdk.BrowserAct(abi.BrowserActRequest{Action: a, Ref: in.Ref, X: in.X, Y: in.Y, Button: in.Button, Modifiers: in.Modifiers, NoSnapshot: in.none()})
	if err != nil {
		return nil, err
	}
	return actResult(verb+" "+target(in.Ref, in.X, in.Y), r), nil
}

func target(ref string, x, y *float64) string {
	if ref != "" {
		return ref
	}
	if x != nil && y != nil {
		return fmt.Sprintf("at (%.0f, %.0f)", *x, *y)
	}
	return ""
}

type TypeArgs struct {
	Ref    string `json:"ref" desc:"the text field's ref from the latest snapshot"`
	Text   string `json:"text" desc:"the text to type"`
	Append bool   `json:"append,omitempty" desc:"add to the current text instead of replacing it"`
	Submit bool   `json:"submit,omitempty" desc:"press Enter afterwards"`
	Slowly bool   `json:"slowly,omitempty" desc:"type key by key, for fields that react to each key"`
	SnapshotMode
}

func typeText(c *sdk.Call, in TypeArgs) (*abi.Result, error) {
	a := abi.ActFill
	if in.Slowly {
		a = abi.ActType
	}
	r, err := sdk.BrowserAct(abi.BrowserActRequest{Action: a, Ref: in.Ref, Text: in.Text, Append: in.Append, Submit: in.Submit, NoSnapshot: in.none()})
	if err != nil {
		return nil, err
	}
	verb := fmt.Sprintf("Typed %d character(s) into %s", len([]rune(in.Text)), in.Ref)
	if in.Submit {
		verb += " and pressed Enter"
	}
	return actResult(verb, r), nil
}

type FormField struct {
	Ref   string `json:"ref" desc:"the field's ref"`
	Value string `json:"value" desc:"text; true/false for checkbox and radio; an option label for combobox"`
	Kind  string `json:"kind,omitempty" enum:"textbox|checkbox|radio|combobox|slider" desc:"default textbox"`
}

type FillFormArgs struct {
	Fields []FormField `json:"fields" desc:"the fields to fill, in order"`
	SnapshotMode
}

func fillForm(c *sdk.Call, in FillFormArgs) (*abi.Result, error) {
	fields := make([]abi.BrowserFormField, len(in.Fields))
	for i, f := range in.Fields {
		fields[i] = abi.BrowserFormField{Ref: f.Ref, Kind: f.Kind, Value: f.Value}
	}
	r, err := sdk.BrowserFillForm(abi.BrowserFillFormRequest{Fields: fields, NoSnapshot: in.none()})
	if err != nil {
		return nil, err
	}
	r.Detail = ""
	return actResult(fmt.Sprintf("Filled %d field(s)", len(fields)), r), nil
}

type PressArgs struct {
	Key string `json:"key" desc:"a key or chord: Enter, Tab, Escape, ArrowDown, PageDown, Backspace, Control+A..."`
	Ref string `json:"ref,omitempty" desc:"send it to this element (default: the focused one)"`
	SnapshotMode
}

func press(c *sdk.Call, in PressArgs) (*abi.Result, error) {
	r, err := sdk.BrowserAct(abi.BrowserActRequest{Action: abi.ActPress, Key: in.Key, Ref: in.Ref, NoSnapshot: in.none()})
	if err != nil {
		return nil, err
	}
	verb := "Pressed " + in.Key
	if in.Ref != "" {
		verb += " on " + in.Ref
	}
	return actResult(verb, r), nil
}

type HoverArgs struct {
	Ref string   `json:"ref,omitempty" desc:"the element's ref"`
	X   *float64 `json:"x,omitempty" desc:"viewport x, only without a ref"`
	Y   *float64 `json:"y,omitempty" desc:"viewport y, only without a ref"`
	SnapshotMode
}

func hover(c *sdk.Call, in HoverArgs) (*abi.Result, error) {
	r, err := sdk.BrowserAct(abi.BrowserActRequest{Action: abi.ActHover, Ref: in.Ref, X: in.X, Y: in.Y, NoSnapshot: in.none()})
	if err != nil {
		return nil, err
	}
	return actResult("Hovering over "+target(in.Ref, in.X, in.Y), r), nil
}

type ScrollArgs struct {
	Direction string `json:"direction,omitempty" enum:"down|up|left|right" desc:"default down"`
	Amount    int    `json:"amount,omitempty" min:"1" desc:"pixels (default: most of a screen)"`
	Ref       string `json:"ref,omitempty" desc:"scroll this element into view instead"`
	SnapshotMode
}

func scroll(c *sdk.Call, in ScrollArgs) (*abi.Result, error) {
	r, err := sdk.BrowserAct(abi.BrowserActRequest{Action: abi.ActScroll, Direction: in.Direction, Amount: in.Amount, Ref: in.Ref, NoSnapshot: in.none()})
	if err != nil {
		return nil, err
	}
	return actResult("Scrolled", r), nil
}

type SelectArgs struct {
	Ref    string   `json:"ref" desc:"the dropdown's ref"`
	Values []string `json:"values" desc:"option labels or values to select"`
	SnapshotMode
}

func selectOption(c *sdk.Call, in SelectArgs) (*abi.Result, error) {
	r, err := sdk.BrowserAct(abi.BrowserActRequest{Action: abi.ActSelect, Ref: in.Ref, Values: in.Values, NoSnapshot: in.none()})
	if err != nil {
		return nil, err
	}
	return actResult("Selected in "+in.Ref, r), nil
}

type DragArgs struct {
	Ref       string   `json:"ref,omitempty" desc:"the element to drag"`
	TargetRef string   `json:"target_ref,omitempty" desc:"the element to drop it on"`
	X         *float64 `json:"x,omitempty" desc:"start x, only without refs"`
	Y         *float64 `json:"y,omitempty" desc:"start y, only without refs"`
	ToX       *float64 `json:"to_x,omitempty" desc:"end x, only without refs"`
	ToY       *float64 `json:"to_y,omitempty" desc:"end y, only without refs"`
	SnapshotMode
}

func drag(c *sdk.Call, in DragArgs) (*abi.Result, error) {
	r, err := sdk.BrowserAct(abi.BrowserActRequest{Action: abi.ActDrag, Ref: in.Ref, TargetRef: in.TargetRef, X: in.X, Y: in.Y, ToX: in.ToX, ToY: in.ToY, NoSnapshot: in.none()})
	if err != nil {
		return nil, err
	}
	verb := "Dragged " + in.Ref + " onto " + in.TargetRef
	if in.Ref == "" {
		verb = "Dragged " + target("", in.X, in.Y) + " to " + target("", in.ToX, in.ToY)
	}
	return actResult(verb, r), nil
}

type UploadArgs struct {
	Ref   string   `json:"ref" desc:"the file input, or the button that opens the file chooser"`
	Paths []string `json:"paths" desc:"file names in the host's upload folder"`
	SnapshotMode
}

func upload(c *sdk.Call, in UploadArgs) (*abi.Result, error) {
	r, err := sdk.BrowserUpload(abi.BrowserUploadRequest{Ref: in.Ref, Paths: in.Paths, NoSnapshot: in.none()})
	if err != nil {
		return nil, err
	}
	r.Detail = ""
	return actResult(fmt.Sprintf("Uploaded %s", strings.Join(in.Paths, ", ")), r), nil
}

type DialogArgs struct {
	Accept     bool    `json:"accept" desc:"true for OK, false for Cancel"`
	PromptText *string `json:"prompt_text,omitempty" desc:"text to enter into a prompt before accepting"`
	SnapshotMode
}

func dialog(c *sdk.Call, in DialogArgs) (*abi.Result, error) {
	r, err := sdk.BrowserDialog(abi.BrowserDialogRequest{Accept: in.Accept, PromptText: in.PromptText, NoSnapshot: in.none()})
	if err != nil {
		return nil, err
	}
	how := "Dismissed"
	if in.Accept {
		how = "Accepted"
	}
	return result(fmt.Sprintf("%s the %s dialog %q.", how, r.Handled.Type, r.Handled.Message), r.State, r.Snapshot), nil
}
