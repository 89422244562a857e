package operator

import (
	"context"
	"fmt"
	"sort"
	"time"

	"github.com/wasmwright/wasmwright/abi"
)

// Verdicts an operator gives an approval.
const (
	ApproveOnce   = "once"   // this call only
	ApproveOrigin = "origin" // this call, and store a grant for the tool on this origin
	Deny          = "deny"

	verdictClosed = "closed" // the session closed while waiting
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
	Summary  string    `json:"summary,omitempty"`
	Created  time.Time `json:"created"`
	Deadline time.Time `json:"deadline"`

	done chan Decision
}

// Decision is an operator's answer.
type Decision struct {
	Verdict string `json:"verdict"`
	By      string `json:"by,omitempty"`
}

func (a *Approval) settle(dec Decision) {
	select {
	case a.done <- dec:
	default: // already settled
	}
}

// Ask puts a call before the operators and waits for a decision, at most
// timeout. With no console connected for the personality it fails at once
// with a refusal the agent can relay: never a silent wait. The returned
// Decision is ApproveOnce or ApproveOrigin; a denial, a timeout or a
// closed session is an error.
func (d *Desk) Ask(ctx context.Context, a Approval, timeout time.Duration) (Decision, error) {
	what := fmt.Sprintf("%s (risk %s)", a.Tool, a.Risk)
	if a.Origin != "" {
		what += " on " + a.Origin
	}
	if !d.Attended(a.Personality) {
		return Decision{}, abi.Errorf(abi.CodeRefused, "Approval required: %s needs an operator's approval and no operator console is connected for this personality. Ask the user to open the wasmwright console and approve, then call it again.", what)
	}
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
	d.event("approval.requested", a.Personality, a.Session, map[string]any{"id": a.ID, "tool": a.Tool, "risk": a.Risk, "origin": a.Origin})

	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var dec Decision
	select {
	case dec = <-a.done:
	case <-timer.C:
		dec.Verdict = "timeout"
	case <-ctx.Done():
		dec.Verdict = "cancelled"
	}
	d.mu.Lock()
	delete(d.approvals, a.ID)
	d.mu.Unlock()
	d.changed()
	d.event("approval.decided", a.Personality, a.Session, map[string]any{"id": a.ID, "tool": a.Tool, "risk": a.Risk, "origin": a.Origin, "verdict": dec.Verdict, "by": dec.By})
	switch dec.Verdict {
	case ApproveOnce, ApproveOrigin:
		return dec, nil
	case Deny:
		return dec, abi.Errorf(abi.CodeRefused, "The operator denied %s. Do not retry it; tell the user what you wanted to do.", what)
	case "timeout":
		return dec, abi.Errorf(abi.CodeRefused, "Approval required: no operator decided on %s within %s. Ask the user to approve it in the wasmwright console, then call it again.", what, timeout.Round(time.Second))
	case verdictClosed:
		return dec, abi.Errorf(abi.CodeExecutionFailed, "the browser session closed while %s waited for approval", what)
	}
	return dec, abi.Errorf(abi.CodeTimeout, "the call was cancelled while %s waited for approval", what)
}

// Approvals lists the pending approvals, oldest first.
func (d *Desk) Approvals() []Approval {
	d.mu.Lock()
	out := make([]Approval, 0, len(d.approvals))
	for _, a := range d.approvals {
		out = append(out, *a)
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
	d.mu.Lock()
	defer d.mu.Unlock()
	a, ok := d.approvals[id]
	if !ok {
		return abi.Errorf(abi.CodeNotFound, "no pending approval %q: it was decided, timed out or its call ended", id)
	}
	if dec.Verdict == ApproveOrigin && a.Origin == "" {
		return abi.Errorf(abi.CodeInputInvalid, "this call has no page origin to approve for: approve it once or deny it")
	}
	a.settle(dec)
	return nil
}
