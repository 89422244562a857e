package host

import (
	"context"
	"encoding/json"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/hostfuncs/browser"
)

// LinkInputTool names input on the live view from whoever holds a takeover
// link, where approvals, grants and events name a tool. The link went to
// the agent's own MCP client, which may be the agent's process: its holder
// is treated as the agent, so its input is judged by the personality's
// approval policy like an agent's call (JudgeLinkInput).
const LinkInputTool = "takeover_link_input"

// linkInputRisk is the risk of one live-view input: a click, text or a key
// acts on the page; opening a URL or going back navigates; scrolling only
// reads. ok is false for a kind the live view does not know.
func linkInputRisk(kind string) (risk abi.Risk, ok bool) {
	switch kind {
	case browser.InputScroll:
		return abi.RiskRead, true
	case browser.InputNavigate, browser.InputBack:
		return abi.RiskNavigate, true
	case browser.InputClick, browser.InputType, browser.InputKey:
		return abi.RiskAct, true
	}
	return "", false
}

// JudgeLinkInput decides whether input of kind from a takeover link's
// holder may run on the session's page, by the personality's approval mode
// for its risk: allow runs it, deny refuses it, ask runs it when an
// operator's grant covers LinkInputTool on the page's origin or a
// logged-in operator approves it on the console (never the agent's client:
// the link holder would approve itself). With no console connected an ask
// is refused at once, naming what to do. Every failure is an abi error the
// live view shows; nothing runs unjudged. Each judgement writes an
// EventTool event (tool LinkInputTool, the decision, never the text).
func (h *Host) JudgeLinkInput(ctx context.Context, personality, session, kind string) error {
	p, err := h.roster.get(personality)
	if err != nil {
		return err
	}
	risk, ok := linkInputRisk(kind)
	if !ok {
		// Refused before anyone is asked: the kind would reach the question.
		return abi.Errorf(abi.CodeInputInvalid, "unknown live-view input: use click, scroll, type, key, navigate or back")
	}
	j := &judgment{risk: risk, origin: pageOrigin(operatorBrowser(h.Browser()), p.name, session)}
	t0 := time.Now()
	err = h.approve.linkInput(ctx, p, session, kind, j)
	ev := ToolEvent{Tool: LinkInputTool, Risk: j.risk, Origin: j.origin, Decision: j.decision, MS: time.Since(t0).Milliseconds(), Outcome: "ok"}
	if err != nil {
		ev.Outcome, ev.Code = "error", abi.AsError(err).Code
	}
	b, _ := json.Marshal(ev)
	h.Emit(hostfuncs.Event{Kind: EventTool, Personality: p.name, Session: session, Data: b})
	return err
}
