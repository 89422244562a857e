package sdk

import "github.com/wasmwright/wasmwright/abi"

// RequestTakeover hands the call's browser session to a human operator and
// blocks until it settles: the response says whether the browser was
// handed back; a timeout or a closed session is an error. Needs takeover.
func RequestTakeover(req abi.TakeoverRequest) (abi.TakeoverResponse, error) {
	return hostCall[abi.TakeoverResponse](takeoverRequest, req)
}
