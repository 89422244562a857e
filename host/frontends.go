package host

import (
	"context"

	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/hostfuncs/browser"
	"github.com/wasmwright/wasmwright/hostfuncs/operator"
	"github.com/wasmwright/wasmwright/hostfuncs/vault"
	"github.com/wasmwright/wasmwright/hostfuncs/weborigin"
)

// What the front-ends (frontend/mcp, frontend/console) see of the kernel.
// A front-end imports host and no service package (internal/layout fences
// it): the values it exchanges with the services are named here as
// aliases, so they pass through unchanged, and what it asks of a service
// is an interface below, which the service's own type satisfies.

// Values the front-ends show or pass on.
type (
	// Event is one entry of the event log.
	Event = hostfuncs.Event
	// Progress is what a call in flight reports (notifications/progress).
	Progress = hostfuncs.Progress
	// Approval is a call waiting for a person's verdict.
	Approval = operator.Approval
	// ApprovalTarget is the element an approval or takeover is about.
	ApprovalTarget = operator.Target
	// Decision is a person's verdict on an approval.
	Decision = operator.Decision
	// Takeover is a session handed to a person.
	Takeover = operator.Takeover
	// Actor is who acts at the desk: a logged-in operator or a link holder.
	Actor = operator.Actor
	// ApprovalClient is the agent's own client, asked in form mode.
	ApprovalClient = operator.Client
	// TakeoverLinker mints takeover links (the console).
	TakeoverLinker = operator.Linker
	// StoredLogin is one stored credential's public description.
	StoredLogin = vault.Info
	// LiveFrame is one frame of a live view.
	LiveFrame = browser.Frame
	// OperatorInput is a person's input into a live view.
	OperatorInput = browser.OperatorInput
	// OperatorSession is one browser session as the console lists it.
	OperatorSession = browser.OperatorSession
	// TargetInfo describes an approval's element (words, picture).
	TargetInfo = browser.TargetInfo
)

// Who acts, and the verdicts of an approval.
const (
	ActorOperator = operator.ActorOperator
	ActorLink     = operator.ActorLink
	ApproveOnce   = operator.ApproveOnce
	ApproveOrigin = operator.ApproveOrigin
	Deny          = operator.Deny
)

// OperatorDesk is what a front-end does at the operator desk
// (*operator.Desk): approvals, takeovers and who drives a session.
type OperatorDesk interface {
	Subscribe() (<-chan struct{}, func())
	Takeovers() []Takeover
	Approvals() []Approval
	Held(personality, session string) (Takeover, bool)
	Awaiting(personality, session string) bool
	Controlled(personality, session string) bool
	Driven(personality, session string) bool
	ClientName(personality, session string) string
	EndTakeover(id string, handBack bool, by Actor) error
	Decide(id string, dec Decision) error
	Attach(personality string) (detach func())
	Control(personality, session string) (release func())
	SetLinker(l TakeoverLinker)
}

// LiveBrowser is what the console shows and drives of the browser
// (*browser.Service): the sessions, their live view and a person's input.
type LiveBrowser interface {
	OperatorSessions() []OperatorSession
	DescribeTarget(personality, session, ref string, picture bool) TargetInfo
	Screencast(ctx context.Context, personality, session string, maxW, maxH int, frame func(LiveFrame)) error
	ScreencastConcealed(ctx context.Context, personality, session string, maxW, maxH int, frame func(LiveFrame), failed func(error)) error
	Input(personality, session string, in OperatorInput) error
}

var (
	_ OperatorDesk = (*operator.Desk)(nil)
	_ LiveBrowser  = (*browser.Service)(nil)
)

// WithProgress lets a call in flight report its progress to the caller.
func WithProgress(ctx context.Context) (context.Context, *Progress) {
	return hostfuncs.WithProgress(ctx)
}

// WithApprovalClient makes c the agent's client that approvals and
// takeover links of this call may be asked through.
func WithApprovalClient(ctx context.Context, c ApprovalClient) context.Context {
	return operator.WithClient(ctx, c)
}

// ElementWords names an approval's element in words, quoting the page's
// own words with quote.
func ElementWords(t *ApprovalTarget, quote func(string, int) string) string {
	return operator.ElementWords(t, quote)
}

// Quoted is words that are not the host's, as a person is shown them: one
// plain line of at most n runes, quoted, every markdown mark escaped.
func Quoted(s string, n int) string { return operator.Quoted(s, n) }

// PlainLine is s as one plain line of at most n runes, without the
// invisible characters that reorder or hide text.
func PlainLine(s string, n int) string { return operator.PlainLine(s, n) }

// ParseOrigin checks an origin someone wrote (scheme://host[:port]) and
// returns it normalised, or input_invalid with the fix.
func ParseOrigin(raw string) (string, error) { return weborigin.Parse(raw) }

// OriginOf is the origin of a page or frame URL, as the browser reports
// it; opaque for anything but an http(s) URL with a valid host.
func OriginOf(rawURL string) string { return weborigin.Of(rawURL) }
