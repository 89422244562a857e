// Package hostfuncs holds the kernel's services that plugins reach through
// host functions: one family per file or subpackage (browser, vault,
// network, events). Every host function is wrapped by Guard, which checks
// the calling personality's grant at call time, whatever was checked at
// link time: capabilities are checked where the power is.
package hostfuncs

import (
	"context"
	"encoding/json"
	"reflect"

	"go.opentelemetry.io/otel/trace"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/capability"
	"github.com/wasmwright/wasmwright/sandbox"
)

// Caller is who is calling: made by the host for every plugin call
// (NewCaller) and read by host functions through its accessors. Its
// fields are unexported so that no host function, in this package or
// another, can change who is calling or what it was granted.
type Caller struct {
	personality, session, callID, plugin string
	grants                               capability.Set
	secrets                              *Secrets
	agentInput                           []byte
	takeover                             bool
	originJudged                         bool
	origin                               string
	bound                                any
	noDetector, markHidden, longTextPage bool
	hook                                 abi.HookRole
	blobs                                *Blobs

	// events counts the events emitted in this call; one call's host
	// functions run one at a time, on the plugin's goroutine.
	events int
}

// CallerInfo is what the host knows of a call when it starts it.
type CallerInfo struct {
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
	// Bound is what the approval was asked for, when the host bound the
	// elements the call acts on (the browser's *Binding): the acting host
	// functions check it instead of the page's origin alone.
	Bound any
	// NoDetector says the personality has no detect hook: a navigation's
	// page text and HTML, which only a detector reads, are not read.
	NoDetector bool
	// LongTextPage says every detect hook of the personality takes a page
	// with a long text for no wall (abi.FeatureLongTextPage): for such a
	// page the text's start is read and the HTML is not.
	LongTextPage bool
	// MarkHidden says the personality asks for hidden text to be marked
	// in its snapshots instead of taken out (hidden_text = "mark").
	MarkHidden bool
	// Hook is the pipeline role the plugin runs as (detect, compact, mask),
	// or empty for a tool call.
	Hook abi.HookRole
	// Blobs, when set, is where host functions put large strings they hand
	// this call by reference (Caller.Blob): set only for plugins whose
	// manifest declares abi.FeatureBlobs.
	Blobs *Blobs
}

// NewCaller returns the caller in, holding its own copies of the grants
// and the agent's input: changing in afterwards changes nothing.
func NewCaller(in CallerInfo) *Caller {
	grants := make(capability.Set, len(in.Grants))
	for id, ok := range in.Grants {
		if ok {
			grants[id] = true
		}
	}
	return &Caller{
		personality: in.Personality, session: in.Session, callID: in.CallID, plugin: in.Plugin,
		grants: grants, secrets: in.Secrets, agentInput: append([]byte(nil), in.AgentInput...),
		takeover: in.Takeover, originJudged: in.OriginJudged, origin: in.Origin, bound: in.Bound,
		noDetector: in.NoDetector, longTextPage: in.LongTextPage, markHidden: in.MarkHidden, hook: in.Hook, blobs: in.Blobs,
	}
}

// Personality is the personality the call runs under.
func (c *Caller) Personality() string { return c.personality }

// Session is the caller's session (its browser session, its secrets).
func (c *Caller) Session() string { return c.session }

// CallID names this call in the event log.
func (c *Caller) CallID() string { return c.callID }

// Plugin is the calling plugin's name.
func (c *Caller) Plugin() string { return c.plugin }

// Has reports whether the plugin holds capability id under this
// personality.
func (c *Caller) Has(id capability.ID) bool { return c.grants.Has(id) }

// Grants returns a copy of the plugin's capabilities under this
// personality.
func (c *Caller) Grants() capability.Set {
	out := make(capability.Set, len(c.grants))
	for id, ok := range c.grants {
		out[id] = ok
	}
	return out
}

// Secrets is the store of the session's secret values, or nil.
func (c *Caller) Secrets() *Secrets { return c.secrets }

// AgentInput returns a copy of what the agent sent this tool call.
func (c *Caller) AgentInput() []byte { return append([]byte(nil), c.agentInput...) }

// Takeover says the personality offers browser_request_takeover.
func (c *Caller) Takeover() bool { return c.takeover }

// OriginJudged says the call's approval was judged by the page's origin
// (Origin).
func (c *Caller) OriginJudged() bool { return c.originJudged }

// Origin is the origin of the page the approval was judged on.
func (c *Caller) Origin() string { return c.origin }

// Bound is what the approval was asked for (CallerInfo.Bound), or nil.
func (c *Caller) Bound() any { return c.bound }

// NoDetector says the personality has no detect hook.
func (c *Caller) NoDetector() bool { return c.noDetector }

// LongTextPage says every detect hook takes a long-text page for no wall
// (CallerInfo.LongTextPage).
func (c *Caller) LongTextPage() bool { return c.longTextPage }

// MarkHidden says hidden text is marked in snapshots, not taken out.
func (c *Caller) MarkHidden() bool { return c.markHidden }

// Hook is the pipeline role the plugin runs as, or empty for a tool call.
func (c *Caller) Hook() abi.HookRole { return c.hook }

// Blobs is this call's store of large strings, or nil.
func (c *Caller) Blobs() *Blobs { return c.blobs }

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
		if need != "" && !c.Has(need) {
			return nil, abi.Errorf(abi.CodeRefused, "plugin %s is not granted %s (needed by %s) under personality %s: add it to the personality's grants",
				plugin, need, name, c.Personality()).With("missing", string(need))
		}
		if c.Secrets() != nil && carriesOut(name) {
			if kind := c.Secrets().Carried(c.Personality(), c.Session(), req, c.AgentInput()); kind != "" {
				return nil, abi.Errorf(abi.CodeRefused, "plugin %s asked %s to carry a secret value of this session (%s); refused: secret values leave the kernel only through browser_fill_credential",
					plugin, name, kind)
			}
		}
		if sp := trace.SpanFromContext(ctx); sp.IsRecording() {
			return traced(ctx, sp, name, func(ctx context.Context) ([]byte, error) { return fn(ctx, c, req) })
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
	f := Guard(name, func(ctx context.Context, c *Caller, raw []byte) ([]byte, error) {
		var req Req
		if len(raw) > 0 {
			if err := json.Unmarshal(raw, &req); err != nil {
				return nil, abi.Errorf(abi.CodeInputInvalid, "%s: bad request: %v", name, err)
			}
		}
		if err := CheckEnums(&req); err != nil {
			return nil, err
		}
		resp, err := fn(ctx, c, req)
		if err != nil {
			return nil, err
		}
		return json.Marshal(resp)
	})
	f.Request, f.Response = reflect.TypeFor[Req](), reflect.TypeFor[Resp]()
	return f
}
