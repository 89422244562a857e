package mcp

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmwright/wasmwright/host"
)

// The agent's own client as an host.ApprovalClient: approvals asked in form
// mode (elicitation/create) and takeover links sent in URL mode, when the
// client declared the elicitation capability. A client on a protocol
// version that forbids server-initiated requests during a call (2026-07-28
// and later: multi round-trip requests) is not asked; the console is.

// Form answers of an approval question.
const (
	choiceField = "decision"
)

// elicitClient asks through one MCP session.
type elicitClient struct {
	ss   *sdk.ServerSession
	name string
	url  bool
}

// clientOf is the host.ApprovalClient of ss, nil when its client cannot be
// asked during a call.
func clientOf(ss *sdk.ServerSession) host.ApprovalClient {
	if ss == nil {
		return nil
	}
	ip := ss.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.Elicitation == nil || ip.ProtocolVersion >= "2026-07-28" {
		return nil
	}
	c := &elicitClient{ss: ss, name: ClientName(ss), url: ip.Capabilities.Elicitation.URL != nil}
	return c
}

// ClientName is the name an MCP session's client gave (clientInfo: its
// title, else its name), "" when it gave none.
func ClientName(ss *sdk.ServerSession) string {
	ip := ss.InitializeParams()
	if ip == nil || ip.ClientInfo == nil {
		return ""
	}
	if ip.ClientInfo.Title != "" {
		return capText(ip.ClientInfo.Title, 60)
	}
	return capText(ip.ClientInfo.Name, 60)
}

func capText(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return -1
		}
		return r
	}, s)
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func (c *elicitClient) Name() string     { return c.name }
func (c *elicitClient) CanOpenURL() bool { return c.url }

// Approve asks in form mode: one choice, approve once, approve for the
// page's origin (offered only when the page has one) or deny.
func (c *elicitClient) Approve(ctx context.Context, a host.Approval) (string, error) {
	choices := []any{map[string]any{"const": host.ApproveOnce, "title": "Approve once"}}
	if a.Origin != "" {
		choices = append(choices, map[string]any{"const": host.ApproveOrigin, "title": "Approve " + a.Tool + " on " + a.Origin + " from now on"})
	}
	choices = append(choices, map[string]any{"const": host.Deny, "title": "Deny"})
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			choiceField: map[string]any{"type": "string", "title": "Decision", "oneOf": choices},
		},
		"required": []string{choiceField},
	}
	res, err := c.ss.Elicit(ctx, &sdk.ElicitParams{Mode: "form", Message: ApprovalMessage(a), RequestedSchema: schema})
	if err != nil {
		return "", err
	}
	switch res.Action {
	case "accept":
		v, _ := res.Content[choiceField].(string)
		switch v {
		case host.ApproveOnce, host.ApproveOrigin, host.Deny:
			return v, nil
		}
		return "", fmt.Errorf("the client answered %q, not one of the choices offered", v)
	case "decline":
		return host.Deny, nil
	}
	return "", nil // cancel: dismissed
}

// ApprovalMessage is the question an approval puts to a person: the
// tool, its risk, the element (role, visible text beside its accessible
// name when they differ, ref), the page's title and origin. Never an
// argument's value. The page's words are quoted (host.Quoted: one
// plain line, markdown marks escaped) and said to be the page's; the
// origin is the host's own computation, after them, never page text.
func ApprovalMessage(a host.Approval) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The agent wants to run %s (risk %s)", a.Tool, a.Risk)
	targets := a.Targets
	if len(targets) == 0 && a.Target != nil {
		targets = []host.ApprovalTarget{*a.Target}
	}
	for i, t := range targets {
		if t.Ref == "" && t.At == "" && t.Role == "" {
			continue
		}
		what := host.ElementWords(&t, host.Quoted)
		sep := " on the "
		if i > 0 {
			sep = ", then the "
		}
		if t.Part != "" {
			what = t.Part + " " + what
		}
		where := "[ref " + t.Ref + "]"
		if t.Ref == "" {
			where = t.At
		}
		fmt.Fprintf(&b, "%s%s %s", sep, what, where)
		if t.Origin != a.Origin {
			fmt.Fprintf(&b, " in a frame of %s", cmp.Or(t.Origin, "null (an opaque origin)"))
		}
	}
	if t := a.Target; t != nil && t.Title != "" {
		fmt.Fprintf(&b, " on a page whose title reads %s", host.Quoted(t.Title, 120))
	}
	if a.Origin != "" {
		fmt.Fprintf(&b, ", at the origin %s", a.Origin)
	}
	b.WriteString(".")
	if a.Summary != "" {
		fmt.Fprintf(&b, " (%s.)", a.Summary)
	}
	fmt.Fprintf(&b, " Approve it within %s?", a.Deadline.Sub(a.Created).Round(time.Second))
	return b.String()
}

// OpenURL sends the user to url in URL mode.
func (c *elicitClient) OpenURL(ctx context.Context, id, message, url string) (bool, error) {
	res, err := c.ss.Elicit(ctx, &sdk.ElicitParams{Mode: "url", Message: message, URL: url, ElicitationID: id})
	if err != nil {
		return false, err
	}
	return res.Action == "accept", nil
}

// Complete ends the URL elicitation id. Bounded: a client that stopped
// reading does not hold the hand-back.
func (c *elicitClient) Complete(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c.ss.NotifyElicitationComplete(ctx, &sdk.ElicitationCompleteParams{ElicitationID: id})
}
