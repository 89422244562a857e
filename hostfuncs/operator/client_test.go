package operator

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
)

// chatClient is an agent's client whose user answers what the test says:
// each question is handed to the test with a channel for the answer, and
// a withdrawn question (its context done) is reported.
type chatClient struct {
	asked     chan chan string
	withdrawn chan struct{}
}

func (c *chatClient) Name() string     { return "chat" }
func (c *chatClient) CanOpenURL() bool { return false }
func (c *chatClient) OpenURL(context.Context, string, string, string) (bool, error) {
	return false, nil
}
func (c *chatClient) Complete(string) {}
func (c *chatClient) Approve(ctx context.Context, a Approval) (string, error) {
	answer := make(chan string, 1)
	c.asked <- answer
	select {
	case v := <-answer:
		return v, nil
	case <-ctx.Done():
		c.withdrawn <- struct{}{}
		return "", ctx.Err()
	}
}

// TestAskBothFirstAnswerWins: asked on the console and in the agent's
// client at once, the first answer settles the call and withdraws the
// other (the client's question is cancelled; the card goes); via limits
// where it is asked; a client dismissing is refused.
func TestAskBothFirstAnswerWins(t *testing.T) {
	d := New(Options{})
	c := &chatClient{asked: make(chan chan string, 1), withdrawn: make(chan struct{}, 1)}
	ctx := WithClient(context.Background(), c)
	a := Approval{Personality: "p", Session: "s", Tool: "browser_click", Risk: abi.RiskAct, Origin: "http://127.0.0.1:1", Via: []string{ViaClient, ViaConsole}}
	defer d.Attach("p")()
	ask := func(a Approval) <-chan error {
		done := make(chan error, 1)
		go func() { _, err := d.Ask(ctx, a, time.Minute); done <- err }()
		return done
	}

	// The console answers first: the client's question is withdrawn.
	done := ask(a)
	<-c.asked
	if n := len(d.Approvals()); n != 1 {
		t.Fatalf("%d console cards, want 1", n)
	}
	if err := d.Decide(d.Approvals()[0].ID, Decision{Verdict: ApproveOnce, By: "olivia"}); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	<-c.withdrawn

	// The client answers first: the card goes.
	done = ask(a)
	(<-c.asked) <- Deny
	if err := <-done; code(err) != abi.CodeRefused {
		t.Fatalf("denied in the client: %v", err)
	}
	if n := len(d.Approvals()); n != 0 {
		t.Fatalf("%d console cards left after the client answered", n)
	}

	// Dismissed in the client (no console in via): refused.
	a.Via = []string{ViaClient}
	done = ask(a)
	if n := len(d.Approvals()); n != 0 {
		t.Fatal("via = [client] put a card on the console")
	}
	(<-c.asked) <- ""
	if err := <-done; code(err) != abi.CodeRefused || !strings.Contains(abi.AsError(err).Message, "dismissed") {
		t.Fatalf("dismissed: %v", err)
	}

	// via = [client] and no client that can ask: refused at once, saying why.
	if _, err := d.Ask(WithClient(context.Background(), nil), Approval{Personality: "q", Tool: "t", Risk: abi.RiskAct, Via: []string{ViaClient}}, time.Minute); code(err) != abi.CodeRefused ||
		!strings.Contains(abi.AsError(err).Message, "declared no elicitation capability") {
		t.Fatalf("no client, via client only: %v", err)
	}
}
