package host

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/hostfuncs/browser"
	"github.com/wasmwright/wasmwright/hostfuncs/operator"
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
	p, err := h.personality(personality)
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
	err = h.judgeLinkInput(ctx, p, session, kind, j)
	ev := ToolEvent{Tool: LinkInputTool, Risk: j.risk, Origin: j.origin, Decision: j.decision, MS: time.Since(t0).Milliseconds(), Outcome: "ok"}
	if err != nil {
		ev.Outcome, ev.Code = "error", abi.AsError(err).Code
	}
	b, _ := json.Marshal(ev)
	h.Emit(hostfuncs.Event{Kind: EventTool, Personality: p.name, Session: session, Data: b})
	return err
}

// judgeLinkInput is JudgeLinkInput's decision, recorded in j.
func (h *Host) judgeLinkInput(ctx context.Context, p *personality, session, kind string, j *judgment) error {
	risk, origin := j.risk, j.origin
	what := fmt.Sprintf("a %s from the takeover link (risk %s)", kind, risk)
	switch p.cfg.approvalMode(risk) {
	case ModeAllow:
		j.decision = DecisionAllow
		return nil
	case ModeDeny:
		j.decision = DecisionDeny
		return abi.Errorf(abi.CodeRefused, "%s is denied for personality %s, as it is for the agent: only an operator logged in to the console may act on this page (personalities.%s.approval.%s)", what, p.name, p.name, risk)
	}
	page := ""
	if b := operatorBrowser(h.Browser()); b != nil {
		page = b.PageURL(p.name, session)
	}
	if grants, gerr := h.Grants(); gerr == nil && grants.Allows(p.name, LinkInputTool, risk, origin, false) {
		j.decision = DecisionGrant
		return nil
	}
	if h.desk == nil || !h.desk.Attended(p.name) {
		j.decision = "ask:unattended"
		return abi.Errorf(abi.CodeRefused, "Approval required: %s needs an operator's approval (personalities.%s.approval.%s = \"ask\") and no operator console is connected. Ask an operator to open the wasmwright console, then try again; until then you can watch the page and hand it back.", what, p.name, risk)
	}
	a := operator.Approval{Personality: p.name, Session: session, Tool: LinkInputTool, Risk: risk, Origin: origin,
		Summary: "a " + kind + " on the live view by whoever holds the takeover link, not an operator", Via: []string{operator.ViaConsole}}
	if page != "" {
		a.Target = &operator.Target{URL: page}
	}
	dec, err := h.desk.Ask(ctx, a, p.cfg.approvalTimeout())
	j.decision = "ask:" + dec.Verdict
	if err != nil {
		return err
	}
	// The approval was for the page on origin: one that moved meanwhile
	// is asked about again, not acted on.
	if now := pageOrigin(operatorBrowser(h.Browser()), p.name, session); now != origin {
		return abi.Errorf(abi.CodeRefused, "the page left %s while %s waited for approval: nothing was done; try again on the page as it is now", origin, what)
	}
	if dec.Verdict == operator.ApproveOrigin {
		grants, gerr := h.Grants()
		if gerr == nil {
			gerr = grants.Add(p.name, operator.Grant{Tool: LinkInputTool, Origin: origin, By: dec.By})
		}
		if gerr != nil {
			h.log.Warn("approval for the origin not stored: it covered this input only", "personality", p.name, "err", gerr)
		}
	}
	return nil
}
