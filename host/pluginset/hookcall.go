package pluginset

import (
	"context"
	"strings"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/sandbox"
)

// The live hook-call path: every result-hook call, the kernel's pipeline's
// and the self-test's, goes through CallHook; the kernel reports each live
// call's outcome to HookResult, which rolls a failing version back
// (rollback.go).

// HookLimits bound each hook call by the work it does, not by the seconds
// it takes: a hook must get the same answer on the same page whether the
// machine is idle or busy (RATIONALE.md, "Hook budgets in work").
type HookLimits struct {
	// FuelPerKB is host.hook_fuel_per_kb: the fuel (sandbox/budget.go) a
	// call may use per KiB of its input (Budget).
	FuelPerKB int64
	// Timeout is host.hook_timeout: a wall-clock backstop against a host
	// stuck, never reached by a hook doing its work on a slow machine.
	Timeout time.Duration
}

// HookFuelBaseKB is what every hook input counts beyond its size, in KiB:
// the fixed cost of a call (decoding the request, the Go runtime's first
// garbage collections on a fresh instance; up to 95 M fuel measured on
// the first-party hooks) times the same margin as the per-KiB rate.
const HookFuelBaseKB = 2

// Budget is the fuel a hook call on an input of n bytes may use:
// FuelPerKB × (the input's KiB, rounded up, + HookFuelBaseKB).
func (l HookLimits) Budget(n int) int64 {
	return l.FuelPerKB * (int64(n+1023)/1024 + HookFuelBaseKB)
}

// HookFuelKey names the work budget's setting in errors.
const HookFuelKey = "host.hook_fuel_per_kb"

// CallHook runs one hook call through call (which runs plug) under lim,
// and checks the answer: invalid JSON, or an error code outside abi's
// closed set, is a failed hook call, never a pass. It returns the fuel the
// call used, for the host's log.
func CallHook(ctx context.Context, lim HookLimits, plug *sandbox.Plugin, req *abi.HookRequest, call func(context.Context, []byte) ([]byte, error)) (*abi.HookResponse, int64, *abi.Error) {
	// A detector reads the page's HTML and text, up to [browser]
	// detect_max_mb each: one that asks for them raw (abi.FeatureRawPage)
	// gets them outside the JSON, which it would otherwise spend most of
	// its time decoding.
	raw := abi.RawHookInput(req.Role, plug.HasFeature)
	in, err := abi.EncodeHookRequest(req, raw)
	if err != nil {
		return nil, 0, abi.Errorf(abi.CodeExecutionFailed, "encoding hook request: %v", err)
	}
	fuel := &sandbox.Fuel{Budget: lim.Budget(len(in)), Key: HookFuelKey}
	out, err := call(sandbox.WithFuel(sandbox.WithTimeout(ctx, lim.Timeout), fuel), in)
	if err != nil {
		e := abi.AsError(err)
		switch {
		case e.Code == abi.CodeResourceLimit && fuel.Used >= fuel.Budget:
			e = abi.Errorf(abi.CodeResourceLimit, "the %s hook of plugin %s used its work budget of %d fuel units (%s = %d per KiB of its %d-byte input, plus %d KiB) and was stopped: check it for an endless loop, or raise %s",
				req.Role, plug.Name, fuel.Budget, HookFuelKey, lim.FuelPerKB, len(in), HookFuelBaseKB, HookFuelKey).With("limit", HookFuelKey)
		case e.Code == abi.CodeTimeout && ctx.Err() == nil:
			e = abi.Errorf(abi.CodeTimeout, "the %s hook of plugin %s did not answer within host.hook_timeout (%s), a backstop its work budget never reaches on a slow machine, and was stopped: it waited on the host, or the host is stuck", req.Role, plug.Name, lim.Timeout)
		}
		return nil, fuel.Used, e
	}
	var resp abi.HookResponse
	if err := abi.DecodeHookResponse(out, abi.RawHookAnswer(req.Role, raw), &resp); err != nil {
		return nil, fuel.Used, abi.Errorf(abi.CodePluginFailed, "hook plugin %s returned invalid JSON: %v", plug.Name, err)
	}
	if resp.Error != nil && !resp.Error.Code.Known() {
		code := capBytes(string(resp.Error.Code), 64)
		if req.Role == abi.HookMask {
			code = "(withheld)" // a masker's words may hold secret values
		}
		return nil, fuel.Used, abi.Errorf(abi.CodePluginFailed, "hook plugin %s answered with error code %q, which is not one of abi's codes: treated as a failed hook call", plug.Name, code)
	}
	return &resp, fuel.Used, nil
}

// capBytes shortens an answer a plugin may have made up before it reaches
// a message (the kernel's events.go caps the same way).
func capBytes(s string, n int) string {
	if len(s) > n {
		return strings.ToValidUTF8(s[:n], "") + "…"
	}
	return s
}
