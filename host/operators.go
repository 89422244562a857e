package host

import (
	"context"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/sandbox"
)

// noDesk is ww_takeover_request on a host without an operator surface: a
// plugin importing it (the browser plugin) still links, and the call is
// refused. The takeover tool itself is not offered there (link), so only a
// plugin calling the host function directly gets this answer.
func noDesk() sandbox.HostFunc {
	return hostfuncs.JSON(abi.HostTakeoverRequest, func(context.Context, *hostfuncs.Caller, abi.TakeoverRequest) (*abi.TakeoverResponse, error) {
		return nil, abi.Errorf(abi.CodeNotAvailable, "no human can take over here: no operator console runs (serve with [console] enabled to offer takeovers); report the blockage to the user instead")
	})
}
