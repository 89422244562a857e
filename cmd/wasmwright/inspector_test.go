package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/frontend/mcp"
	"github.com/wasmwright/wasmwright/internal/servetest"
	"github.com/wasmwright/wasmwright/internal/testenv"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

// The real MCP Inspector CLI (a TypeScript-SDK client) lists the tools and
// calls one over stdio and over streamable HTTP against the built binary.
// `make inspector` installs it; `make test` runs that first.

const inspectorCLI = "build/inspector/node_modules/@modelcontextprotocol/inspector/cli/build/cli.js"

type inspectorEnv struct {
	cli, bin string
	env      []string
}

func newInspectorEnv(t *testing.T) *inspectorEnv {
	t.Helper()
	testenv.Heavy(t, "the MCP Inspector (node)")
	cli := filepath.Join(wasmbuild.Root(), inspectorCLI)
	if _, err := os.Stat(cli); err != nil {
		t.Fatalf("the MCP Inspector is not installed (%s is missing): run `make inspector` (make test installs it)", cli)
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatal("node is not installed: the MCP Inspector needs it (Debian: apt-get install -y nodejs npm), then run `make inspector`")
	}
	e := newServeEnv(t)
	e.cli = cli
	return e
}

// builtBinary is the wasmwright binary the serve tests run, built once
// per test binary (wasmbuild.Command); TestMain removes it.
func builtBinary(t *testing.T) string {
	t.Helper()
	bin, err := wasmbuild.Command()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

// newServeEnv builds the binary, the example plugin and a config naming it.
func newServeEnv(t *testing.T) *inspectorEnv {
	t.Helper()
	dir := t.TempDir()
	bin := builtBinary(t)
	plugins := pluginsDir(t)
	cfg := filepath.Join(dir, "wasmwright.toml")
	os.WriteFile(cfg, []byte(fmt.Sprintf(`
[host]
default_personality = "default"
plugins_dir = %q
cache_dir = %q
watch_plugins = false

[plugins.extract_links]

[personalities.default]
plugins = ["extract_links"]
tools = ["*"]
grants = ["events"]
`, plugins, filepath.Join(os.TempDir(), "ww-inspector-test-cache"))), 0o644)
	// The config reaches the server through the environment: the
	// Inspector's own --config flag would take a --config argument.
	env := append(os.Environ(), "WASMWRIGHT_CONFIG="+cfg, "WASMWRIGHT_TOKEN=")
	return &inspectorEnv{bin: bin, env: env}
}

// inspect runs the Inspector CLI and returns its combined output.
func (e *inspectorEnv) inspect(t *testing.T, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", append([]string{e.cli, "--cli"}, args...)...)
	cmd.Env = e.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// checkList asserts a tools/list output names exactly extract_links, with
// its schema.
func checkList(t *testing.T, out string) {
	t.Helper()
	var res struct {
		Tools []struct {
			Name        string
			InputSchema struct {
				Type       string
				Properties map[string]any
				Required   []string
			}
		}
	}
	if err := json.Unmarshal([]byte(jsonPart(out)), &res); err != nil || len(res.Tools) != 1 {
		t.Fatalf("tools/list output (%v):\n%s", err, out)
	}
	tool := res.Tools[0]
	if tool.Name != "extract_links" || tool.InputSchema.Type != "object" || tool.InputSchema.Properties["html"] == nil || !slices.Contains(tool.InputSchema.Required, "html") {
		t.Fatalf("tools/list: %+v", res.Tools)
	}
}

// checkCall asserts a tools/call output of extract_links.
func checkCall(t *testing.T, out string) {
	t.Helper()
	var res struct {
		Content []struct{ Type, Text string }
		IsError bool
	}
	if err := json.Unmarshal([]byte(jsonPart(out)), &res); err != nil || len(res.Content) == 0 {
		t.Fatalf("tools/call output (%v):\n%s", err, out)
	}
	if res.IsError || res.Content[0].Type != "text" || !strings.Contains(res.Content[0].Text, "Docs -> https://a.test/docs") {
		t.Fatalf("tools/call: %+v", res)
	}
}

// jsonPart drops anything the CLI printed around its JSON answer.
func jsonPart(out string) string {
	i, j := strings.Index(out, "{"), strings.LastIndex(out, "}")
	if i < 0 || j < i {
		return out
	}
	return out[i : j+1]
}

var callArgs = []string{"--method", "tools/call", "--tool-name", "extract_links",
	"--tool-arg", `html=<p><a href="/docs">Docs</a></p>`, "base=https://a.test/"}

func TestInspectorStdio(t *testing.T) {
	e := newInspectorEnv(t)
	out, err := e.inspect(t, e.bin, "serve", "--personality", "default", "--method", "tools/list")
	if err != nil {
		t.Fatalf("inspector tools/list over stdio: %v\n%s", err, out)
	}
	checkList(t, out)
	out, err = e.inspect(t, append([]string{e.bin, "serve", "--personality", "default"}, callArgs...)...)
	if err != nil {
		t.Fatalf("inspector tools/call over stdio: %v\n%s", err, out)
	}
	checkCall(t, out)
}

func TestInspectorHTTP(t *testing.T) {
	e := newInspectorEnv(t)
	token := mcp.NewToken()
	url, serve, exited := e.serveHTTP(t, "WASMWRIGHT_TOKEN="+token)

	auth := "Authorization: Bearer " + token
	out, err := e.inspect(t, url, "--transport", "http", "--header", auth, "--method", "tools/list")
	if err != nil {
		t.Fatalf("inspector tools/list over HTTP: %v\n%s", err, out)
	}
	checkList(t, out)
	out, err = e.inspect(t, append([]string{url, "--transport", "http", "--header", auth}, callArgs...)...)
	if err != nil {
		t.Fatalf("inspector tools/call over HTTP: %v\n%s", err, out)
	}
	checkCall(t, out)

	out, err = e.inspect(t, url, "--transport", "http", "--header", "Authorization: Bearer wrong", "--method", "tools/list")
	if err == nil || !strings.Contains(out, "401") || strings.Contains(out, "extract_links") {
		t.Fatalf("inspector with a bad token: %v\n%s", err, out)
	}

	// SIGTERM: a graceful exit, status 0.
	serve.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		exited <- err // for the cleanup
		if err != nil {
			t.Fatalf("serve after SIGTERM: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not exit within 20s of SIGTERM")
	}
}

// serveHTTP starts `wasmwright serve --http 127.0.0.1:0` and returns its
// URL (read from the banner), the process, and a channel with its exit.
// Every banner line goes to lines.
func (e *inspectorEnv) serveHTTP(t *testing.T, env ...string) (string, *exec.Cmd, chan error) {
	t.Helper()
	return e.serveHTTPLines(t, nil, env...)
}

// start runs the binary with args and e's environment plus env, and
// returns it, its stderr to read, and a channel its exit arrives on; the
// process is killed, and waited for, when the test ends (a reader of the
// channel puts what it took back, for that wait).
func (e *inspectorEnv) start(t *testing.T, args []string, env ...string) (*exec.Cmd, io.Reader, chan error) {
	t.Helper()
	cmd := exec.Command(e.bin, args...)
	cmd.Env = append(e.env, env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		err := <-exited
		exited <- err
	})
	return cmd, stderr, exited
}

func (e *inspectorEnv) serveHTTPLines(t *testing.T, lines chan<- string, env ...string) (string, *exec.Cmd, chan error) {
	t.Helper()
	serve, stderr, exited := e.start(t, []string{"serve", "--http", "127.0.0.1:0"}, env...)
	// Read the banner for the URL; keep draining stderr after.
	url, err := servetest.AwaitURL(servetest.WatchURL(stderr, lines), exited, 60*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	return url, serve, exited
}

// Without tokens in the config or WASMWRIGHT_TOKEN, serve --http makes a
// token, prints it once, and accepts only it.
func TestServeMakesToken(t *testing.T) {
	e := newServeEnv(t)
	lines := make(chan string, 200)
	url, serve, exited := e.serveHTTPLines(t, lines)
	var token string
	re := regexp.MustCompile(`^\s+(ww_[A-Z0-9]+)$`)
	for token == "" {
		select {
		case l := <-lines:
			if m := re.FindStringSubmatch(l); m != nil {
				token = m[1]
			}
		case <-time.After(10 * time.Second):
			t.Fatal("no token line in the banner")
		}
	}
	initialize := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`
	for auth, want := range map[string]int{"": 401, "Bearer " + token + "x": 401, "Bearer " + token: 200} {
		req, _ := http.NewRequest("POST", url, strings.NewReader(initialize))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Errorf("%q: %s, want %d", auth, resp.Status, want)
		}
	}
	serve.Process.Signal(os.Interrupt)
	select {
	case err := <-exited:
		exited <- err
		if err != nil {
			t.Fatalf("serve after SIGINT: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("serve did not exit within 20s of SIGINT")
	}
}

func TestTokenCommands(t *testing.T) {
	t.Setenv("WASMWRIGHT_CONFIG", "")
	code, out, errs := cli(t, "token", "new", "--personality", "reader")
	m := regexp.MustCompile(`^(ww_\S+)\n(?s:.*)\[\[serve\.tokens\]\]\nsha256 = "([0-9a-f]{64})"\npersonality = "reader"\n$`).FindStringSubmatch(out)
	if code != 0 || m == nil || mcp.HashToken(m[1]) != m[2] {
		t.Fatalf("token new: exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = cli(t, "token", "hash", m[1])
	if code != 0 || strings.TrimSpace(out) != m[2] {
		t.Fatalf("token hash: %d %s", code, out)
	}
	if code, _, _ := cli(t, "token", "new", "--personality", "ghost"); code == 0 {
		t.Error("token new for an unknown personality")
	}
}
