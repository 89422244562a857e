package main

import (
	"fmt"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
	sdk "github.com/wasmwright/wasmwright/plugin-sdk"
)

// Interaction: acting on refs (click, type, fill, press, hover, scroll,
// select, drag, upload) and answering dialogs. Each tool's description,
// arguments (their struct) and handler stand together below.
func init() {
	sdk.Tool("browser_click", descClick, click, sdk.Requires(act))
	sdk.Tool("browser_type", descType, typeText, sdk.Requires(act))
	sdk.Tool("browser_fill_form", descFillForm, fillForm, sdk.Requires(act))
	sdk.Tool("browser_press", descPress, press, sdk.Requires(act))
	sdk.Tool("browser_hover", descHover, hover, sdk.Requires(act))
	sdk.Tool("browser_scroll", descScroll, scroll, sdk.Requires(act))
	sdk.Tool("browser_select", descSelect, selectOption, sdk.Requires(act))
	sdk.Tool("browser_drag", descDrag, drag, sdk.Requires(act))
	// An upload sets a file input or clicks the control that opens the
	// chooser: an act on the page as well as an upload.
	sdk.Tool("browser_upload", descUpload, upload, sdk.Requires(act), sdk.Risk(abi.RiskUpload), sdk.RiskWhen("ref", abi.RiskAct))
	sdk.Tool("browser_dialog", descDialog, dialog, sdk.Requires(act))
}

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

const descClick = `Click an element by its ref from the latest snapshot. Returns what changed: the page's new snapshot, and the new page's title and status if the click navigated. Set double for a double-click, button "right" for a context menu, modifiers (e.g. ["ControlOrMeta"]) for modified clicks. Only when an element has no ref (a canvas, a map), click viewport coordinates x and y instead (from browser_screenshot). Fails at once with not_interactable if the element is hidden or disabled.` + refNote

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

const descType = `Type text into a text field by ref. By default the field's current text is replaced; set append to add to it. Set submit to press Enter afterwards (search boxes, login forms). slowly types key by key, firing every key event, for fields that react to typing (autocomplete, live search); otherwise the text is filled at once. Password values are never echoed back in results. Returns the new snapshot.` + refNote

type TypeArgs struct {
	Ref string `json:"ref" desc:"the text field's ref from the latest snapshot"`
	Typing
	Slowly bool `json:"slowly,omitempty" desc:"type key by key, for fields that react to each key"`
	SnapshotMode
}

// Typing is what typing into a text field takes, the field found by ref
// (browser_type) or by its description (browser_vision_type).
type Typing struct {
	Text   string `json:"text" desc:"the text to type"`
	Append bool   `json:"append,omitempty" desc:"add to the current text instead of replacing it"`
	Submit bool   `json:"submit,omitempty" desc:"press Enter afterwards"`
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

const descFillForm = `Fill several form fields in one call: each field is a ref, a value, and its kind: "textbox" (default; value is the text), "checkbox" or "radio" (value "true" or "false"), "combobox" (a <select>: the option's label or value), "slider" (the number). Prefer it to one browser_type per field. Does not submit: click the submit button afterwards. Returns the new snapshot.` + refNote

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

const descPress = `Press a key or key chord: "Enter", "Tab", "Escape", "ArrowDown", "PageDown", "Backspace", "Control+A", "Shift+Tab"... With ref the key goes to that element; without, to whatever has focus. Returns the new snapshot.`

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

const descHover = `Move the mouse over an element by ref (or over viewport coordinates x, y) to reveal hover menus and tooltips. Returns the new snapshot with what appeared.` + refNote

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

const descScroll = `Scroll the page: direction "down" (default), "up", "left" or "right" by amount pixels (default: most of a screen), or pass ref to bring that element into view. Returns the new snapshot and the scroll position; use it to load lazy content or infinite lists. You do not need to scroll before clicking a ref: clicks scroll by themselves.`

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

const descSelect = `Choose options in a dropdown (<select>) by ref: values are the options' visible labels or their values; give several for a multi-select. Returns the selected values and the new snapshot.` + refNote

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

const descDrag = `Drag one element onto another: ref is what to drag, target_ref where to drop it (sortable lists, kanban cards, sliders, drop zones). Without refs, drag from viewport point (x, y) to (to_x, to_y). Returns the new snapshot.` + refNote

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

const descUpload = `Upload files into a file field. ref is the file input, or the button that opens the file chooser. paths are names of files in the host's upload folder (the only place files can come from; anything else fails with path_refused). Returns the new snapshot.` + refNote

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

const descDialog = `Answer the JavaScript dialog (alert, confirm, prompt, beforeunload) that blocks the page. Results tell you when one is open; nothing else can touch the page until it is answered, except leaving it (browser_navigate, browser_back, browser_forward, closing its tab), which dismisses it. accept true presses OK, false presses Cancel; prompt_text is typed into a prompt before accepting. Returns the dialog's message and the page's new snapshot; dialog_gone means none was open.`

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
