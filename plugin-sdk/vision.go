package sdk

import "github.com/wasmwright/wasmwright/abi"

// VisionLocate asks the operator's vision model where a described element
// is on the current tab (a set-of-marks screenshot); it does not act. Needs
// vision.
func VisionLocate(req abi.VisionLocateRequest) (abi.VisionLocateResponse, error) {
	return hostCall[abi.VisionLocateResponse](visionLocate, req)
}
