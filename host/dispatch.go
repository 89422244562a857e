package host

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/attribute"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/capability"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/hostfuncs/operator"
	"github.com/wasmwright/wasmwright/internal/spans"
	"github.com/wasmwright/wasmwright/sandbox"
)

// Request is one tool call.
type Request struct {
	Personality string // "" = the default personality
	Session     string // "" = "default"
	Tool        string
	Args        json.RawMessage // a JSON object; empty means {}
}

var callSeq atomic.Uint64

// Call runs a tool under a personality and passes its result through the
// personality's pipeline. The error, when not nil, is an *abi.Error whose
// message is safe to show an agent (it went through the masker too).
func (h *Host) Call(ctx context.Context, req Request) (*abi.Result, error) {
	p, err := h.roster.get(req.Personality)
	if err != nil {
		return nil, err
	}
	if req.Session == "" {
		req.Session = "default"
	}
	if len(bytes.TrimSpace(req.Args)) == 0 {
		req.Args = json.RawMessage(`{}`)
	}
	req.Args = h.baselines.alias(p, req)
	ctx, endSpan := span(h.tracing, ctx, "tool_call", attribute.String("wasmwright.tool", capBytes(req.Tool, 128)), attribute.String("wasmwright.personality", p.name))
	spans.Mark("call " + req.Tool)
	defer spans.Start("h.call")()
	t0 := time.Now()
	h.idle.begin()
	defer h.idle.end()
	p.warm(req.Tool, h.Browser())
	var j judgment
	h.egress.beginCall(p.name, req.Session)
	r, res, err := h.callTool(ctx, p, req, &j)
	res, err = h.egress.attachBlocked(p.name, req.Session, res, err)
	markExternal(operatorBrowser(h.Browser()), p, r, req, res)
	t1 := time.Now()
	res, err = h.pipeline(ctx, p, req, res, err)
	plugin := ""
	if r != nil {
		plugin = r.slot.Name
	}
	h.events.call(p, req, &j, plugin, time.Since(t0), err)
	endSpan(err)
	if h.onCall != nil {
		st := CallStats{Personality: p.name, Session: req.Session, Tool: req.Tool, ToolTime: t1.Sub(t0), Pipeline: time.Since(t1)}
		if err != nil {
			st.Code = abi.AsError(err).Code
		}
		h.onCall(st)
	}
	return res, err
}

// CallStats describes one finished call, for Options.OnCall.
type CallStats struct {
	Personality, Session, Tool string
	// ToolTime is the time in the tool plugin (and the services it called);
	// Pipeline the time in the result hooks and the host's secret check.
	ToolTime, Pipeline time.Duration
	// Code is the error code, empty on success.
	Code abi.Code
}

// callTool runs a tool call on its plugin, once the host has judged it
// (j). The route is nil when the personality has no such tool.
func (h *Host) callTool(ctx context.Context, p *personality, req Request, j *judgment) (*route, *abi.Result, error) {
	defer spans.Start("h.callTool")()
	r, ok := p.tools[req.Tool]
	if !ok {
		if e, denied := p.denied[req.Tool]; denied {
			return nil, nil, e
		}
		return nil, nil, p.unknownTool(req.Tool)
	}
	j.risk = r.spec.Risk
	if err := validateArgs(r, req.Args); err != nil {
		return r, nil, err
	}
	if err := h.approve.gate(p, r, req.Session); err != nil {
		return r, nil, err
	}
	ctx = h.approve.attend(ctx, p, r, req.Args)
	err := h.approve.judge(ctx, p, r, req, j)
	defer j.bound.Release()
	if err != nil {
		return r, nil, err
	}
	callID := fmt.Sprintf("c%d", callSeq.Add(1))
	frame, err := abi.Frame(abi.CallHeader{Tool: req.Tool, Session: req.Session, Personality: p.name, CallID: callID}, req.Args)
	if err != nil {
		return r, nil, abi.Errorf(abi.CodeInputInvalid, "%v", err)
	}
	out, blobs, err := h.invoke(ctx, p, r, req.Session, callID, "", abi.OpCall, frame, j)
	if err != nil {
		return r, nil, err
	}
	var res abi.Result
	if err := json.Unmarshal(out, &res); err != nil {
		return r, nil, abi.Errorf(abi.CodePluginFailed, "plugin %s returned invalid JSON from tool %s (%v): report this to the plugin's author%s", r.plugin.Name, req.Tool, err, cutOutputHint(err))
	}
	blobs.ResolveResult(&res)
	return r, &res, nil
}

// markExternal labels a successful result of a tool that reaches outside
// the host as external content, with its source: the page's URL, or the
// session's current page for a browser tool. A label a plugin set stays.
func markExternal(b operator.Browser, p *personality, r *route, req Request, res *abi.Result) {
	if r == nil || res == nil || !(r.spec.OpenWorld || res.Risk != "" || res.External) {
		return
	}
	res.External = true
	if res.Source != "" {
		return
	}
	if res.Page != nil && res.Page.URL != "" {
		res.Source = res.Page.URL
	} else if b != nil && usesBrowser(r.grants) {
		res.Source = b.PageURL(p.name, req.Session)
	}
}

// invoke calls a plugin with the caller's identity on the context (role is
// the hook it runs as, or empty for a tool call). If the
// version it was routed to was swapped out meanwhile, it retries once on
// the slot's current version. A tool call to a plugin that takes blobs
// (abi.FeatureBlobs) gets a store for them, returned for Resolve.
// j, for a tool call, is how the host judged it: an approval by origin
// travels to the host functions, which check it again before they act.
func (h *Host) invoke(ctx context.Context, p *personality, r *route, session, callID string, role abi.HookRole, op int32, in []byte, j *judgment) (_ []byte, _ *hostfuncs.Blobs, err error) {
	defer spans.Start("h.invoke")()
	info := hostfuncs.CallerInfo{Personality: p.name, Session: session, CallID: callID, Plugin: r.slot.Name, Grants: r.grants, Hook: role, Secrets: h.secrets, Takeover: p.hasTakeover(), NoDetector: len(p.cfg.Hooks.Detect) == 0, LongTextPage: p.longTextDetectors(), MarkHidden: p.cfg.HiddenText == HiddenMark}
	if j != nil {
		info.OriginJudged, info.Origin = j.byOrigin, j.origin
		if j.bound != nil {
			info.Bound = j.bound
		}
	}
	if op == abi.OpCall {
		info.AgentInput = in
	}
	if r.grants.Has(capability.SecretsMask) {
		// It sees secret values: nothing it says reaches the host's log.
		ctx = sandbox.WithQuiet(ctx)
	}
	ctx, endSpan := span(h.tracing, ctx, pluginSpanName(role), attribute.String("wasmwright.plugin", r.slot.Name))
	defer func() { endSpan(err) }()
	plug := r.plugin
	if cur := r.slot.Serving(); cur != nil {
		plug = cur
	}
	// call runs pl with a caller of its own, holding a blob store when pl
	// takes blobs.
	call := func(pl *sandbox.Plugin) ([]byte, *hostfuncs.Blobs, error) {
		info.Blobs = nil
		if op == abi.OpCall && pl.HasFeature(abi.FeatureBlobs) {
			info.Blobs = hostfuncs.NewBlobs()
		}
		out, err := pl.Call(hostfuncs.WithCaller(ctx, hostfuncs.NewCaller(info)), op, in)
		return out, info.Blobs, err
	}
	out, blobs, err := call(plug)
	if err != nil && isRetired(err) {
		if cur := r.slot.Serving(); cur != nil && cur != plug {
			out, blobs, err = call(cur)
		}
	}
	err = h.events.crashed(p.name, session, r.slot.Name, role, err)
	return out, blobs, err
}

// crashed writes a plugin's crash (its panic text, its wasm stack) to the
// event log and returns only what the caller may be told: the code, the
// plugin's name and what to do. Any other error is returned as it is.
func (l *eventLog) crashed(personality, session, plugin string, role abi.HookRole, err error) error {
	var c *sandbox.Crash
	if !errors.As(err, &c) {
		return err
	}
	b, _ := json.Marshal(map[string]string{"hook": string(role), "code": string(c.Err.Code), "detail": capBytes(c.Detail, 4096)})
	l.emit(hostfuncs.Event{Kind: sandbox.EventCrash, Personality: personality, Session: session, Plugin: plugin, Data: b})
	return c.Err
}

func isRetired(err error) bool {
	var e *abi.Error
	return errors.As(err, &e) && e.Code == abi.CodeNotAvailable && strings.Contains(e.Message, "was retired")
}

// unknownTool is the answer to a call of a tool the personality does not
// have: the tools it has, and why any of its plugins did not load.
func (p *personality) unknownTool(name string) error {
	var names []string
	for n := range p.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	hint := "this personality has no tools"
	if len(names) > 0 {
		if len(names) > 12 {
			names = append(names[:12], "...")
		}
		hint = "available: " + strings.Join(names, ", ")
	}
	if len(p.unloaded) > 0 {
		// The tool may be one of a plugin that did not load: say why it
		// did not (its code in details.load_error), not only that the
		// tool is missing.
		var why []string
		for _, e := range p.unloaded {
			why = append(why, e.Message)
		}
		e := p.unloaded[0]
		return abi.Errorf(abi.CodeNotFound, "no tool %q under personality %s (%s); plugins of it that did not load: %s", name, p.name, hint, strings.Join(why, "; ")).With("load_error", string(e.Code))
	}
	return abi.Errorf(abi.CodeNotFound, "no tool %q under personality %s (%s)", name, p.name, hint)
}

// Session returns the route's plugin, for tests.
func (r *route) Plugin() *sandbox.Plugin { return r.plugin }

// cutOutputHint says, for output that ends mid-JSON, the usual cause an
// author cannot guess from "invalid JSON": output sized by string length,
// not UTF-8 bytes, which cuts as many bytes off the end as the text has
// non-ASCII ones (every @extism/as-pdk 1.0.0 plugin answering
// with Host.outputString).
func cutOutputHint(err error) string {
	if !strings.Contains(err.Error(), "unexpected end of JSON input") {
		return ""
	}
	return "; the output ends mid-JSON: a plugin that sizes its output by string length rather than UTF-8 bytes loses its end to any non-ASCII text (the @extism/as-pdk 1.0.0 Host.outputString pitfall, abi/README.md): output the UTF-8 bytes, Host.output(Uint8Array.wrap(String.UTF8.encode(json)))"
}
