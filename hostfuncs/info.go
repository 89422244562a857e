package hostfuncs

import (
	"context"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/sandbox"
)

// Info is ww_host_info: who is calling. It needs no grant.
func Info() sandbox.HostFunc {
	return JSON(abi.HostInfo, func(ctx context.Context, c *Caller, _ abi.Empty) (abi.HostInfoResponse, error) {
		return abi.HostInfoResponse{
			ABI: abi.Version(), Host: "wasmwright",
			Personality: c.Personality(), Session: c.Session(), Grants: c.Grants().Sorted(),
		}, nil
	})
}
