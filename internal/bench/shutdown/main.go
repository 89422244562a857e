// Command shutdown measures SIGTERM-to-exit of `wasmwright serve --http`
// under load: several MCP sessions over streamable HTTP, each with a call
// in flight when the signal comes. Two loads: calls that stop when
// cancelled (a plugin spinning in a loop), and the same with browser
// sessions blocked in a 30 s browser_wait_for, which does not stop when
// cancelled. It prints a markdown section.
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmwright/wasmwright/frontend/mcp"
	"github.com/wasmwright/wasmwright/internal/bench/benchflag"
	"github.com/wasmwright/wasmwright/internal/servetest"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

func main() {
	benchflag.Unused()
	sessions := flag.Int("sessions", 8, "MCP sessions, each with a call in flight")
	flag.Parse()
	root := wasmbuild.Root()
	dir, err := os.MkdirTemp("", "ww-bench-shutdown-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "wasmwright")
	build := exec.Command("go", "build", "-o", bin, "./cmd/wasmwright")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		log.Fatalf("building wasmwright: %v\n%s", err, out)
	}
	plugins := filepath.Join(dir, "plugins")
	browserWasm := filepath.Join(root, "build", "plugins", "browser.wasm")
	mods := map[string]string{"mcptools": "frontend/mcp/testdata/mcptools"}
	if _, err := wasmbuild.Install(plugins, mods); err != nil {
		log.Fatal(err)
	}
	withBrowser := true
	if _, err := os.Stat(browserWasm); err != nil {
		withBrowser = false
	}
	page := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "<title>held</title><p>waiting</p>")
	}))
	defer page.Close()

	type result struct {
		name string
		took time.Duration
		code string
	}
	var results []result
	run := func(name string, browserCalls int) {
		took, code, err := measure(root, dir, bin, plugins, browserWasm, page.URL, *sessions, browserCalls)
		if err != nil {
			log.Printf("%s: %v", name, err)
			code = "failed: " + err.Error()
		}
		results = append(results, result{name, took, code})
	}
	run(fmt.Sprintf("%d sessions, each in a spinning plugin call (cancellable)", *sessions), 0)
	if withBrowser {
		run(fmt.Sprintf("%d sessions: %d spinning, %d in a 30 s browser_wait_for (not cancellable)", *sessions, *sessions/2, *sessions/2), *sessions/2)
	}

	fmt.Println("## SIGTERM to exit under load")
	fmt.Println()
	fmt.Printf("`go -C internal/bench run ./shutdown`: `wasmwright serve --http` with MCP sessions over streamable HTTP, each with a call in flight (its progress notification seen) when SIGTERM is sent; the time until the process has exited, one run each. serve cancels calls in flight, gives sessions 3 s, closes the host by 8 s and exits at 9 s whatever still runs.\n\n")
	fmt.Println("| load | SIGTERM to exit | exit |")
	fmt.Println("|---|---|---|")
	for _, r := range results {
		fmt.Printf("| %s | **%.2f s** | %s |\n", r.name, r.took.Seconds(), r.code)
	}
	if !withBrowser {
		fmt.Println()
		fmt.Println("The browser load was skipped: build/plugins/browser.wasm is missing (make plugins).")
	}
	fmt.Println()
	fmt.Println("Goal: under 10 s in every case.")
}

// measure starts serve, puts a call in flight in each session, sends
// SIGTERM and times the exit.
func measure(root, dir, bin, plugins, browserWasm, pageURL string, sessions, browserCalls int) (time.Duration, string, error) {
	if browserCalls > 0 {
		b, err := os.ReadFile(browserWasm)
		if err != nil {
			return 0, "", err
		}
		if err := os.WriteFile(filepath.Join(plugins, "browser.wasm"), b, 0o644); err != nil {
			return 0, "", err
		}
		if err := wasmbuild.Pin(plugins); err != nil {
			return 0, "", err
		}
	}
	cfg := filepath.Join(dir, "wasmwright.toml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`
[host]
default_personality = "default"
plugins_dir = %q
cache_dir = %q
watch_plugins = false
call_timeout = "120s"

[plugins.mcptools]
%s
[personalities.default]
plugins = ["mcptools"%s]
tools = ["*"]
grants = ["events", "browser.read", "browser.act"]
[personalities.default.network]
allowed_hosts = [%q]
`, plugins, filepath.Join(os.TempDir(), "ww-bench-shutdown-cache"), map[bool]string{true: "[plugins.browser]", false: ""}[browserCalls > 0],
		map[bool]string{true: `, "browser"`, false: ""}[browserCalls > 0], strings.TrimPrefix(pageURL, "http://"))), 0o644)
	token := mcp.NewToken()
	serve := exec.Command(bin, "serve", "--http", "127.0.0.1:0", "--config", cfg)
	node, _ := exec.LookPath("node")
	serve.Env = append(os.Environ(), "WASMWRIGHT_TOKEN="+token,
		"PLAYWRIGHT_CLI_PATH="+filepath.Join(root, "build", "driver", "node_modules", "playwright-core", "cli.js"), "PLAYWRIGHT_NODEJS_PATH="+node)
	stderr, _ := serve.StderrPipe()
	if err := serve.Start(); err != nil {
		return 0, "", err
	}
	exited := make(chan error, 1)
	go func() { exited <- serve.Wait() }()
	defer serve.Process.Kill()
	url, err := servetest.AwaitURL(servetest.WatchURL(stderr, nil), exited, 90*time.Second)
	if err != nil {
		return 0, "", err
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	inFlight := make(chan struct{}, sessions)
	var wg sync.WaitGroup
	errc := make(chan error, sessions)
	for i := range sessions {
		wg.Go(func() {
			var once sync.Once
			c := sdk.NewClient(&sdk.Implementation{Name: "bench", Version: "1"}, &sdk.ClientOptions{
				ProgressNotificationHandler: func(context.Context, *sdk.ProgressNotificationClientRequest) {
					once.Do(func() { inFlight <- struct{}{} })
				},
			})
			cs, err := c.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: bearer(token)}, MaxRetries: -1}, nil)
			if err != nil {
				errc <- err
				return
			}
			p := &sdk.CallToolParams{Name: "spin"}
			if i < browserCalls {
				if res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "browser_navigate", Arguments: map[string]any{"url": pageURL}}); err != nil || res.IsError {
					errc <- fmt.Errorf("navigate: %v %v", err, res)
					return
				}
				p = &sdk.CallToolParams{Name: "browser_wait_for", Arguments: map[string]any{"seconds": 30}}
			}
			p.SetProgressToken(fmt.Sprint(i))
			go cs.CallTool(ctx, p)
		})
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		return 0, "", err
	}
	for range sessions {
		select {
		case <-inFlight:
		case <-time.After(60 * time.Second):
			return 0, "", fmt.Errorf("a call never reported progress")
		}
	}
	t0 := time.Now()
	serve.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		code := "0"
		if err != nil {
			code = err.Error()
		}
		return time.Since(t0), code, nil
	case <-time.After(60 * time.Second):
		return time.Since(t0), "still running after 60 s (killed)", nil
	}
}

type bearer string

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+string(b))
	return http.DefaultTransport.RoundTrip(r)
}
