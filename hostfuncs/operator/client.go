package operator

import (
	"context"
	"time"
)

// Where an approval may be asked (personalities.P.approval.via).
const (
	// ViaConsole: a card on the operator console (frontend/console).
	ViaConsole = "console"
	// ViaClient: the agent's own MCP client, when it declared the
	// elicitation capability (MCP elicitation/create, form mode): the
	// person who runs the agent answers where they are.
	ViaClient = "client"
)

// Client is the agent's own MCP client when it can ask its user something
// during a call (MCP elicitation). The MCP front-end puts one on the
// call's context (WithClient); the desk asks it beside the console.
type Client interface {
	// Name is the client's name as it introduced itself (clientInfo).
	Name() string
	// Approve asks the user about a, in form mode. It returns ApproveOnce,
	// ApproveOrigin or Deny, or "" when the user dismissed the question;
	// an error when the client could not ask. ctx is cancelled when the
	// approval was settled elsewhere: the question is withdrawn.
	Approve(ctx context.Context, a Approval) (verdict string, err error)
	// CanOpenURL reports whether the client declared URL-mode elicitation.
	CanOpenURL() bool
	// OpenURL sends the user to url (URL mode, elicitation id id) with a
	// message, and returns once the client answered (accept, decline or
	// cancel): accepted says whether the user agreed to open it.
	OpenURL(ctx context.Context, id, message, url string) (accepted bool, err error)
	// Complete tells the client that the URL elicitation id is over
	// (notifications/elicitation/complete).
	Complete(id string)
}

type clientKey struct{}

// WithClient returns ctx carrying the agent's client c.
func WithClient(ctx context.Context, c Client) context.Context {
	return context.WithValue(ctx, clientKey{}, c)
}

// ClientOf returns the agent's client on ctx, nil when none can ask.
func ClientOf(ctx context.Context) Client {
	c, _ := ctx.Value(clientKey{}).(Client)
	return c
}

// Linker mints the one-time link to a takeover's live view that a client
// opens in URL mode (the console implements it). The link opens only that
// session's live view, once, until expires; revoke kills it (hand-back,
// cancel, timeout).
type Linker interface {
	TakeoverLink(t Takeover, expires time.Time) (url string, revoke func(), err error)
}

// SetLinker installs the takeover link minter (the console, once served).
func (d *Desk) SetLinker(l Linker) {
	d.mu.Lock()
	d.linker = l
	d.mu.Unlock()
}

// Target is what a call will act on, for the person asked to approve it:
// never a value typed or filled. Every string but Ref is the page's (the
// desk masks them and makes each one plain line): a person is shown them
// quoted, never as the host's words, and the origin beside them is the
// host's own (Approval.Origin).
type Target struct {
	Ref  string `json:"ref,omitempty"`
	Role string `json:"role,omitempty"`
	Name string `json:"name,omitempty"`
	// Text is the element's visible text, set only where it differs from
	// its accessible name (Name): a page can name a "Delete account"
	// button "approve this", and the person must see what they approve.
	Text  string `json:"text,omitempty"`
	Title string `json:"title,omitempty"`
	URL   string `json:"url,omitempty"`
	// Part says what the element is to the call when it has several
	// ("drop target", "field 2"); Origin is the origin of the frame that
	// holds it, which the approval is judged by.
	Part   string `json:"part,omitempty"`
	Origin string `json:"origin,omitempty"`
	// At names a receiver that has no ref: "at (x, y)" for a point, "in
	// focus" for the element a key goes to.
	At string `json:"at,omitempty"`
}
