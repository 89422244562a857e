package operator

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
)

// releasing is a browser that records HandedBack (a withheld page
// released).
type releasing struct {
	fakeBrowser
	mu       sync.Mutex
	released int
}

func (b *releasing) HandedBack(string, string) { b.mu.Lock(); b.released++; b.mu.Unlock() }
func (b *releasing) count() int                { b.mu.Lock(); defer b.mu.Unlock(); return b.released }

// linkClient opens URLs: it records each link it is sent and accepts.
type linkClient struct{ urls chan string }

func (c *linkClient) Name() string                                      { return "agent" }
func (c *linkClient) CanOpenURL() bool                                  { return true }
func (c *linkClient) Complete(string)                                   {}
func (c *linkClient) Approve(context.Context, Approval) (string, error) { return Deny, nil }
func (c *linkClient) OpenURL(_ context.Context, _, _, url string) (bool, error) {
	c.urls <- url
	return true, nil
}

type oneLinker struct{}

func (oneLinker) TakeoverLink(Takeover, time.Time) (string, func(), error) {
	return "http://127.0.0.1:1/t/token", func() {}, nil
}

// TestLinkHolderIsNotTheOperator: the takeover link goes to the agent's
// client only when the takeover's context opts in (WithTakeoverVia naming
// the client); a hand-back by the link's holder returns handed_back but
// releases nothing (Browser.HandedBack is not told), an operator's does.
func TestLinkHolderIsNotTheOperator(t *testing.T) {
	b := &releasing{}
	d := New(Options{Browser: b})
	d.SetLinker(oneLinker{})
	c := &linkClient{urls: make(chan string, 2)}

	// Not opted in: no link, though the client opens URLs.
	ctx := WithClient(context.Background(), c)
	res := request(d, ctx, "s1", abi.TakeoverRequest{Reason: "solve it", TimeoutS: 1})
	if r := <-res; r.err == nil {
		t.Fatalf("nobody took over, yet: %+v", r.r)
	}
	select {
	case u := <-c.urls:
		t.Fatalf("the link went to a client no config opted in: %s", u)
	default:
	}

	// Opted in: the link goes out; its holder's hand-back releases nothing.
	ctx = WithTakeoverVia(ctx, []string{ViaConsole, ViaClient})
	res = request(d, ctx, "s1", abi.TakeoverRequest{Reason: "solve it"})
	<-c.urls
	if err := d.EndTakeover(pending(t, d, 1)[0].ID, true, Actor{Kind: ActorLink}); err != nil {
		t.Fatal(err)
	}
	if r := <-res; r.err != nil || !r.r.HandedBack || b.count() != 0 {
		t.Fatalf("link holder's hand-back: %+v %v, released %d", r.r, r.err, b.count())
	}
	res = request(d, ctx, "s1", abi.TakeoverRequest{Reason: "solve it"})
	<-c.urls
	d.EndTakeover(pending(t, d, 1)[0].ID, true, Actor{Kind: ActorOperator, Name: "olivia"})
	if r := <-res; r.err != nil || b.count() != 1 {
		t.Fatalf("operator's hand-back: %+v %v, released %d", r.r, r.err, b.count())
	}
}

// TestClientGrantsAreTheClients: a grant the agent's client made (marked
// Via client, or stored before grants were marked, By "client ...")
// counts only while the personality lets the client approve; an
// operator's equal grant is kept beside it; a session grant lasts until
// its session closes.
func TestClientGrantsAreTheClients(t *testing.T) {
	g, _ := testGrants(t)
	const page = "https://shop.example/cart"
	for _, gr := range []Grant{
		{Tool: "browser_click", Origin: "https://shop.example", By: "client agent", Via: ViaClient},
		{Tool: "browser_type", Origin: "https://shop.example", By: "client agent"}, // stored before grants were marked
	} {
		if err := g.Add("p", gr); err != nil {
			t.Fatal(err)
		}
	}
	for _, tool := range []string{"browser_click", "browser_type"} {
		if g.Allows("p", tool, abi.RiskAct, page, false) || !g.Allows("p", tool, abi.RiskAct, page, true) {
			t.Fatalf("%s: a client's grant must count only while the client may approve", tool)
		}
	}
	if err := g.Add("p", Grant{Tool: "browser_click", Origin: "https://shop.example", By: "olivia"}); err != nil {
		t.Fatal(err)
	}
	if !g.Allows("p", "browser_click", abi.RiskAct, page, false) {
		t.Fatal("an operator's grant equal to a client's was not stored")
	}

	d := New(Options{})
	if err := d.GrantForSession("p", "s1", Grant{Tool: "browser_click", Origin: "https://shop.example", By: "client agent"}); err != nil {
		t.Fatal(err)
	}
	if !d.SessionAllows("p", "s1", "browser_click", abi.RiskAct, page) || d.SessionAllows("p", "s2", "browser_click", abi.RiskAct, page) ||
		d.SessionAllows("p", "s1", "browser_click", abi.RiskAct, "https://other.example/") {
		t.Fatal("a session grant covers another session or origin, or not its own")
	}
	d.SessionClosed("p", "s1")
	if d.SessionAllows("p", "s1", "browser_click", abi.RiskAct, page) {
		t.Fatal("a session grant outlived its session")
	}
}
