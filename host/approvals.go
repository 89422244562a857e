package host

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/browser"
	"github.com/wasmwright/wasmwright/hostfuncs/operator"
	"github.com/wasmwright/wasmwright/hostfuncs/vault"
	"github.com/wasmwright/wasmwright/internal/spans"
	"github.com/wasmwright/wasmwright/sandbox"
)

// approver decides whether a call may run where a person may have to say
// so: the human gate (a session a person holds), the personality's
// approval mode for the call's risk, the stored grants, and the operator
// desk it asks. Its desk and browser are the host's, nil without them.
type approver struct {
	cfg     *Config
	log     *slog.Logger
	desk    *operator.Desk
	browser *browser.Service
	// grants are the origin-scoped act grants, opened on first use.
	grantsOnce sync.Once
	grants     *operator.Grants
	grantsErr  error
}

// gate refuses a call on a session a human holds: every tool but the
// takeover itself while a takeover is pending (the desk refuses a second
// request), and every tool that is not read-only while an operator drives
// the page from the console.
func (ap *approver) gate(p *personality, r *route, session string) error {
	if ap.desk == nil {
		return nil
	}
	if _, held := ap.desk.Held(p.name, session); held && !needsTakeover(r.spec) {
		return abi.Errorf(abi.CodeNotAvailable, "A human has taken over this browser session; wait for the hand-back (the pending browser_request_takeover call returns when they are done)")
	}
	if ap.desk.Controlled(p.name, session) && toolRisk(r.spec) != abi.RiskRead && !needsTakeover(r.spec) {
		return abi.Errorf(abi.CodeNotAvailable, "An operator is controlling this page from the console; tools that change it are refused until they let go. Inspection tools (browser_snapshot, browser_screenshot, browser_console) still work.")
	}
	return nil
}

// attend marks a call attended while an operator's console is
// connected for the personality, and gives a takeover call a deadline as
// long as the wait it asks for (plus the usual call timeout).
func (ap *approver) attend(ctx context.Context, p *personality, r *route, args json.RawMessage) context.Context {
	if ap.desk == nil {
		return ctx
	}
	if ap.desk.Attended(p.name) {
		ctx = vault.WithHumanPresent(ctx)
	}
	if needsTakeover(r.spec) {
		ctx = operator.WithTakeoverVia(ctx, p.cfg.takeoverVia())
		var a struct {
			TimeoutS int `json:"timeout_s"`
		}
		json.Unmarshal(args, &a) // validated against the schema already
		ctx = sandbox.WithTimeout(ctx, operator.ClampTimeout(a.TimeoutS)+ap.cfg.Host.CallTimeout.Duration)
	}
	return ctx
}

// judge applies the personality's approval mode for the call's risk
// (modeRisk): allow runs it, deny refuses it, ask runs it when a stored
// grant covers the origin of every frame the call acts in (as the
// browser reports it, never an argument; the page's when it names no
// element) or an operator approves it, asked about each element it acts
// on and that element's frame origin.
func (ap *approver) judge(ctx context.Context, p *personality, r *route, req Request, j *judgment) error {
	defer spans.Start("h.judge")()
	j.origin = pageOrigin(operatorBrowser(ap.browser), p.name, req.Session)
	risk := modeRisk(p, r.spec, req.Args)
	what := fmt.Sprintf("%s (risk %s)", r.spec.Name, risk)
	if done, err := j.byMode(p.cfg.approvalMode(risk), func() error {
		return abi.Errorf(abi.CodeRefused, "%s is denied for personality %s: do not retry it; tell the user what you wanted to do. (The key that allows it: personalities.%s.approval.%s = \"ask\" or \"allow\".)", what, p.name, p.name, risk)
	}); done {
		return err
	}
	j.byOrigin = true
	origins, err := ap.bind(ctx, p, r, req, j)
	if err != nil {
		j.decision = "ask:unbound"
		return err
	}
	grants, gerr := ap.store()
	if ap.grantedAll(p, req.Session, r.spec.Name, risk, origins) {
		j.decision = DecisionGrant
		return nil
	}
	if ap.desk == nil {
		j.decision = "ask:unattended"
		return abi.Errorf(abi.CodeRefused, "Approval required: %s needs an operator's approval and no operator console runs. Ask the user to approve it in the wasmwright console (wasmwright serve), or to allow it with personalities.%s.approval.%s, then call it again.", what, p.name, risk)
	}
	a := operator.Approval{Personality: p.name, Session: req.Session, Tool: r.spec.Name, Risk: risk, Origin: j.origin, Summary: argNames(req.Args), Via: p.cfg.Approval.Via}
	if j.bound != nil {
		a.Target, a.Targets = boundTargets(j.bound, aimsOf(req.Args))
	} else {
		a.Target = ap.describeTarget(p.name, req.Session, req.Args)
	}
	a.Typing = typing(req.Args, j.bound)
	dec, err := ap.desk.Ask(ctx, a, p.cfg.approvalTimeout())
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
			gerr = ap.desk.GrantForSession(p.name, req.Session, gr)
		case gerr == nil:
			gerr = grants.Add(p.name, gr)
		}
		if gerr != nil {
			ap.log.Warn("approval for the origin not stored: it covered this call only", "personality", p.name, "tool", r.spec.Name, "err", gerr)
		}
	}
	return nil
}

// grantedAll reports whether grants cover the call on every one of
// origins (a drag from one frame into another needs both).
func (ap *approver) grantedAll(p *personality, session, tool string, risk abi.Risk, origins []string) bool {
	for _, o := range origins {
		if !ap.granted(p, session, tool, risk, o) {
			return false
		}
	}
	return len(origins) > 0
}

// granted reports whether a grant covers tool (of risk) on origin for the
// session: an operator's stored grant, or, only while the personality's
// approval.via names the agent's client, one the client made (stored, or
// kept for this session). A store that cannot be read grants nothing.
func (ap *approver) granted(p *personality, session, tool string, risk abi.Risk, origin string) bool {
	clientOK := p.cfg.clientApproves()
	if grants, err := ap.store(); err == nil && grants.Allows(p.name, tool, risk, origin, clientOK) {
		return true
	}
	return clientOK && ap.desk != nil && ap.desk.SessionAllows(p.name, session, tool, risk, origin)
}

// describeTarget is what an approval shows of the element a call names
// (its "ref" argument) and its page, nil without a browser session. No
// picture: the console takes one when it shows the card, so asking is
// not slowed by a screenshot.
func (ap *approver) describeTarget(personality, session string, args json.RawMessage) *operator.Target {
	b := ap.browser
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

// store is the store of origin-scoped act grants (host.grants_dir),
// opened on first use (Host.Grants).
func (ap *approver) store() (*operator.Grants, error) {
	ap.grantsOnce.Do(func() {
		dir, err := ap.cfg.GrantsDir()
		if err != nil {
			ap.grantsErr = err
			return
		}
		ap.grants, ap.grantsErr = operator.OpenGrants(dir)
	})
	return ap.grants, ap.grantsErr
}

// bind resolves the elements the call acts on to their nodes and
// frames (browser.Service.Bind) before it is judged: the origins an
// approval or a grant is decided by are those of the frames that receive
// the act, never the top page's around them. j.origin is their one
// origin, or "" when they span several (then no single grant covers the
// call: it may be approved once). Without a browser, or for a call that
// names no element, the page's origin is judged, as before.
func (ap *approver) bind(ctx context.Context, p *personality, r *route, req Request, j *judgment) ([]string, error) {
	b := ap.browser
	aims := aimsOf(req.Args)
	if b == nil || len(aims) == 0 || !usesBrowser(r.grants) {
		return []string{j.origin}, nil
	}
	bound, err := b.Bind(ctx, p.name, req.Session, aims)
	if err != nil || bound == nil {
		return []string{j.origin}, err
	}
	j.bound = bound
	origins := bound.Origins()
	j.origin = ""
	if len(origins) == 1 {
		j.origin = origins[0]
	}
	return origins, nil
}

// byMode records what a risk's approval mode decides alone: allow runs
// the call, deny refuses it with denied's error. ask is not done: grants
// and then an operator decide.
func (j *judgment) byMode(mode string, denied func() error) (done bool, err error) {
	switch mode {
	case ModeAllow:
		j.decision = DecisionAllow
		return true, nil
	case ModeDeny:
		j.decision = DecisionDeny
		return true, denied()
	}
	return false, nil
}

// linkInput is JudgeLinkInput's decision, recorded in j.
func (ap *approver) linkInput(ctx context.Context, p *personality, session, kind string, j *judgment) error {
	risk, origin := j.risk, j.origin
	what := fmt.Sprintf("a %s from the takeover link (risk %s)", kind, risk)
	if done, err := j.byMode(p.cfg.approvalMode(risk), func() error {
		return abi.Errorf(abi.CodeRefused, "%s is denied for personality %s, as it is for the agent: only an operator logged in to the console may act on this page (personalities.%s.approval.%s)", what, p.name, p.name, risk)
	}); done {
		return err
	}
	page := ""
	if b := operatorBrowser(ap.browser); b != nil {
		page = b.PageURL(p.name, session)
	}
	if grants, gerr := ap.store(); gerr == nil && grants.Allows(p.name, LinkInputTool, risk, origin, false) {
		j.decision = DecisionGrant
		return nil
	}
	if ap.desk == nil || !ap.desk.Attended(p.name) {
		j.decision = "ask:unattended"
		return abi.Errorf(abi.CodeRefused, "Approval required: %s needs an operator's approval (personalities.%s.approval.%s = \"ask\") and no operator console is connected. Ask an operator to open the wasmwright console, then try again; until then you can watch the page and hand it back.", what, p.name, risk)
	}
	a := operator.Approval{Personality: p.name, Session: session, Tool: LinkInputTool, Risk: risk, Origin: origin,
		Summary: "a " + kind + " on the live view by whoever holds the takeover link, not an operator", Via: []string{operator.ViaConsole}}
	if page != "" {
		a.Target = &operator.Target{URL: page}
	}
	dec, err := ap.desk.Ask(ctx, a, p.cfg.approvalTimeout())
	j.decision = "ask:" + dec.Verdict
	if err != nil {
		return err
	}
	// The approval was for the page on origin: one that moved meanwhile
	// is asked about again, not acted on.
	if now := pageOrigin(operatorBrowser(ap.browser), p.name, session); now != origin {
		return abi.Errorf(abi.CodeRefused, "the page left %s while %s waited for approval: nothing was done; try again on the page as it is now", origin, what)
	}
	if dec.Verdict == operator.ApproveOrigin {
		grants, gerr := ap.store()
		if gerr == nil {
			gerr = grants.Add(p.name, operator.Grant{Tool: LinkInputTool, Origin: origin, By: dec.By})
		}
		if gerr != nil {
			ap.log.Warn("approval for the origin not stored: it covered this input only", "personality", p.name, "err", gerr)
		}
	}
	return nil
}
