package host

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/sandbox"
)

// detectFixtures are the host's own self-test cases for a detector: a bot
// wall it must flag and a normal page it must pass.
//
//go:embed selftest/detect.json
var detectFixtures []byte

var hostCases = func() []abi.SelfTestCase {
	var cs []abi.SelfTestCase
	if err := json.Unmarshal(detectFixtures, &cs); err != nil {
		panic("host/selftest/detect.json: " + err.Error())
	}
	return cs
}()

// selfTest runs the plugin's self_test export, then its real hook on the
// host's fixtures (for a detector) and on the cases the plugin ships in its
// report, each under hook_timeout. Hook plugins must have a self_test; a
// tool plugin without it (a plain Extism plugin) passes. The error is
// refused, naming the case and why (cause: the code the hook failed with).
func (h *Host) selfTest(ctx context.Context, p *sandbox.Plugin) error {
	out, err := p.Call(ctx, abi.OpSelfTest, nil)
	if err != nil {
		if len(p.Manifest().Hooks) == 0 && !p.Fast {
			return nil
		}
		return abi.Errorf(abi.CodeRefused, "plugin %s failed its self-test: %v", p.Name, err)
	}
	var rep abi.SelfTestReport
	if err := json.Unmarshal(out, &rep); err != nil {
		return abi.Errorf(abi.CodeRefused, "plugin %s self-test returned invalid JSON", p.Name)
	}
	if !rep.OK {
		return abi.Errorf(abi.CodeRefused, "plugin %s failed its self-test: %s", p.Name, rep.Message)
	}
	m := p.Manifest()
	cases := rep.Cases
	if hasRole(m, abi.HookDetect) {
		cases = append(append([]abi.SelfTestCase(nil), hostCases...), cases...)
	}
	for _, c := range cases {
		if !hasRole(m, c.Role) || c.Result == nil {
			return abi.Errorf(abi.CodeRefused, "plugin %s ships self-test case %q for role %q with result %v: a case needs a role the plugin fills and a result", p.Name, c.Name, c.Role, c.Result != nil)
		}
		resp, e := h.hookOn(ctx, p, &abi.HookRequest{Role: c.Role, Tool: "browser_navigate", Result: c.Result}, func(ctx context.Context, in []byte) ([]byte, error) {
			return p.Call(ctx, abi.OpHook, in)
		})
		if e != nil {
			return abi.Errorf(abi.CodeRefused, "plugin %s failed self-test case %q: its %s hook %s: %s", p.Name, c.Name, c.Role, failedHow(e), e.Message).With("cause", string(e.Code))
		}
		var got abi.Code
		if resp.Error != nil {
			got = resp.Error.Code
		}
		if got != c.Want {
			return abi.Errorf(abi.CodeRefused, "plugin %s failed self-test case %q: its %s hook answered %s, the case wants %s", p.Name, c.Name, c.Role, codeOrNone(got), codeOrNone(c.Want)).With("cause", "wrong_answer")
		}
	}
	return nil
}

func codeOrNone(c abi.Code) string {
	if c == "" {
		return "no error"
	}
	return string(c)
}

// failedHow says in words how a hook call failed.
func failedHow(e *abi.Error) string {
	switch e.Code {
	case abi.CodeTimeout:
		return "did not answer in time (looped or stalled)"
	case abi.CodePluginFailed:
		return "crashed or answered nonsense"
	}
	return "failed with " + string(e.Code)
}

// hookOn runs one hook call through call (which runs plug) under
// host.hook_timeout, and checks the answer: invalid JSON, or an error code
// outside abi's closed set, is a failed hook call, never a pass.
func (h *Host) hookOn(ctx context.Context, plug *sandbox.Plugin, req *abi.HookRequest, call func(context.Context, []byte) ([]byte, error)) (*abi.HookResponse, *abi.Error) {
	// A detector reads the page's HTML and text, up to [browser]
	// detect_max_mb each: one that asks for them raw (abi.FeatureRawPage)
	// gets them outside the JSON, which it would otherwise spend most of
	// its time decoding.
	in, err := abi.EncodeHookRequest(req, req.Role == abi.HookDetect && plug.HasFeature(abi.FeatureRawPage))
	if err != nil {
		return nil, abi.Errorf(abi.CodeExecutionFailed, "encoding hook request: %v", err)
	}
	d := h.cfg.Host.hookTimeout()
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

// hookResult counts a live hook call of a slot's version: a success resets
// the count, host.rollback_after failures in a row roll the version back.
func (h *Host) hookResult(s *Slot, plug *sandbox.Plugin, e *abi.Error) {
	if e == nil {
		s.fails.Store(0)
		return
	}
	if n := s.fails.Add(1); int(n) == h.cfg.Host.rollbackAfter() {
		h.rollback(s, plug, int(n), e)
	}
}

// rollback puts back the version a swap replaced, when bad (the serving
// version) failed n hook calls in a row. The failing file is set aside, so
// a restart loads the version rolled back to.
func (h *Host) rollback(s *Slot, bad *sandbox.Plugin, n int, last *abi.Error) {
	s.swapMu.Lock()
	defer s.swapMu.Unlock()
	if s.cur.Load() != bad {
		return // already replaced
	}
	reason := fmt.Sprintf("%d hook calls in a row failed (last: %s)", n, last.Error())
	if s.prev == nil {
		h.log.Error("plugin keeps failing and there is no earlier version to roll back to", "plugin", s.Name, "sha256", bad.SHA256, "reason", reason)
		return
	}
	ctx := context.Background()
	p, _, err := h.validate(ctx, s.Name, s.prev.wasm, s.prev.pin, s.prev.sig)
	if err != nil {
		h.log.Error("plugin keeps failing and its earlier version no longer passes its checks", "plugin", s.Name, "err", err)
		return
	}
	h.publish(s, p, *s.prev)
	s.prev = nil
	h.setAside(s, bad.SHA256, "rolled back: "+reason)
	h.Emit(eventOf("plugin.rolled_back", s.Name, map[string]string{"from_sha256": bad.SHA256, "to_sha256": p.SHA256, "reason": reason}))
	h.log.Warn("plugin rolled back to its last good version", "plugin", s.Name, "from", bad.SHA256[:12], "to", p.SHA256[:12], "reason", reason)
}
