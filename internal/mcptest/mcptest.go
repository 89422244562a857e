// Package mcptest holds what tests of the MCP front-end and the operator
// console share: the front-end served over HTTP, an agent's session with
// its bearer token, a tool call read as the agent reads it, and the
// operator's own Chromium.
package mcptest

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/hostfuncs/browser"
	"github.com/wasmwright/wasmwright/internal/testenv"
)

// Bearer is an http.RoundTripper that sends its token as the request's
// bearer token.
type Bearer string

func (b Bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}

// ServeHTTP serves handler (an MCP front-end's, with its tokens) on
// loopback, as serve does. When the test ends, shutdown runs first: it
// ends the MCP sessions, whose open event streams would keep the server's
// Close waiting; then the server closes.
func ServeHTTP(t testing.TB, handler http.Handler, shutdown func(context.Context) error) *httptest.Server {
	t.Helper()
	ts := httptest.NewServer(handler)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		shutdown(ctx)
		ts.CloseClientConnections()
		ts.Close()
	})
	return ts
}

// Connect opens an agent's MCP session to endpoint (a served front-end's
// MCP path) with token as its bearer token and the client options o; the
// transport does not retry. It closes when the test ends.
func Connect(t testing.TB, endpoint, token string, o *sdk.ClientOptions) *sdk.ClientSession {
	t.Helper()
	client := sdk.NewClient(&sdk.Implementation{Name: "agent", Version: "1"}, o)
	cs, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: Bearer(token)}, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// Agent is an agent's MCP session whose every call is bounded by Limit.
type Agent struct {
	*sdk.ClientSession
	Limit time.Duration
}

// Call runs a tool (Call, within a.Limit).
func (a Agent) Call(t testing.TB, tool string, args map[string]any) (text string, isErr bool) {
	t.Helper()
	return Call(t, a.ClientSession, a.Limit, tool, args)
}

// MustCall runs a tool that must succeed (MustCall, within a.Limit).
func (a Agent) MustCall(t testing.TB, tool string, args map[string]any) string {
	t.Helper()
	return MustCall(t, a.ClientSession, a.Limit, tool, args)
}

// Text is a tool result's text blocks, a line between two.
func Text(res *sdk.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*sdk.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// Call runs a tool over cs within limit and returns its text; a tool
// error comes back as its text ("error CODE: message") with isErr set. A
// call that fails at the protocol fails the test.
func Call(t testing.TB, cs *sdk.ClientSession, limit time.Duration, tool string, args map[string]any) (text string, isErr bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	return Text(res), res.IsError
}

// MustCall is Call for a call that must succeed.
func MustCall(t testing.TB, cs *sdk.ClientSession, limit time.Duration, tool string, args map[string]any) string {
	t.Helper()
	text, isErr := Call(t, cs, limit, tool, args)
	if isErr {
		t.Fatalf("%s: %s", tool, text)
	}
	return text
}

// OperatorBrowser is the operator's own headless Chromium on this
// machine, beside the host's browsers, through the Playwright driver the
// host itself finds (browser.DriverOptions: PLAYWRIGHT_CLI_PATH, else the
// build/driver make deps installs), so a package's tests run alone as
// well as from the Makefile. It closes with the test.
func OperatorBrowser(t testing.TB) pw.Browser {
	t.Helper()
	testenv.Heavy(t, "Chromium and the Playwright driver")
	opts, err := browser.DriverOptions(browser.Config{})
	testenv.Require(t, err == nil, fmt.Sprint(err))
	opts.Stdout, opts.Stderr = io.Discard, io.Discard
	p, err := pw.Run(opts)
	if err != nil {
		t.Fatalf("starting the Playwright driver (make deps): %v", err)
	}
	t.Cleanup(func() { p.Stop() })
	exe := "/usr/lib/chromium/chromium"
	if _, err := os.Stat(exe); err != nil {
		exe = "/usr/bin/chromium"
	}
	b, err := p.Chromium.Launch(pw.BrowserTypeLaunchOptions{ExecutablePath: pw.String(exe), Headless: pw.Bool(true), Args: []string{"--no-sandbox"}})
	if err != nil {
		t.Fatalf("launching the operator's Chromium: %v", err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// WaitFor waits until expr, evaluated in pg, is true (Playwright polls
// the page: no sleep), within limit.
func WaitFor(t testing.TB, pg pw.Page, limit time.Duration, expr string, arg ...any) {
	t.Helper()
	var a any
	if len(arg) > 0 {
		a = arg[0]
	}
	if _, err := pg.WaitForFunction(expr, a, pw.PageWaitForFunctionOptions{Timeout: pw.Float(float64(limit.Milliseconds()))}); err != nil {
		t.Fatalf("waiting for %s: %v", expr, err)
	}
}

// Number evaluates expr in pg to a number.
func Number(t testing.TB, pg pw.Page, expr string) float64 {
	t.Helper()
	v, err := pg.Evaluate(expr)
	if err != nil {
		t.Fatal(err)
	}
	switch n := v.(type) {
	case int:
		return float64(n)
	case float64:
		return n
	}
	t.Fatalf("%s = %v, not a number", expr, v)
	return 0
}

// Must fails the test on err.
func Must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
