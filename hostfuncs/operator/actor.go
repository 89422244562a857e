package operator

import (
	"context"
	"slices"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/weborigin"
)

// Who acts on a session from outside the agent's calls. The kernel treats
// everyone who is not a logged-in operator as the agent: the agent's own
// MCP client answering an elicitation, and whoever holds a takeover link
// (the link went to that client, which may be the agent's own process).
// They see no secret, act under the personality's approval policy, and
// release no withheld page; only an operator does.
const (
	// ActorOperator: a person logged in to the console with their own
	// operator token.
	ActorOperator = "operator"
	// ActorLink: whoever holds a takeover link (its cookie).
	ActorLink = "link"
	// ActorHost: the host itself (a link declined with no console there).
	ActorHost = "host"
)

// Actor is who did something to a takeover or a page.
type Actor struct {
	Kind string // ActorOperator, ActorLink or ActorHost
	Name string // the operator's name, for the event log
}

// Operator reports whether a is a logged-in operator.
func (a Actor) Operator() bool { return a.Kind == ActorOperator && a.Name != "" }

// String is how events record a.
func (a Actor) String() string {
	if a.Kind == ActorOperator {
		return "operator " + a.Name
	}
	if a.Kind == "" {
		return "unknown"
	}
	return a.Kind
}

type takeoverViaKey struct{}

// WithTakeoverVia returns ctx carrying where a takeover asked on it may
// reach a person ([personalities.P.takeover] via): the host sets it on
// every takeover call. Without it, or without ViaClient in it, no link
// goes to the agent's client: the client is the agent until a personality
// opts in.
func WithTakeoverVia(ctx context.Context, via []string) context.Context {
	return context.WithValue(ctx, takeoverViaKey{}, slices.Clone(via))
}

// linkAllowed reports whether ctx opts in to sending the takeover link to
// the agent's client.
func linkAllowed(ctx context.Context) bool {
	via, _ := ctx.Value(takeoverViaKey{}).([]string)
	return slices.Contains(via, ViaClient)
}

// Client grants. An answer "for this origin" from the agent's client is
// the client's grant (Grant.Via = ViaClient), never an operator's: it is
// kept for the client's session only (GrantForSession) unless the config
// lets it persist, and a stored one counts only while the personality's
// approval.via still names the client (Grants.Allows, clientOK).

// FromClient reports whether the agent's client made gr: marked so, or
// stored before grants were marked (its By names the client, as answers
// from the client were recorded).
func (gr Grant) FromClient() bool {
	return gr.Via == ViaClient || strings.HasPrefix(gr.By, "client ")
}

// GrantForSession keeps a grant the agent's client made for its session
// only: it is forgotten when the session closes.
func (d *Desk) GrantForSession(personality, session string, gr Grant) error {
	if err := gr.check(); err != nil {
		return err
	}
	gr.Via = ViaClient
	k := sessKey{personality, session}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return abi.Errorf(abi.CodeNotAvailable, "wasmwright is shutting down: no grant kept")
	}
	if !slices.ContainsFunc(d.sessionGrants[k], gr.same) {
		d.sessionGrants[k] = append(d.sessionGrants[k], gr)
	}
	return nil
}

// SessionAllows reports whether a grant the agent's client made in this
// session (GrantForSession) lets tool (of risk) act on the page's origin.
func (d *Desk) SessionAllows(personality, session, tool string, risk abi.Risk, page string) bool {
	o := weborigin.Of(page)
	if o == weborigin.Opaque {
		return false
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return slices.ContainsFunc(d.sessionGrants[sessKey{personality, session}], func(gr Grant) bool {
		return gr.covers(tool, risk, o)
	})
}
