package gridtest

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/frontend/console"
	"github.com/wasmwright/wasmwright/frontend/mcp"
	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/internal/mcptest"
	"github.com/wasmwright/wasmwright/internal/seleniumgrid"
)

// consoleRig is a grid host served as serve does it: MCP over HTTP with
// the operator console mounted beside it, an agent connected with its
// bearer token, and an operator token.
type consoleRig struct {
	h             *host.Host
	base          string // the console's URL
	agentToken    string
	opToken       string
	mcptest.Agent // the agent's session (r.Call, r.MustCall)
}

func newConsoleRig(t *testing.T, g *seleniumgrid.Grid, plugins string, s *site) *consoleRig {
	t.Helper()
	r := &consoleRig{agentToken: mcp.NewToken(), opToken: console.NewToken()}
	h, cfg := newGridHost(t, gridSpec{plugins: plugins, grid: g.HubURL, proxyIP: g.HostIP, allowed: s.hostport,
		grants: []string{"takeover"}, operators: true,
		tail: fmt.Sprintf("\n[console]\nenabled = true\n[[console.operators]]\nname = \"olivia\"\nsha256 = %q\n", console.HashToken(r.opToken))})
	r.h = h
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	c, err := console.New(h, console.Options{Path: cfg.Console.ConsolePath(), Operators: cfg.Console.Operators, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	srv := mcp.New(h, mcp.Options{Logger: log, HTTP: mcp.HTTPOptions{Mount: c.Handler(), MountPath: c.Path()}})
	tokens, _ := mcp.NewTokens(nil)
	tokens.Add(r.agentToken, "agent")
	hs := mcptest.ServeHTTP(t, srv.Handler(tokens), srv.Shutdown)
	r.base = hs.URL + c.Path()
	c.Advertise(hs.URL)
	r.Agent = mcptest.Agent{ClientSession: mcptest.Connect(t, hs.URL+mcp.Path, r.agentToken, nil), Limit: 4 * time.Minute}
	return r
}

// operatorPage is the console, logged in, in the operator's own Chromium
// on this machine (not on the grid). CSP is bypassed so the test can wait
// on conditions evaluated in the page.
func (r *consoleRig) operatorPage(t *testing.T) pw.Page {
	t.Helper()
	b := mcptest.OperatorBrowser(t)
	bc, err := b.NewContext(pw.BrowserNewContextOptions{BypassCSP: pw.Bool(true)})
	if err != nil {
		t.Fatal(err)
	}
	pg, err := bc.NewPage()
	if err != nil {
		t.Fatal(err)
	}
	pg.SetDefaultTimeout(60000)
	if _, err := pg.Goto(r.base + "/"); err != nil {
		t.Fatal(err)
	}
	mcptest.Must(t, pg.Locator("#token").Fill(r.opToken))
	_, err = pg.ExpectNavigation(func() error { return pg.Locator("#login").Click() })
	mcptest.Must(t, err)
	waitFor(t, pg, `document.body.dataset.connected === "1" && document.getElementById("operator").textContent === "operator olivia"`)
	return pg
}

// waitFor waits until expr is true, within two minutes: frames come
// from a node through the hub.
func waitFor(t *testing.T, pg pw.Page, expr string, arg ...any) {
	t.Helper()
	mcptest.WaitFor(t, pg, 2*time.Minute, expr, arg...)
}

// takeoverOnAGrid: the console's live view, a takeover and operator
// control on a session whose browser runs on a grid node. The agent asks
// for a takeover; the operator, watching the live view, clicks the page's
// button on its picture and hands back; the agent's call returns handed
// back with the page as the operator left it, and the agent acts on it.
// Then the operator drives the page from the live view: the agent's acting
// tools are refused until they release it.
func takeoverOnAGrid(t *testing.T, g *seleniumgrid.Grid, plugins string, s *site) {
	waitSessions(t, g, 0)
	r := newConsoleRig(t, g, plugins, s)
	r.MustCall(t, "browser_navigate", map[string]any{"url": s.URL + "/press"})
	if got, _ := g.Sessions(context.Background()); len(got) != 1 {
		t.Fatalf("want the agent's session on a node: %v", got)
	}
	op := r.operatorPage(t)
	row := fmt.Sprintf(`#sessions tr[data-session=%q]`, mcp.SessionName(mcp.HashToken(r.agentToken), r.Agent.ID()))
	waitFor(t, op, `s => { const r = document.querySelector(s); return r && r.textContent.includes("Press") && r.textContent.includes("idle") }`, row)

	// The live view: a frame of the node's page arrives.
	mcptest.Must(t, op.Locator(row+" button.watch").Click())
	waitFor(t, op, `Number(document.getElementById("live").dataset.seq) >= 1 && document.getElementById("live").naturalWidth > 0`)
	width := mcptest.Number(t, op, `Number(document.getElementById("live").dataset.width)`)

	type outcome struct {
		text  string
		isErr bool
	}
	done := make(chan outcome, 1)
	go func() {
		text, isErr := r.Call(t, "browser_request_takeover", map[string]any{"reason": "press the button", "timeout_s": 240})
		done <- outcome{text, isErr}
	}()
	waitFor(t, op, `() => document.querySelectorAll("#takeovers .card").length === 1`)
	if text, isErr := r.Call(t, "browser_snapshot", map[string]any{}); !isErr || !strings.Contains(text, "A human has taken over") {
		t.Errorf("snapshot during the takeover: want not_available, got %s", text)
	}
	img := op.Locator("#live")
	box, err := img.BoundingBox()
	mcptest.Must(t, err)
	scale := box.Width / width
	mcptest.Must(t, img.Click(pw.LocatorClickOptions{Position: &pw.Position{X: 100 * scale, Y: 100 * scale}}))
	waitFor(t, op, `s => document.querySelector(s).textContent.includes("clicked by a human")`, row)
	mcptest.Must(t, op.Locator("#takeovers button.handback").Click())
	var res outcome
	select {
	case res = <-done:
	case <-time.After(3 * time.Minute):
		t.Fatal("the takeover call did not return after the hand-back")
	}
	t.Logf("takeover handed back: %.300s", res.text)
	if res.isErr || !strings.Contains(res.text, `"handed_back":true`) || !strings.Contains(res.text, `"outcome":"user"`) || !strings.Contains(res.text, "clicked") {
		t.Fatalf("takeover handed back: want handed_back with the clicked page, got %+v", res)
	}
	if text := r.MustCall(t, "browser_snapshot", map[string]any{"snapshot": "full"}); !strings.Contains(text, "clicked") {
		t.Errorf("the agent's snapshot after the hand-back: want the page as the operator left it:\n%s", text)
	}

	// Operator control from the live view: the operator goes to another
	// page; the agent's navigate is refused meanwhile, its snapshot reads
	// the operator's page; released, the agent navigates again.
	mcptest.Must(t, op.Locator("#live-url").Fill(s.URL+"/"))
	mcptest.Must(t, op.Locator("#live-go").Click())
	waitFor(t, op, `s => document.querySelector(s).textContent.includes("operator control") && document.querySelector(s).textContent.includes("Good")`, row)
	if text, isErr := r.Call(t, "browser_navigate", map[string]any{"url": s.URL + "/press"}); !isErr || !strings.Contains(text, "operator is controlling") {
		t.Errorf("navigate under operator control: want not_available, got %s", text)
	}
	if text := r.MustCall(t, "browser_snapshot", map[string]any{"snapshot": "full"}); !strings.Contains(text, "A good page") {
		t.Errorf("snapshot under operator control: want the operator's page:\n%s", text)
	}
	mcptest.Must(t, op.Locator("#live-release").Click())
	waitFor(t, op, `s => document.querySelector(s).textContent.includes("idle")`, row)
	if text := r.MustCall(t, "browser_navigate", map[string]any{"url": s.URL + "/press"}); !strings.Contains(text, "Press me") {
		t.Errorf("navigate after the release: %s", text)
	}
	r.MustCall(t, "browser_close", map[string]any{})
	waitSessions(t, g, 0)
}
