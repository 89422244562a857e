package abi

// HostVisionLocate asks the operator's vision model where an element is on
// the current tab: the host takes a screenshot of the viewport with
// numbered marks over the candidate targets (set-of-marks), sends it with
// the legend and the description, and returns the model's answer checked
// against the legend and the viewport. It does not act: the plugin clicks
// the answer's ref, or its point. Grant: vision.
//
// A page holding a filled secret (a credential value, a typed password) is
// not sent unless the personality allows it (vision_allow_secrets): refused.
// A model that answers nothing usable fails with execution_failed; a model
// that does not answer in time with timeout; an endpoint the personality's
// network policy does not reach with refused.
const HostVisionLocate = "ww_vision_locate"

// VisionLocateRequest describes the element to find.
type VisionLocateRequest struct {
	// Description is what to find, in the agent's words ("the blue Save
	// button").
	Description string `json:"description"`
	// Action is what will be done there (click, type): it goes to the model
	// as context.
	Action string `json:"action,omitempty"`
}

// VisionLocateResponse is where the model says the element is. Mark is the
// mark it chose (0 when it answered a point); Ref is that mark's element ref
// when it has one; Box is the mark's box (x, y, width, height in viewport
// CSS pixels); X, Y is the point to act on: the centre of the box, or the
// point the model gave.
type VisionLocateResponse struct {
	State BrowserState `json:"state"`
	Mark  int          `json:"mark,omitempty"`
	Ref   string       `json:"ref,omitempty"`
	Box   *[4]int      `json:"box,omitempty"`
	X     float64      `json:"x"`
	Y     float64      `json:"y"`
	// Answer is the model's answer as it came (trimmed, capped).
	Answer string `json:"answer"`
	Model  string `json:"model,omitempty"`
}
