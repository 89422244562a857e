package main

import (
	"fmt"

	"github.com/wasmwright/wasmwright/abi"
	sdk "github.com/wasmwright/wasmwright/plugin-sdk"
)

// vision is the capability of the vision tools. The host offers them only
// when the operator configured a vision model ([vision] endpoint).
const vision = "vision"

func init() {
	sdk.Needs(vision)
	sdk.Tool("browser_vision_click", descVisionClick, visionClick, sdk.Requires(vision, act), sdk.Title("Click what a vision model finds"))
	sdk.Tool("browser_vision_type", descVisionType, visionType, sdk.Requires(vision, act), sdk.Title("Type where a vision model finds a field"))
}

const visionNote = ` The host sends a screenshot of the viewport, with numbered marks over the elements, and your description to the operator's vision model, and acts only on an answer it can check: otherwise the call fails and nothing is clicked. Use it when the snapshot does not show the element (a canvas, a custom widget); prefer refs from browser_snapshot when it does. Pages holding a filled password or credential are not sent. The result says what was acted on (mark, ref when the element has one, box, point) and returns the new snapshot.`

const descVisionClick = `Click an element you describe in words ("the red Delete button of the second row", "the Play triangle on the video"), found on the screen by a vision model.` + visionNote

const descVisionType = `Type text into a field you describe in words ("the search box at the top", "the amount field of the payment form"), found on the screen by a vision model. The field's current text is replaced unless append is set; submit presses Enter afterwards.` + visionNote

type VisionClickArgs struct {
	Description string `json:"description" desc:"the element to click, as a person would describe it on screen"`
	SnapshotMode
}

type VisionTypeArgs struct {
	Description string `json:"description" desc:"the text field to type into, as a person would describe it on screen"`
	Typing
	SnapshotMode
}

func visionClick(c *sdk.Call, in VisionClickArgs) (*abi.Result, error) {
	loc, err := sdk.VisionLocate(abi.VisionLocateRequest{Description: in.Description, Action: "click"})
	if err != nil {
		return nil, err
	}
	r, err := sdk.BrowserAct(at(loc, abi.BrowserActRequest{Action: abi.ActClick, NoSnapshot: in.none()}))
	if err != nil {
		return nil, err
	}
	return visionResult("Clicked", loc, r, ""), nil
}

func visionType(c *sdk.Call, in VisionTypeArgs) (*abi.Result, error) {
	loc, err := sdk.VisionLocate(abi.VisionLocateRequest{Description: in.Description, Action: "type into"})
	if err != nil {
		return nil, err
	}
	r, err := sdk.BrowserAct(at(loc, abi.BrowserActRequest{Action: abi.ActFill, Text: in.Text, Append: in.Append, Submit: in.Submit, NoSnapshot: in.none()}))
	if err != nil {
		return nil, err
	}
	after := ""
	if in.Submit {
		after = ", then pressed Enter"
	}
	return visionResult(fmt.Sprintf("Typed %d character(s) into", len([]rune(in.Text))), loc, r, after), nil
}

// at aims req at the located element: its ref when the mark has one (the
// host's checks of a ref apply), the point otherwise.
func at(loc abi.VisionLocateResponse, req abi.BrowserActRequest) abi.BrowserActRequest {
	if loc.Ref != "" {
		req.Ref = loc.Ref
		return req
	}
	x, y := loc.X, loc.Y
	req.X, req.Y = &x, &y
	return req
}

// visionResult says what was acted on and what the model answered; Data
// carries the same as JSON.
func visionResult(verb string, loc abi.VisionLocateResponse, r abi.BrowserActResponse, after string) *abi.Result {
	what := fmt.Sprintf("the point (%.0f, %.0f)", loc.X, loc.Y)
	if loc.Mark != 0 {
		what = fmt.Sprintf("mark %d", loc.Mark)
		if loc.Ref != "" {
			what += " (" + loc.Ref + ")"
		}
		if b := loc.Box; b != nil {
			what += fmt.Sprintf(" box %d,%d %dx%d", b[0], b[1], b[2], b[3])
		}
		if loc.Ref == "" {
			what += fmt.Sprintf(" at (%.0f, %.0f)", loc.X, loc.Y)
		}
	}
	res := actResult(verb+" "+what+" as located by the vision model"+after, r)
	return withData(res, struct {
		Mark   int     `json:"mark,omitempty"`
		Ref    string  `json:"ref,omitempty"`
		Box    *[4]int `json:"box,omitempty"`
		X      float64 `json:"x"`
		Y      float64 `json:"y"`
		Answer string  `json:"model_answer"`
		Model  string  `json:"model,omitempty"`
	}{loc.Mark, loc.Ref, loc.Box, loc.X, loc.Y, loc.Answer, loc.Model})
}
