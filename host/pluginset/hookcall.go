package pluginset

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/sandbox"
)

// The live hook-call path: every result-hook call, the kernel's pipeline's
// and the self-test's, goes through CallHook; the kernel reports each live
// call's outcome to HookResult, which rolls a failing version back
// (rollback.go).

// CallHook runs one hook call through call (which runs plug) under
// timeout (host.hook_timeout), and checks the answer: invalid JSON, or an error code
// outside abi's closed set, is a failed hook call, never a pass.
func CallHook(ctx context.Context, d time.Duration, plug *sandbox.Plugin, req *abi.HookRequest, call func(context.Context, []byte) ([]byte, error)) (*abi.HookResponse, *abi.Error) {
	// A detector reads the page's HTML and text, up to [browser]
	// detect_max_mb each: one that asks for them raw (abi.FeatureRawPage)
	// gets them outside the JSON, which it would otherwise spend most of
	// its time decoding.
	in, err := abi.EncodeHookRequest(req, req.Role == abi.HookDetect && plug.HasFeature(abi.FeatureRawPage))
	if err != nil {
		return nil, abi.Errorf(abi.CodeExecutionFailed, "encoding hook request: %v", err)
	}
	out, err := call(sandbox.WithTimeout(ctx, d), in)
	if err != nil {
		e := abi.AsError(err)
		if e.Code == abi.CodeTimeout && ctx.Err() == nil {
			e = abi.Errorf(abi.CodeTimeout, "the %s hook of plugin %s did not answer within host.hook_timeout (%s) and was stopped", req.Role, plug.Name, d)
		}
		return nil, e
	}
	var resp abi.HookResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		return nil, abi.Errorf(abi.CodePluginFailed, "hook plugin %s returned invalid JSON: %v", plug.Name, err)
	}
	if resp.Error != nil && !resp.Error.Code.Known() {
		code := capBytes(string(resp.Error.Code), 64)
		if req.Role == abi.HookMask {
			code = "(withheld)" // a masker's words may hold secret values
		}
		return nil, abi.Errorf(abi.CodePluginFailed, "hook plugin %s answered with error code %q, which is not one of abi's codes: treated as a failed hook call", plug.Name, code)
	}
	return &resp, nil
}

// capBytes shortens an answer a plugin may have made up before it reaches
// a message (the kernel's events.go caps the same way).
func capBytes(s string, n int) string {
	if len(s) > n {
		return strings.ToValidUTF8(s[:n], "") + "…"
	}
	return s
}
