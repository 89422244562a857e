// Package hostfuncs holds the kernel's services that plugins reach through
// host functions: one family per file or subpackage (browser, vault,
// network, events). Every host function is wrapped by Guard, which checks
// the calling personality's grant at call time, whatever was checked at
// link time: capabilities are checked where the power is.
package hostfuncs

import (
	"context"
	"encoding/json"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/capability"
	"github.com/wasmwright/wasmwright/sandbox"
)

// Caller is who is calling: set by the host on the context of every plugin
// call, read by host functions.
type Caller struct {
	Personality string
	Session     string
	CallID      string
	Plugin      string
	// Grants are the capabilities this plugin holds under this personality.
	Grants capability.Set
	// Secrets, when set, is the store of the session's secret values: no
	// host function carries one of them out on a plugin's request (Guard).
	Secrets *Secrets
	// AgentInput is what the agent sent this tool call: a value the agent
	// itself wrote (typing a password twice) may travel on.
	AgentInput []byte
	// Takeover says the personality offers browser_request_takeover, so a
	// refusal may tell the agent to call it.
	Takeover bool
	// OriginJudged says the host judged this call's approval by the page it
	// was on: Origin is that page's origin ("" when it had no http(s)
	// page). A host function that acts on the page refuses when the page
	// is on another origin by then (it moved while the call waited).
	OriginJudged bool
	Origin       string
	// NoDetector says the personality has no detect hook: a navigation's
	// page text and HTML, which only a detector reads, are not read.
	NoDetector bool

	// events counts the events emitted in this call; one call's host
	// functions run one at a time, on the plugin's goroutine.
	events int
	// Hook is the pipeline role the plugin runs as (detect, compact, mask),
	// or empty for a tool call.
	Hook abi.HookRole
	// Blobs, when set, is where host functions put large strings they hand
	// this call by reference (Caller.Blob): set only for plugins whose
	// manifest declares abi.FeatureBlobs.
	Blobs *Blobs
}

type callerKey struct{}

// WithCaller returns ctx carrying c.
func WithCaller(ctx context.Context, c *Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the caller in ctx, or nil.
func CallerFrom(ctx context.Context) *Caller {
	c, _ := ctx.Value(callerKey{}).(*Caller)
	return c
}

// Guard wraps fn as the host function name. Before fn runs, the caller's
// grants must hold the capability the name needs (capability.ForHostFunc);
// otherwise the plugin gets a refused error naming the grant. A request that
// holds a secret value of the caller's session, raw or in a common encoding,
// is refused too: a plugin that read one off a page cannot send it on.
func Guard(name string, fn func(ctx context.Context, c *Caller, req []byte) ([]byte, error)) sandbox.HostFunc {
	need, known := capability.ForHostFunc(name)
	return sandbox.HostFunc{Name: name, Fn: func(ctx context.Context, plugin string, req []byte) ([]byte, error) {
		c := CallerFrom(ctx)
		if c == nil {
			return nil, abi.Errorf(abi.CodeRefused, "host function %s called without a caller identity", name)
		}
		if !known {
			return nil, abi.Errorf(abi.CodeRefused, "host function %s has no capability mapping", name)
		}
		if need != "" && !c.Grants.Has(need) {
			return nil, abi.Errorf(abi.CodeRefused, "plugin %s is not granted %s (needed by %s) under personality %s: add it to the personality's grants",
				plugin, need, name, c.Personality).With("missing", string(need))
		}
		if c.Secrets != nil && carriesOut(name) {
			if kind := c.Secrets.Carried(c.Personality, c.Session, req, c.AgentInput); kind != "" {
				return nil, abi.Errorf(abi.CodeRefused, "plugin %s asked %s to carry a secret value of this session (%s); refused: secret values leave the kernel only through browser_fill_credential",
					plugin, name, kind)
			}
		}
		return fn(ctx, c, req)
	}}
}

// carriesOut reports whether a host function's request may hold data the
// host sends somewhere (a page, the network, the event log). Only the
// masker's own function and the vault's fill (names and refs, never values)
// are exempt; a read's request (a ref, a mode) holds no value in practice.
func carriesOut(name string) bool {
	return name != abi.HostSecretsMaskValues && name != abi.HostVaultFill && name != abi.HostInfo
}

// JSON adapts a typed handler to Guard's byte form.
func JSON[Req, Resp any](name string, fn func(ctx context.Context, c *Caller, req Req) (Resp, error)) sandbox.HostFunc {
	return Guard(name, func(ctx context.Context, c *Caller, raw []byte) ([]byte, error) {
		var req Req
		if len(raw) > 0 {
			if err := json.Unmarshal(raw, &req); err != nil {
				return nil, abi.Errorf(abi.CodeInputInvalid, "%s: bad request: %v", name, err)
			}
		}
		resp, err := fn(ctx, c, req)
		if err != nil {
			return nil, err
		}
		return json.Marshal(resp)
	})
}
