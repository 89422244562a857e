package host

import (
	"context"
	"encoding/json"
	"slices"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/capability"
	"github.com/wasmwright/wasmwright/hostfuncs/operator"
	"github.com/wasmwright/wasmwright/hostfuncs/vault"
	"github.com/wasmwright/wasmwright/sandbox"
)

// toolRisk is the risk of a tool: the one its manifest declares, or else
// the worst its capabilities allow. A tool that declares nothing and is
// not read-only counts as act: unknown is never read.
func toolRisk(t abi.ToolSpec) abi.Risk {
	if t.Risk.Valid() {
		return t.Risk
	}
	has := func(c capability.ID) bool { return slices.Contains(t.Capabilities, string(c)) }
	switch {
	case has(capability.VaultFill):
		return abi.RiskCredential
	case has(capability.BrowserEval):
		return abi.RiskEval
	case has(capability.BrowserAct):
		return abi.RiskAct
	case t.ReadOnly:
		return abi.RiskRead
	case has(capability.Network):
		return abi.RiskNavigate
	}
	return abi.RiskAct
}

func needsTakeover(t abi.ToolSpec) bool {
	return slices.Contains(t.Capabilities, string(capability.Takeover))
}

// humanGate refuses a call on a session a human holds: every tool but the
// takeover itself while a takeover is pending (the desk refuses a second
// request), and every tool that is not read-only while an operator drives
// the page from the console.
func (h *Host) humanGate(p *personality, r *route, session string) error {
	if h.desk == nil {
		return nil
	}
	if _, held := h.desk.Held(p.name, session); held && !needsTakeover(r.spec) {
		return abi.Errorf(abi.CodeNotAvailable, "A human has taken over this browser session; wait for the hand-back (the pending browser_request_takeover call returns when they are done)")
	}
	if h.desk.Controlled(p.name, session) && toolRisk(r.spec) != abi.RiskRead && !needsTakeover(r.spec) {
		return abi.Errorf(abi.CodeNotAvailable, "An operator is controlling this page from the console; tools that change it are refused until they let go. Inspection tools (browser_snapshot, browser_screenshot, browser_console) still work.")
	}
	return nil
}

// humanContext marks a call attended while an operator's console is
// connected for the personality, and gives a takeover call a deadline as
// long as the wait it asks for (plus the usual call timeout).
func (h *Host) humanContext(ctx context.Context, p *personality, r *route, args json.RawMessage) context.Context {
	if h.desk == nil {
		return ctx
	}
	if h.desk.Attended(p.name) {
		ctx = vault.WithHumanPresent(ctx)
	}
	if needsTakeover(r.spec) {
		var a struct {
			TimeoutS int `json:"timeout_s"`
		}
		json.Unmarshal(args, &a) // validated against the schema already
		ctx = sandbox.WithTimeout(ctx, operator.ClampTimeout(a.TimeoutS)+h.cfg.Host.CallTimeout.Duration)
	}
	return ctx
}
