package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmwright/wasmwright/frontend/mcp"
	"github.com/wasmwright/wasmwright/internal/mcptest"
	"github.com/wasmwright/wasmwright/internal/testenv"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

// browserServeEnv is newServeEnv with the first-party browser plugin (from
// build/plugins) and a loopback page the personality may open.
func browserServeEnv(t *testing.T) (*inspectorEnv, string) {
	t.Helper()
	testenv.Heavy(t, "Chromium and the Playwright driver")
	root := wasmbuild.Root()
	plugins := filepath.Join(root, "build", "plugins")
	cli := filepath.Join(root, "build", "driver", "node_modules", "playwright-core", "cli.js")
	for _, need := range []string{filepath.Join(plugins, "browser.wasm"), cli} {
		if _, err := os.Stat(need); err != nil {
			t.Fatalf("%s is missing: run `make plugins` and `make driver` (make test does both)", need)
		}
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatal("node is not installed: the Playwright driver needs it")
	}
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<title>held</title><p>a page the agent is waiting on</p>")
	}))
	t.Cleanup(page.Close)
	e := newServeEnv(t)
	cfg := filepath.Join(t.TempDir(), "wasmwright.toml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`
[host]
default_personality = "default"
plugins_dir = %q
cache_dir = %q
watch_plugins = false

# A stop drains for 1 s unless a test says otherwise: the signal tests
# hold a call that would outlast the default 30 s.
[serve]
drain_timeout = "${WW_TEST_DRAIN_TIMEOUT:-1s}"
metrics_addr = "${WW_TEST_METRICS_ADDR:-}"

[plugins.browser]

[personalities.default]
plugins = ["browser"]
tools = ["*"]
grants = ["browser.read", "browser.act"]
[personalities.default.network]
allowed_hosts = [%q]
`, plugins, filepath.Join(os.TempDir(), "ww-serve-test-cache"), strings.TrimPrefix(page.URL, "http://"))), 0o644)
	e.env = append(e.env, "WASMWRIGHT_CONFIG="+cfg, "PLAYWRIGHT_CLI_PATH="+cli, "PLAYWRIGHT_NODEJS_PATH="+node)
	return e, page.URL
}

// connectWatching connects an MCP client with token; inFlight receives
// when a call's first progress notification arrives (the call is running).
func connectWatching(t *testing.T, ctx context.Context, url, token string) (*sdk.ClientSession, <-chan struct{}) {
	t.Helper()
	return connectWatchingRetries(t, ctx, url, token, -1)
}

// connectWatchingRetries is connectWatching whose client reconnects its
// event stream up to retries times (-1: never; 0: the SDK's default).
func connectWatchingRetries(t *testing.T, ctx context.Context, url, token string, retries int) (*sdk.ClientSession, <-chan struct{}) {
	t.Helper()
	inFlight := make(chan struct{}, 1)
	c := sdk.NewClient(&sdk.Implementation{Name: "t", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *sdk.ProgressNotificationClientRequest) {
			select {
			case inFlight <- struct{}{}:
			default:
			}
		},
	})
	cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: mcptest.Bearer(token)}, MaxRetries: retries}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs, inFlight
}

// callAnswer is what a tool call returned.
type callAnswer struct {
	res *sdk.CallToolResult
	err error
}

// holdCall navigates cs to page, then starts a browser_wait_for of
// seconds and returns once the server reports it working (inFlight, from
// connectWatching); the test fails when that takes longer than within or
// ctx ends first. The wait's answer arrives on the channel returned.
func holdCall(t *testing.T, ctx context.Context, cs *sdk.ClientSession, inFlight <-chan struct{}, page string, seconds int, within time.Duration) <-chan callAnswer {
	t.Helper()
	if res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "browser_navigate", Arguments: map[string]any{"url": page}}); err != nil || res.IsError {
		t.Fatalf("navigate: %v %+v", err, res)
	}
	done := make(chan callAnswer, 1)
	go func() {
		p := &sdk.CallToolParams{Name: "browser_wait_for", Arguments: map[string]any{"seconds": seconds}}
		p.SetProgressToken("w")
		res, err := cs.CallTool(ctx, p)
		done <- callAnswer{res, err}
	}()
	select {
	case <-inFlight: // the server reports the call working
	case <-ctx.Done():
		t.Fatal("no progress from browser_wait_for before the test's deadline")
	case <-time.After(within):
		t.Fatal("no progress from browser_wait_for")
	}
	return done
}

// SIGTERM with a 30 s browser_wait_for in flight: serve cancels it and
// exits before the wait would have ended (and within 20 s, a hang-catcher:
// a quiet machine exits in a second or two).
func TestServeSIGTERMWithCallInFlight(t *testing.T) {
	e, page := browserServeEnv(t)
	token := mcp.NewToken()
	url, serve, exited := e.serveHTTP(t, "WASMWRIGHT_TOKEN="+token)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, inFlight := connectWatching(t, ctx, url, token)
	holdCall(t, ctx, cs, inFlight, page, 30, 20*time.Second)
	waitEnds := time.Now().Add(30 * time.Second) // no earlier than this, had the wait run on

	// Meanwhile another client is served as usual.
	other, _ := connectWatching(t, ctx, url, token)
	t1 := time.Now()
	res, err := other.CallTool(ctx, &sdk.CallToolParams{Name: "browser_navigate", Arguments: map[string]any{"url": page + "/other"}})
	if err != nil || res.IsError {
		t.Fatalf("another client while a call is stuck: %v %+v", err, res)
	}
	if d := time.Since(t1); d > 20*time.Second {
		t.Errorf("another client's navigate took %v while a call was stuck", d)
	}

	t0 := time.Now()
	serve.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		exited <- err
		t.Logf("exited %v after SIGTERM (%v)", time.Since(t0).Round(time.Millisecond), err)
		if time.Now().After(waitEnds) {
			t.Errorf("serve exited only once the 30 s wait in flight had ended")
		}
	case <-time.After(20 * time.Second):
		t.Fatalf("serve still running 20 s after SIGTERM with a call in flight")
	}
}

// A second signal exits at once, even while the first is still waiting for
// a call that does not stop.
func TestServeSecondSignal(t *testing.T) {
	e, page := browserServeEnv(t)
	token := mcp.NewToken()
	lines := make(chan string, 1000)
	url, serve, exited := e.serveHTTPLines(t, lines, "WASMWRIGHT_TOKEN="+token)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, inFlight := connectWatching(t, ctx, url, token)
	holdCall(t, ctx, cs, inFlight, page, 30, 20*time.Second)
	for len(lines) > 0 { // room for what serve prints next
		<-lines
	}
	serve.Process.Signal(syscall.SIGTERM)
	// Signals sent back to back may merge: send the second once serve says
	// it is stopping.
	for stopping := false; !stopping; {
		select {
		case l := <-lines:
			stopping = strings.Contains(l, "stopping")
		case <-time.After(20 * time.Second):
			t.Fatal("serve did not say it was stopping after SIGTERM")
		}
	}
	t0 := time.Now()
	serve.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		exited <- err
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 130 {
			t.Errorf("exit after a second signal: %v, want status 130", err)
		}
		// At once: not after the 30 s wait nor a graceful stop (a quiet
		// machine exits in milliseconds; 10 s leaves a busy one room).
		if d := time.Since(t0); d > 10*time.Second {
			t.Errorf("exited %v after the second signal", d)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve still running 20 s after a second SIGTERM")
	}
}
