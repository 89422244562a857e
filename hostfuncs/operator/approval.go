package operator

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"time"

	"github.com/wasmwright/wasmwright/abi"
)

// Verdicts an operator gives an approval.
const (
	ApproveOnce   = "once"   // this call only
	ApproveOrigin = "origin" // this call, and store a grant for the tool on this origin
	Deny          = "deny"

	verdictClosed    = "closed"    // the session closed while waiting
	verdictDismissed = "dismissed" // the agent's client closed the question without an answer
	verdictNoClient  = "unasked"   // the agent's client could not ask, and no console was there
)

// Approval is one call waiting for an operator's decision.
type Approval struct {
	ID          string   `json:"id"`
	Personality string   `json:"personality"`
	Session     string   `json:"session"`
	Tool        string   `json:"tool"`
	Risk        abi.Risk `json:"risk"`
	Origin      string   `json:"origin,omitempty"`
	// Summary says what the call will do, without values (argument names,
	// refs, the URL to open).
	Summary string `json:"summary,omitempty"`
	// Typing is the text the call types (browser_type), masked: the
	// session's and the vault's secret values hidden (Ask), and all of it
	// when the field is a password field (the caller). "" for other calls.
	Typing   string    `json:"typing,omitempty"`
	Created  time.Time `json:"created"`
	Deadline time.Time `json:"deadline"`
	// Target is the element the call acts on and its page, when known.
	Target *Target `json:"target,omitempty"`
	// Targets are every element the call acts on, Target first, when it
	// names more than one (a drag's two ends, each field of a form fill).
	Targets []Target `json:"targets,omitempty"`
	// Client is the name of the agent's MCP client (clientInfo), when known.
	Client string `json:"client,omitempty"`
	// Via is where it may be asked (ViaConsole, ViaClient); empty: the
	// console only.
	Via []string `json:"-"`

	done    chan Decision
	console bool // a card on the console: listed by Approvals
}

// Decision is an operator's answer.
type Decision struct {
	Verdict string `json:"verdict"`
	By      string `json:"by,omitempty"`
	// Via is ViaClient when the agent's client answered: its grant is the
	// client's (Grant.Via), not an operator's.
	Via string `json:"via,omitempty"`
}

func (a *Approval) settle(dec Decision) {
	select {
	case a.done <- dec:
	default: // already settled
	}
}

// Ask puts a call before the people who may approve it and waits for a
// decision, at most timeout: a console card while an operator's console
// is connected for the personality, and a question in the agent's own
// client (WithClient) when a.Via names ViaClient; both at once, the first
// answer wins and the other is withdrawn. With neither it fails at once
// with a refusal the agent can relay: never a silent wait. The returned
// Decision is ApproveOnce or ApproveOrigin; a denial, a dismissal, a
// timeout or a closed session is an error.
func (d *Desk) Ask(ctx context.Context, a Approval, timeout time.Duration) (Decision, error) {
	what := fmt.Sprintf("%s (risk %s)", a.Tool, a.Risk)
	if a.Origin != "" {
		what += " on " + a.Origin
	}
	a.console = d.Attended(a.Personality) && (len(a.Via) == 0 || slices.Contains(a.Via, ViaConsole))
	client := ClientOf(ctx)
	if !slices.Contains(a.Via, ViaClient) {
		client = nil
	}
	if client != nil {
		a.Client = client.Name()
	}
	if !a.console && client == nil {
		return Decision{}, abi.Errorf(abi.CodeRefused, "Approval required: %s needs an operator's approval and %s. Ask the user to open the wasmwright console and approve, then call it again.", what, nobodyAsked(a.Via))
	}
	// The page's words, and the agent's (its arguments' names, its
	// client's name): masked, one plain line each.
	a.Target = d.pageTarget(a.Personality, a.Session, a.Target)
	for i := range a.Targets {
		a.Targets[i] = *d.pageTarget(a.Personality, a.Session, &a.Targets[i])
	}
	a.Summary = PlainLine(d.mask(a.Personality, a.Session, a.Summary), 200)
	a.Typing = PlainLine(d.mask(a.Personality, a.Session, a.Typing), 200)
	a.Client = PlainLine(d.mask(a.Personality, a.Session, a.Client), 60)
	now := d.opts.Now()
	a.ID, a.Created, a.Deadline, a.done = newID(), now, now.Add(timeout), make(chan Decision, 1)
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return Decision{}, abi.Errorf(abi.CodeNotAvailable, "wasmwright is shutting down: no approval can be asked")
	}
	d.approvals[a.ID] = &a
	d.mu.Unlock()
	d.changed()
	d.event("approval.requested", a.Personality, a.Session, map[string]any{"id": a.ID, "tool": a.Tool, "risk": a.Risk, "origin": a.Origin, "via": asked(a.console, client != nil)})
	askCtx, withdraw := context.WithCancel(ctx)
	defer withdraw()
	if client != nil {
		go d.askClient(askCtx, client, &a)
	}

	dec, unanswered := await(ctx, a.done, timeout)
	if unanswered != "" {
		dec.Verdict = unanswered
	}
	withdraw()
	d.mu.Lock()
	delete(d.approvals, a.ID)
	d.mu.Unlock()
	d.changed()
	d.event("approval.decided", a.Personality, a.Session, map[string]any{"id": a.ID, "tool": a.Tool, "risk": a.Risk, "origin": a.Origin, "verdict": dec.Verdict, "by": dec.By})
	return dec, refusal(dec, what, timeout)
}

// askClient asks the agent's client and settles a with its answer. A
// client that cannot ask settles nothing while a console card waits.
func (d *Desk) askClient(ctx context.Context, c Client, a *Approval) {
	v, err := c.Approve(ctx, *a)
	if ctx.Err() != nil {
		return // settled elsewhere, timed out or cancelled: withdrawn
	}
	by := "client " + c.Name()
	switch {
	case err != nil:
		d.log.Warn("the agent's client could not ask for approval", "personality", a.Personality, "tool", a.Tool, "err", err)
		if !a.console {
			a.settle(Decision{Verdict: verdictNoClient, By: by, Via: ViaClient})
		}
	case v == "":
		a.settle(Decision{Verdict: verdictDismissed, By: by, Via: ViaClient})
	case v == ApproveOrigin && a.Origin == "":
		a.settle(Decision{Verdict: ApproveOnce, By: by, Via: ViaClient})
	default:
		a.settle(Decision{Verdict: v, By: by, Via: ViaClient})
	}
}

// refusal is the error of a decision: nil for an approval.
func refusal(dec Decision, what string, timeout time.Duration) error {
	switch dec.Verdict {
	case ApproveOnce, ApproveOrigin:
		return nil
	case Deny:
		if dec.Via == ViaClient {
			// The client's user answered, not an operator: say so, or the
			// agent tells its user an operator they never met said no.
			return abi.Errorf(abi.CodeRefused, "The user declined %s in the MCP client. Do not retry it; tell the user what you wanted to do.", what)
		}
		return abi.Errorf(abi.CodeRefused, "The operator denied %s. Do not retry it; tell the user what you wanted to do.", what)
	case verdictDismissed:
		return abi.Errorf(abi.CodeRefused, "The user dismissed the approval of %s without approving it. Do not retry it unasked; tell the user what you wanted to do.", what)
	case verdictNoClient:
		return abi.Errorf(abi.CodeRefused, "Approval required: %s needs approval and the agent's client could not ask for it (its elicitation failed) and no operator console is connected. Ask the user to open the wasmwright console and approve, then call it again.", what)
	case "timeout":
		return abi.Errorf(abi.CodeRefused, "Approval required: no operator decided on %s within %s. Ask the user to approve it in the wasmwright console, then call it again.", what, timeout.Round(time.Second))
	case verdictClosed:
		return abi.Errorf(abi.CodeExecutionFailed, "the browser session closed while %s waited for approval", what)
	}
	return abi.Errorf(abi.CodeTimeout, "the call was cancelled while %s waited for approval", what)
}

// nobodyAsked says why no one could be asked, after the ways allowed.
func nobodyAsked(via []string) string {
	switch {
	case len(via) == 0 || !slices.Contains(via, ViaClient):
		return "no operator console is connected for this personality"
	case !slices.Contains(via, ViaConsole):
		return "the agent's MCP client cannot ask its user (it declared no elicitation capability), the only way approval.via allows"
	}
	return "no operator console is connected for this personality, and the agent's MCP client cannot ask its user (it declared no elicitation capability)"
}

func asked(console, client bool) []string {
	var via []string
	if console {
		via = append(via, ViaConsole)
	}
	if client {
		via = append(via, ViaClient)
	}
	return via
}

// Awaiting reports whether a call of the session waits for an approval,
// asked anywhere (the console, the agent's client).
func (d *Desk) Awaiting(personality, session string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, a := range d.approvals {
		if a.Personality == personality && a.Session == session {
			return true
		}
	}
	return false
}

// Approvals lists the pending approvals, oldest first.
func (d *Desk) Approvals() []Approval {
	d.mu.Lock()
	out := make([]Approval, 0, len(d.approvals))
	for _, a := range d.approvals {
		if a.console {
			out = append(out, *a)
		}
	}
	d.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Created.Before(out[j].Created) })
	return out
}

// Decide answers the pending approval id with ApproveOnce, ApproveOrigin
// or Deny.
func (d *Desk) Decide(id string, dec Decision) error {
	switch dec.Verdict {
	case ApproveOnce, ApproveOrigin, Deny:
	default:
		return abi.Errorf(abi.CodeInputInvalid, "unknown verdict %q: use %s, %s or %s", dec.Verdict, ApproveOnce, ApproveOrigin, Deny)
	}
	dec.Via = "" // a console's answer is an operator's
	d.mu.Lock()
	defer d.mu.Unlock()
	a, ok := d.approvals[id]
	if !ok || !a.console {
		return abi.Errorf(abi.CodeNotFound, "no pending approval %q: it was decided, timed out or its call ended", id)
	}
	if dec.Verdict == ApproveOrigin && a.Origin == "" {
		return abi.Errorf(abi.CodeInputInvalid, "this call has no page origin to approve for: approve it once or deny it")
	}
	a.settle(dec)
	return nil
}
