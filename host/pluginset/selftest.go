package pluginset

import (
	"context"
	_ "embed"
	"encoding/json"

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
		panic("pluginset/selftest/detect.json: " + err.Error())
	}
	return cs
}()

// selfTest runs the plugin's self_test export, then its real hook on the
// host's fixtures (for a detector) and on the cases the plugin ships in its
// report, each under the hook limits (a work budget, and hook_timeout as a
// backstop). Hook plugins must have a self_test; a
// tool plugin without it (a plain Extism plugin) passes. The error is
// refused, naming the case and why (cause: the code the hook failed with).
func (set *Set) selfTest(ctx context.Context, p *sandbox.Plugin) error {
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
	if HasRole(m, abi.HookDetect) {
		cases = append(append([]abi.SelfTestCase(nil), hostCases...), cases...)
	}
	for _, c := range cases {
		if !HasRole(m, c.Role) || c.Result == nil {
			return abi.Errorf(abi.CodeRefused, "plugin %s ships self-test case %q for role %q with result %v: a case needs a role the plugin fills and a result", p.Name, c.Name, c.Role, c.Result != nil)
		}
		resp, _, e := CallHook(ctx, set.o.Hooks, p, &abi.HookRequest{Role: c.Role, Tool: "browser_navigate", Result: c.Result}, func(ctx context.Context, in []byte) ([]byte, error) {
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
	switch {
	case e.Code == abi.CodeResourceLimit && e.Details["limit"] == HookFuelKey:
		return "ran past its work budget (looped?)"
	case e.Code == abi.CodeTimeout:
		return "did not answer in time (stalled)"
	case e.Code == abi.CodePluginFailed:
		return "crashed or answered nonsense"
	}
	return "failed with " + string(e.Code)
}
