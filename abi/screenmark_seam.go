package abi

// ScreenMark is one numbered mark of a set-of-marks screenshot.
// SEAM: branch i15marks defines this type; this file goes when it is merged.
type ScreenMark struct {
	Mark int    `json:"mark"`
	Ref  string `json:"ref,omitempty"`
	Role string `json:"role,omitempty"`
	Name string `json:"name,omitempty"`
	Box  [4]int `json:"box"`
}
