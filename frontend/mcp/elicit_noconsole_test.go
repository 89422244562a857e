package mcp

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/hostfuncs/operator"
)

// With approval.via = ["client"] and no operator console (a host started
// without Options.Operators, as `serve` does without [console]), a call
// that needs approval asks the agent's client when it declared
// elicitation: an approval runs the call, a decline is refused in the
// client's name (not an operator's); a client that cannot ask is refused
// at once, saying why.
func TestClientApprovesWithoutConsole(t *testing.T) {
	h, _ := newHost(t)
	h2 := startHost(t, hostSection(h.Config().Host.PluginsDir)+`
[plugins.mcptools]

[personalities.agent]
plugins = ["mcptools"]
tools = ["*"]
grants = []
approval = { act = "ask", via = ["client"], timeout = "60s" }
`, h.Config().Dir, host.Options{NoBrowser: true})
	s := New(h2, Options{Logger: quiet()})

	answers := make(chan *sdk.ElicitResult, 1)
	asked := make(chan string, 2)
	opts := &sdk.ClientOptions{
		Capabilities: &sdk.ClientCapabilities{Elicitation: &sdk.ElicitationCapabilities{Form: &sdk.FormElicitationCapabilities{}}},
		ElicitationHandler: func(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			asked <- req.Params.Message
			return <-answers, nil
		},
	}
	cs := connectAsking(t, s, "s1", opts)

	answers <- &sdk.ElicitResult{Action: "accept", Content: map[string]any{choiceField: operator.ApproveOnce}}
	if res := call(t, cs, "data", map[string]any{}); res.IsError {
		t.Fatalf("approved in the client, the call failed: %s", text(t, res))
	}
	if q := <-asked; !strings.Contains(q, "data (risk act)") {
		t.Fatalf("the client was asked %q", q)
	}

	answers <- &sdk.ElicitResult{Action: "decline"}
	res := call(t, cs, "data", map[string]any{})
	if got := text(t, res); !res.IsError || !strings.Contains(got, "declined data (risk act) in the MCP client") || strings.Contains(got, "operator denied") {
		t.Fatalf("declined in the client: %s", got)
	}
	<-asked

	// A client that declared no elicitation cannot be asked: refused at
	// once, saying so.
	mute := connectAsking(t, s, "s2", nil)
	res = call(t, mute, "data", map[string]any{})
	if got := text(t, res); !res.IsError || !strings.Contains(got, "refused") || !strings.Contains(got, "declared no elicitation") {
		t.Fatalf("a client that cannot ask: %s", got)
	}
}

// connectAsking connects a client on a protocol version that lets the
// server ask it during a call (before 2026-07-28's multi round-trip).
func connectAsking(t *testing.T, s *Server, session string, opts *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	st, ct := sdk.NewInMemoryTransports()
	go s.ServeTransport(context.Background(), st, "agent", session)
	cs, err := client(opts).Connect(context.Background(), ct, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}
