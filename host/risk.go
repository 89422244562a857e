package host

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/capability"
	"github.com/wasmwright/wasmwright/hostfuncs/browser"
	"github.com/wasmwright/wasmwright/hostfuncs/operator"
	"github.com/wasmwright/wasmwright/hostfuncs/vault"
	"github.com/wasmwright/wasmwright/hostfuncs/weborigin"
	"github.com/wasmwright/wasmwright/internal/spans"
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
		ctx = operator.WithTakeoverVia(ctx, p.cfg.takeoverVia())
		var a struct {
			TimeoutS int `json:"timeout_s"`
		}
		json.Unmarshal(args, &a) // validated against the schema already
		ctx = sandbox.WithTimeout(ctx, operator.ClampTimeout(a.TimeoutS)+h.cfg.Host.CallTimeout.Duration)
	}
	return ctx
}

// reachesOut reports whether a plugin holding grants can reach pages or
// the network: its tools' results may carry content from there.
func reachesOut(grants capability.Set) bool {
	for _, c := range []capability.ID{capability.BrowserRead, capability.BrowserAct, capability.BrowserEval, capability.Network, capability.VaultFill} {
		if grants.Has(c) {
			return true
		}
	}
	return false
}

// Decisions of a judged call, as events record them. An asked call's
// decision is "ask:" and the operator's verdict (operator.ApproveOnce,
// ApproveOrigin, Deny) or why there was none (unattended, timeout, closed,
// cancelled; unbound: the elements it acts on could not be resolved, so
// nobody was asked).
const (
	DecisionAllow = "allow" // the risk's mode is allow
	DecisionGrant = "grant" // asked, and a stored grant covers the page's origin
	DecisionDeny  = "deny"  // the risk's mode is deny
)

// judgment is how the host judged one call.
type judgment struct {
	risk     abi.Risk
	origin   string // the origin judged (the receiving frame's, else the page's), "" when none
	decision string
	// byOrigin: the call was approved for the page on origin; the host
	// functions refuse to act once the page is elsewhere.
	byOrigin bool
	// bound is what an ask was judged on: the elements the call acts on,
	// checked again by the host functions right before they act.
	bound *browser.Binding
}

// judge applies the personality's approval mode for the call's risk
// (modeRisk): allow runs it, deny refuses it, ask runs it when a stored
// grant covers the origin of every frame the call acts in (as the
// browser reports it, never an argument; the page's when it names no
// element) or an operator approves it, asked about each element it acts
// on and that element's frame origin.
func (h *Host) judge(ctx context.Context, p *personality, r *route, req Request, j *judgment) error {
	defer spans.Start("h.judge")()
	j.origin = pageOrigin(operatorBrowser(h.Browser()), p.name, req.Session)
	risk := modeRisk(p, r.spec, req.Args)
	what := fmt.Sprintf("%s (risk %s)", r.spec.Name, risk)
	switch p.cfg.approvalMode(risk) {
	case ModeAllow:
		j.decision = DecisionAllow
		return nil
	case ModeDeny:
		j.decision = DecisionDeny
		return abi.Errorf(abi.CodeRefused, "%s is denied for personality %s: do not retry it; tell the user what you wanted to do. (The key that allows it: personalities.%s.approval.%s = \"ask\" or \"allow\".)", what, p.name, p.name, risk)
	}
	j.byOrigin = true
	origins, err := h.bindCall(ctx, p, r, req, j)
	if err != nil {
		j.decision = "ask:unbound"
		return err
	}
	grants, gerr := h.Grants()
	if h.grantedAll(p, req.Session, r.spec.Name, risk, origins) {
		j.decision = DecisionGrant
		return nil
	}
	if h.desk == nil {
		j.decision = "ask:unattended"
		return abi.Errorf(abi.CodeRefused, "Approval required: %s needs an operator's approval and no operator console runs. Ask the user to approve it in the wasmwright console (wasmwright serve), or to allow it with personalities.%s.approval.%s, then call it again.", what, p.name, risk)
	}
	a := operator.Approval{Personality: p.name, Session: req.Session, Tool: r.spec.Name, Risk: risk, Origin: j.origin, Summary: argNames(req.Args), Via: p.cfg.Approval.Via}
	if j.bound != nil {
		a.Target, a.Targets = boundTargets(j.bound, aimsOf(req.Args))
	} else {
		a.Target = h.describeTarget(p.name, req.Session, req.Args)
	}
	a.Typing = typing(req.Args, j.bound)
	dec, err := h.desk.Ask(ctx, a, p.cfg.approvalTimeout())
	j.decision = "ask:" + dec.Verdict
	if dec.Verdict == "" {
		j.decision = "ask:unattended"
	}
	if err != nil {
		return err
	}
	if dec.Verdict == operator.ApproveOrigin {
		gr := operator.Grant{Tool: r.spec.Name, Origin: j.origin, By: dec.By, Via: dec.Via}
		switch {
		case gerr == nil && dec.Via == operator.ViaClient && p.cfg.Approval.ClientGrants != ClientGrantsPersist:
			// The client's grant lasts its session only.
			gerr = h.desk.GrantForSession(p.name, req.Session, gr)
		case gerr == nil:
			gerr = grants.Add(p.name, gr)
		}
		if gerr != nil {
			h.log.Warn("approval for the origin not stored: it covered this call only", "personality", p.name, "tool", r.spec.Name, "err", gerr)
		}
	}
	return nil
}

// grantedAll reports whether grants cover the call on every one of
// origins (a drag from one frame into another needs both).
func (h *Host) grantedAll(p *personality, session, tool string, risk abi.Risk, origins []string) bool {
	for _, o := range origins {
		if !h.granted(p, session, tool, risk, o) {
			return false
		}
	}
	return len(origins) > 0
}

// granted reports whether a grant covers tool (of risk) on origin for the
// session: an operator's stored grant, or, only while the personality's
// approval.via names the agent's client, one the client made (stored, or
// kept for this session). A store that cannot be read grants nothing.
func (h *Host) granted(p *personality, session, tool string, risk abi.Risk, origin string) bool {
	clientOK := p.cfg.clientApproves()
	if grants, err := h.Grants(); err == nil && grants.Allows(p.name, tool, risk, origin, clientOK) {
		return true
	}
	return clientOK && h.desk != nil && h.desk.SessionAllows(p.name, session, tool, risk, origin)
}

// describeTarget is what an approval shows of the element a call names
// (its "ref" argument) and its page, nil without a browser session. No
// picture: the console takes one when it shows the card, so asking is
// not slowed by a screenshot.
func (h *Host) describeTarget(personality, session string, args json.RawMessage) *operator.Target {
	b := h.Browser()
	if b == nil {
		return nil
	}
	var a struct {
		Ref string `json:"ref"`
	}
	json.Unmarshal(args, &a) // validated against the schema already
	info := b.DescribeTarget(personality, session, a.Ref, false)
	if info.URL == "" && info.Ref == "" {
		return nil
	}
	// Page-controlled strings all: the desk masks them and makes each one
	// plain line before anyone is shown them (operator.Desk.Ask).
	return &operator.Target{Ref: info.Ref, Role: info.Role, Name: info.Name, Text: info.Text, Title: info.Title, URL: info.URL}
}

// pageOrigin is the origin of the session's current page (weborigin.Of,
// the one spelling grants are stored in), "" when it has none (no
// session, or not an http(s) page).
func pageOrigin(b operator.Browser, personality, session string) string {
	if b == nil {
		return ""
	}
	o := weborigin.Of(b.PageURL(personality, session))
	if o == weborigin.Opaque {
		return ""
	}
	return o
}

// Grants is the store of origin-scoped act grants (host.grants_dir),
// opened on first use.
func (h *Host) Grants() (*operator.Grants, error) {
	h.grantsOnce.Do(func() {
		dir, err := h.cfg.GrantsDir()
		if err != nil {
			h.grantsErr = err
			return
		}
		h.grants, h.grantsErr = operator.OpenGrants(dir)
	})
	return h.grants, h.grantsErr
}

// typing is the text a call types (its text argument) as an approver
// may see it: all of it masked when a field it types into is a password
// field; the desk masks secret values in the rest (operator.Desk.Ask).
func typing(args json.RawMessage, bound *browser.Binding) string {
	var a struct {
		Text string `json:"text"`
	}
	if json.Unmarshal(args, &a) != nil || a.Text == "" {
		return ""
	}
	if bound != nil {
		for _, t := range bound.Targets {
			if t.Secret {
				return fmt.Sprintf("(%d characters, hidden: a password field)", utf8.RuneCountInString(a.Text))
			}
		}
	}
	return a.Text
}

// argNames summarises a call for an operator without a value: the names
// of the arguments it was given.
func argNames(args json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil || len(m) == 0 {
		return "no arguments"
	}
	names := make([]string, 0, len(m))
	for k := range m {
		names = append(names, k)
	}
	slices.Sort(names)
	return "arguments: " + strings.Join(names, ", ")
}

func usesBrowser(grants capability.Set) bool {
	return grants.Has(capability.BrowserRead) || grants.Has(capability.BrowserAct) || grants.Has(capability.BrowserEval)
}
