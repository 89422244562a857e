package host

import (
	"context"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/sandbox"
)

// The same fix is on branch i11risk (59da2de, in host/risk.go): when both
// are merged, delete this file.

// noDesk stands in for the desk when no operator surface runs: the browser
// plugin imports ww_takeover_request and must still link (its takeover
// tool is denied, link); a call that reaches it anyway is not_available.
type noDesk struct{}

func (noDesk) HostFuncs() []sandbox.HostFunc {
	return []sandbox.HostFunc{
		hostfuncs.JSON(abi.HostTakeoverRequest, func(context.Context, *hostfuncs.Caller, abi.TakeoverRequest) (*abi.TakeoverResponse, error) {
			return nil, abi.Errorf(abi.CodeNotAvailable, "no operator console runs, so nobody can take over the browser: report the blockage to the user")
		}),
	}
}
func (noDesk) CloseSession(string, string) error { return nil }
func (noDesk) Close(context.Context) error       { return nil }
