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
//
// A detector runs in a chain (a personality's hooks.detect), and a page is
// a wall when any member flags it: here each detector must run every host
// fixture without failing, pass the host's normal pages and answer its own
// cases; the host's walls are the chain's to catch (CheckChain), so a
// detector for one more vendor need not copy the markers of the others.
func (set *Set) selfTest(ctx context.Context, p *sandbox.Plugin) error {
	return SelfTest(ctx, set.o.Hooks, p)
}

// SelfTest is the self-test a host runs before a plugin serves (selfTest),
// for tools that check a plugin file without a host (`plugins verify FILE`).
func SelfTest(ctx context.Context, lim HookLimits, p *sandbox.Plugin) error {
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
	for i, c := range cases {
		if !HasRole(m, c.Role) || c.Result == nil {
			return abi.Errorf(abi.CodeRefused, "plugin %s ships self-test case %q for role %q with result %v: a case needs a role the plugin fills and a result", p.Name, c.Name, c.Role, c.Result != nil)
		}
		got, e := runCase(ctx, lim, p, c)
		if e != nil {
			return abi.Errorf(abi.CodeRefused, "plugin %s failed self-test case %q: its %s hook %s: %s", p.Name, c.Name, c.Role, failedHow(e), e.Message).With("cause", string(e.Code))
		}
		chainsJob := got == "" && i < len(cases)-len(rep.Cases) && c.Want != ""
		if got != c.Want && !chainsJob {
			return abi.Errorf(abi.CodeRefused, "plugin %s failed self-test case %q: its %s hook answered %s, the case wants %s", p.Name, c.Name, c.Role, codeOrNone(got), codeOrNone(c.Want)).With("cause", "wrong_answer")
		}
	}
	return nil
}

// HostWalls are the host's fixtures a detector chain must flag (bot
// walls); each detector must pass the others (normal pages).
func HostWalls() []abi.SelfTestCase {
	var out []abi.SelfTestCase
	for _, c := range hostCases {
		if c.Want != "" {
			out = append(out, c)
		}
	}
	return out
}

// runCase runs one self-test case through p's real hook and returns the
// code it answered ("" for none), or how the call failed.
func runCase(ctx context.Context, lim HookLimits, p *sandbox.Plugin, c abi.SelfTestCase) (abi.Code, *abi.Error) {
	resp, _, e := CallHook(ctx, lim, p, &abi.HookRequest{Role: c.Role, Tool: "browser_navigate", Result: c.Result}, func(ctx context.Context, in []byte) ([]byte, error) {
		return p.Call(ctx, abi.OpHook, in)
	})
	if e != nil {
		return "", e
	}
	if resp.Error != nil {
		return resp.Error.Code, nil
	}
	return "", nil
}

// CheckChain runs the host's bot walls through a detector chain, in order,
// as the pipeline does: each wall must be flagged by some member, and a
// member that fails on one fails the chain (a failed detector is never a
// pass). The error is refused, naming the chain and the wall. A chain of
// versions that passed before under the same checks and limits is not
// run again (selftested.go).
func (set *Set) CheckChain(ctx context.Context, chain []*sandbox.Plugin) error {
	return set.checkChainOnce(ctx, chain)
}

// CheckChain is Set.CheckChain under lim, for tools without a host.
func CheckChain(ctx context.Context, lim HookLimits, chain []*sandbox.Plugin) error {
	names := make([]string, len(chain))
	for i, p := range chain {
		// The name a config gives it (hooks.detect) is its manifest's: a
		// host loads it under no other, and a file checked on its own
		// (plugins verify FILE) may be named anything.
		names[i] = p.Manifest().Name
	}
	for _, c := range HostWalls() {
		caught := false
		for _, p := range chain {
			got, e := runCase(ctx, lim, p, c)
			if e != nil {
				return abi.Errorf(abi.CodeRefused, "detector chain %v: plugin %s failed self-test case %q: its detect hook %s: %s", names, p.Name, c.Name, failedHow(e), e.Message).With("cause", string(e.Code))
			}
			if got == c.Want {
				caught = true
				break
			}
		}
		if !caught {
			return abi.Errorf(abi.CodeRefused, "detector chain %v failed self-test case %q: its members answered no error, the case wants %s (a page is a wall when any member flags it: a detector that adds one vendor runs in a chain after one that catches the rest, like hooks.detect = [\"blockdetect\", \"%s\"])", names, c.Name, c.Want, names[len(names)-1]).With("cause", "wrong_answer")
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
