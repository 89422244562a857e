package sdk

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"

	"github.com/wasmwright/wasmwright/abi"
)

// Call is the context of one tool or hook call.
type Call struct {
	Tool        string
	Session     string
	Personality string
	CallID      string
}

type toolEntry struct {
	spec abi.ToolSpec
	run  func(c *Call, args []byte) ([]byte, error)
}

var reg = struct {
	manifest abi.Manifest
	tools    map[string]*toolEntry
	hook     func(c *Call, req *abi.HookRequest) (*abi.HookResponse, error)
	selfTest func() error
	cases    []abi.SelfTestCase
}{tools: map[string]*toolEntry{}}

// Plugin names the plugin. Call it once, from init.
func Plugin(name, version, description string) {
	reg.manifest.Name = name
	reg.manifest.Version = version
	reg.manifest.Description = description
	reg.manifest.ABI = abi.Version()
	reg.manifest.Protocols = abi.Protocols()
}

// Needs declares the capabilities the plugin needs (capability IDs such as
// "events" or "browser.read"). The host grants no more than this.
func Needs(caps ...string) {
	reg.manifest.Capabilities = append(reg.manifest.Capabilities, caps...)
}

// Features asks the host for optional ABI behaviours. With
// abi.FeatureBlobs, large strings in host-function responses (snapshots,
// page text and HTML, screenshot data) arrive as tokens: copy them into the
// Result unchanged and never parse them; the host puts the values back.
// Hosts that do not know a feature ignore it and send the values. With
// abi.FeatureRawPage, a detect hook's page text and HTML arrive outside
// the request's JSON; the hook reads them in req.Result.Page as ever. With
// abi.FeatureRawSnapshot, a compact or mask hook's snapshot arrives, and
// its answer's goes back, outside the JSON; the hook reads and writes
// req.Result.Snapshot as ever.
func Features(f ...string) {
	reg.manifest.Features = append(reg.manifest.Features, f...)
}

// ToolOption adjusts a tool's spec.
type ToolOption func(*abi.ToolSpec)

// ReadOnly marks a tool that changes nothing.
func ReadOnly() ToolOption { return func(s *abi.ToolSpec) { s.ReadOnly = true } }

// Risk declares the worst the tool can do (abi.RiskRead...), for
// approvals and clients' prompts. Without it the host derives the risk
// from the capabilities the tool needs.
func Risk(r abi.Risk) ToolOption { return func(s *abi.ToolSpec) { s.Risk = r } }

// RiskWhen declares that a call given the argument arg is also of risk r
// (abi.ToolSpec.RiskWhen): the host judges it by the stricter mode.
func RiskWhen(arg string, r abi.Risk) ToolOption {
	return func(s *abi.ToolSpec) {
		if s.RiskWhen == nil {
			s.RiskWhen = map[string]abi.Risk{}
		}
		s.RiskWhen[arg] = r
	}
}

// Title gives the tool a short human-readable name.
func Title(t string) ToolOption { return func(s *abi.ToolSpec) { s.Title = t } }

// Requires lists capabilities this tool needs beyond the plugin's baseline;
// a personality without them does not see the tool.
func Requires(caps ...string) ToolOption {
	return func(s *abi.ToolSpec) { s.Capabilities = append(s.Capabilities, caps...) }
}

// Tool registers a tool whose arguments decode into In. Its input schema is
// SchemaOf(In).
func Tool[In any](name, description string, fn func(c *Call, in In) (*abi.Result, error), opts ...ToolOption) {
	var zero In
	RawTool(name, description, SchemaOf(zero), func(c *Call, args []byte) ([]byte, error) {
		var in In
		if len(args) > 0 {
			if err := json.Unmarshal(args, &in); err != nil {
				return nil, abi.Errorf(abi.CodeInputInvalid, "arguments of %s: %v", name, err)
			}
		}
		res, err := fn(c, in)
		if err != nil {
			return nil, err
		}
		if res == nil {
			res = &abi.Result{}
		}
		return json.Marshal(res)
	}, opts...)
}

// RawTool registers a tool that takes its arguments as raw JSON and returns
// an abi.Result already encoded as JSON. It is for tools that move large
// inputs and want to skip decoding.
func RawTool(name, description string, inputSchema json.RawMessage, fn func(c *Call, args []byte) ([]byte, error), opts ...ToolOption) {
	if _, dup := reg.tools[name]; dup {
		panic("sdk: tool registered twice: " + name)
	}
	spec := abi.ToolSpec{Name: name, Description: description, InputSchema: inputSchema}
	for _, o := range opts {
		o(&spec)
	}
	reg.tools[name] = &toolEntry{spec: spec, run: fn}
}

// Hook registers the plugin's hook handler for the given roles.
func Hook(fn func(c *Call, req *abi.HookRequest) (*abi.HookResponse, error), roles ...abi.HookRole) {
	reg.hook = fn
	reg.manifest.Hooks = append(reg.manifest.Hooks, roles...)
}

// SelfTest registers the check the host runs before swapping this plugin in.
func SelfTest(fn func() error) { reg.selfTest = fn }

// SelfTestCases adds fixtures to the self-test report: before it swaps
// this plugin in, the host runs the plugin's real hook on each and refuses
// the plugin if an answer is not the case's Want (abi.SelfTestCase).
func SelfTestCases(cases ...abi.SelfTestCase) { reg.cases = append(reg.cases, cases...) }

// Describe returns the manifest as the describe export sends it.
func Describe() abi.Manifest {
	m := reg.manifest
	m.Tools = nil
	names := make([]string, 0, len(reg.tools))
	for n := range reg.tools {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		m.Tools = append(m.Tools, reg.tools[n].spec)
	}
	return m
}

// Handle runs the plugin's dispatch in-process (op is abi.OpDescribe,
// OpCall, OpHook or OpSelfTest), for unit tests of plugin logic without a
// sandbox. It returns the output and whether it is an error.
func Handle(op int32, in []byte) ([]byte, bool) { return handle(op, in) }

// handle runs one operation on a framed input and returns the output and
// whether it is an error. It is the whole of dispatch, shared by the Extism
// exports and the fast path, and runs on the host in tests.
func handle(op int32, in []byte) (out []byte, isErr bool) {
	switch op {
	case abi.OpDescribe:
		return mustJSON(Describe()), false
	case abi.OpSelfTest:
		rep := abi.SelfTestReport{OK: true, Cases: reg.cases}
		if reg.selfTest != nil {
			if err := reg.selfTest(); err != nil {
				rep = abi.SelfTestReport{OK: false, Message: err.Error()}
			}
		}
		return mustJSON(rep), false
	case abi.OpCall:
		var h abi.CallHeader
		body, err := abi.Unframe(in, &h)
		if err != nil {
			return errorJSON(abi.Errorf(abi.CodeInputInvalid, "%v", err)), true
		}
		t, ok := reg.tools[h.Tool]
		if !ok {
			return errorJSON(abi.Errorf(abi.CodeNotFound, "plugin %s has no tool %q", reg.manifest.Name, h.Tool)), true
		}
		c := &Call{Tool: h.Tool, Session: h.Session, Personality: h.Personality, CallID: h.CallID}
		res, err := t.run(c, body)
		if err != nil {
			return errorJSON(err), true
		}
		return res, false
	case abi.OpHook:
		if reg.hook == nil {
			return errorJSON(abi.Errorf(abi.CodeNotFound, "plugin %s fills no hook", reg.manifest.Name)), true
		}
		var req abi.HookRequest
		framed, err := abi.ReadHookRequest(in, &req)
		if err != nil {
			return errorJSON(abi.Errorf(abi.CodeInputInvalid, "hook request: %v", err)), true
		}
		resp, err := reg.hook(&Call{Tool: req.Tool, Session: req.Session}, &req)
		if err != nil {
			return errorJSON(err), true
		}
		if resp == nil {
			resp = &abi.HookResponse{}
		}
		// A snapshot that came raw goes back raw (abi.FeatureRawSnapshot).
		out, err := abi.EncodeHookResponse(resp, abi.RawHookAnswer(req.Role, framed))
		if err != nil {
			panic(fmt.Sprintf("sdk: encoding the hook response: %v", err))
		}
		return out, false
	}
	return errorJSON(abi.Errorf(abi.CodeInputInvalid, "unknown operation %d", op)), true
}

func errorJSON(err error) []byte {
	var e *abi.Error
	if !errors.As(err, &e) {
		e = &abi.Error{Code: abi.CodeExecutionFailed, Message: err.Error()}
	}
	return mustJSON(e)
}

func mustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("sdk: encoding %T: %v", v, err))
	}
	return b
}
