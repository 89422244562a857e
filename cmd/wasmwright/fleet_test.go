package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmwright/wasmwright/frontend/mcp"
	"github.com/wasmwright/wasmwright/internal/mcptest"
	"github.com/wasmwright/wasmwright/internal/testenv"
)

// appendConfig adds TOML tables to the config e's serve reads.
func appendConfig(t *testing.T, e *inspectorEnv, text string) {
	t.Helper()
	for _, kv := range e.env {
		if p, ok := strings.CutPrefix(kv, "WASMWRIGHT_CONFIG="); ok {
			f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if _, err := f.WriteString("\n" + text + "\n"); err != nil {
				t.Fatal(err)
			}
			return
		}
	}
	t.Fatal("no WASMWRIGHT_CONFIG in the serve environment")
}

// metricsURL reads the metrics listener's address from serve's stderr.
func metricsURL(t *testing.T, lines <-chan string) string {
	t.Helper()
	re := regexp.MustCompile(`metrics at (http://\S+)/metrics`)
	deadline := time.After(60 * time.Second)
	for {
		select {
		case l := <-lines:
			if m := re.FindStringSubmatch(l); m != nil {
				return m[1]
			}
		case <-deadline:
			t.Fatal("serve printed no metrics address in 60 s")
		}
	}
}

func get(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// freePort is a loopback port nothing listens on (Prometheus takes no
// port 0).
func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// A real Prometheus (Debian's) scrapes a real serve's /metrics: after a
// few tool calls over MCP, its query API answers wasmwright_tool_calls_total
// with the tool, personality and code labels and the calls' counts.
func TestServeMetricsScrapedByPrometheus(t *testing.T) {
	testenv.Heavy(t, "Prometheus")
	prom, err := exec.LookPath("prometheus")
	if err != nil {
		t.Fatal("prometheus is not installed: run `make prometheus` (make test does; Debian: apt-get install -y prometheus)")
	}
	e := newServeEnv(t)
	appendConfig(t, e, "[serve]\nmetrics_addr = \"127.0.0.1:0\"")
	token := mcp.NewToken()
	lines := make(chan string, 1000)
	mcpURL, _, _ := e.serveHTTPLines(t, lines, "WASMWRIGHT_TOKEN="+token)
	metrics := metricsURL(t, lines)
	if code, body := get(t, metrics+"/readyz"); code != 200 {
		t.Fatalf("/readyz = %d %q, want 200 once serve serves", code, body)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cs, _ := connectWatching(t, ctx, mcpURL, token)
	for range 3 {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "extract_links", Arguments: map[string]any{"html": `<a href="/a">a</a>`}})
		if err != nil || res.IsError {
			t.Fatalf("extract_links: %v %+v", err, res)
		}
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "extract_links", Arguments: map[string]any{"html": ""}})
	if err != nil || !res.IsError {
		t.Fatalf("extract_links with no html: %v %+v, want an input_invalid error", err, res)
	}

	dir := t.TempDir()
	target := strings.TrimPrefix(metrics, "http://")
	cfg := filepath.Join(dir, "prometheus.yml")
	os.WriteFile(cfg, []byte(fmt.Sprintf("global:\n  scrape_interval: 1s\nscrape_configs:\n  - job_name: wasmwright\n    static_configs:\n      - targets: [%q]\n", target)), 0o644)
	port := freePort(t)
	cmd := exec.Command(prom, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		fmt.Sprintf("--web.listen-address=127.0.0.1:%d", port), "--log.level=warn")
	out, _ := os.Create(filepath.Join(dir, "prometheus.log"))
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })

	api := fmt.Sprintf("http://127.0.0.1:%d/api/v1/query?query=", port)
	want := map[string]string{"ok": "3", "input_invalid": "1"}
	got := map[string]string{}
	// Prometheus scrapes every second: ask until both series are there
	// (a hang-catcher of two minutes; a quiet machine answers in seconds).
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for len(got) < len(want) || got["ok"] != want["ok"] || got["input_invalid"] != want["input_invalid"] {
		select {
		case <-ctx.Done():
			log, _ := os.ReadFile(filepath.Join(dir, "prometheus.log"))
			t.Fatalf("Prometheus has not answered the calls' series in time: got %v, want %v\nprometheus log:\n%s", got, want, log)
		case <-tick.C:
		}
		got = queryCalls(api + url.QueryEscape(`wasmwright_tool_calls_total{job="wasmwright"}`))
	}
	t.Logf("Prometheus answered %v", got)
}

// queryCalls asks Prometheus's query API for wasmwright_tool_calls_total
// and returns each series' value by code, for the extract_links tool of
// the default personality; nil while it has no answer.
func queryCalls(u string) map[string]string {
	resp, err := http.Get(u)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	var r struct {
		Status string `json:"status"`
		Data   struct {
			Result []struct {
				Metric map[string]string `json:"metric"`
				Value  [2]any            `json:"value"`
			} `json:"result"`
		} `json:"data"`
	}
	if json.NewDecoder(resp.Body).Decode(&r) != nil || r.Status != "success" {
		return nil
	}
	out := map[string]string{}
	for _, s := range r.Data.Result {
		if s.Metric["tool"] == "extract_links" && s.Metric["personality"] == "default" {
			v, _ := s.Value[1].(string)
			out[s.Metric["code"]] = v
		}
	}
	return out
}

// A metrics address that is not loopback is refused unless allow_remote.
func TestServeMetricsAddrLoopbackOnly(t *testing.T) {
	e := newServeEnv(t)
	appendConfig(t, e, "[serve]\nmetrics_addr = \"0.0.0.0:0\"")
	serve := exec.Command(e.bin, "serve", "--http", "127.0.0.1:0")
	serve.Env = append(e.env, "WASMWRIGHT_TOKEN="+mcp.NewToken())
	out, err := serve.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "refusing to serve metrics on") {
		t.Fatalf("serve with metrics_addr 0.0.0.0: %v\n%s\nwant it refused", err, out)
	}
}

// SIGTERM drains: /readyz turns 503 (liveness stays 200), a new MCP
// session is answered 503 with Retry-After, the call in flight runs to its
// end and succeeds, and serve exits 0.
func TestServeDrainsOnSIGTERM(t *testing.T) {
	e, page := browserServeEnv(t)
	token := mcp.NewToken()
	lines := make(chan string, 1000)
	url, serve, exited := e.serveHTTPLines(t, lines, "WASMWRIGHT_TOKEN="+token, "WW_TEST_DRAIN_TIMEOUT=2m", "WW_TEST_METRICS_ADDR=127.0.0.1:0")
	metrics := metricsURL(t, lines)
	if code, body := get(t, metrics+"/readyz"); code != 200 {
		t.Fatalf("/readyz = %d %q before SIGTERM, want 200", code, body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// A client as shipped (it reconnects its event stream): one that
	// never does fails every call it awaits the moment the stream ends,
	// even when the call's answer is already on its way on its own POST.
	cs, inFlight := connectWatchingRetries(t, ctx, url, token, 0)
	done := holdCall(t, ctx, cs, inFlight, page, 6, 3*time.Minute)
	serve.Process.Signal(syscall.SIGTERM)
	for draining := false; !draining; {
		select {
		case l := <-lines:
			draining = strings.Contains(l, "draining:")
		case <-ctx.Done():
			t.Fatal("serve did not say it was draining after SIGTERM")
		}
	}
	if code, _ := get(t, metrics+"/readyz"); code != http.StatusServiceUnavailable {
		t.Errorf("/readyz = %d while draining, want 503", code)
	}
	if code, _ := get(t, metrics+"/healthz"); code != 200 {
		t.Errorf("/healthz = %d while draining, want 200 (alive)", code)
	}
	req, _ := http.NewRequest("POST", url, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := (&http.Client{Transport: mcptest.Bearer(token)}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Errorf("a new session while draining: %d, Retry-After %q; want 503 with a Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	select {
	case a := <-done:
		if a.err != nil {
			t.Errorf("the call in flight: %v; want it to finish as usual", a.err)
		} else if a.res.IsError {
			t.Errorf("the call in flight: %s; want it to finish as usual", textOf(a.res))
		}
	case <-ctx.Done():
		t.Fatal("the call in flight did not end")
	}
	select {
	case err := <-exited:
		exited <- err
		if err != nil {
			t.Errorf("serve exited with %v after draining, want status 0", err)
		}
	case <-ctx.Done():
		t.Fatal("serve still running after the drain")
	}
}
