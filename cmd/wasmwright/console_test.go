package main

import (
	"bufio"
	"context"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wasmwright/wasmwright/frontend/mcp"
)

// toolNames lists the tools an MCP client of serve sees.
func toolNames(t *testing.T, url, token string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, _ := connectWatching(t, ctx, url, token)
	res, err := cs.ListTools(ctx, &sdk.ListToolsParams{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return strings.Join(names, " ")
}

// serve with [console] enabled (an operator made by `console token new`)
// serves the console on the MCP listener under /console, where the
// operator's token logs in, and offers browser_request_takeover; without
// the console the tool is not offered.
func TestServeConsole(t *testing.T) {
	e, _ := browserServeEnv(t)
	cfgFile, b := e.configFile(t)
	cfg := strings.Replace(string(b), `grants = ["browser.read", "browser.act"]`, `grants = ["browser.read", "browser.act", "takeover"]`, 1)
	os.WriteFile(cfgFile, []byte(cfg), 0o644)

	agent := mcp.NewToken()
	lines := make(chan string, 100)
	u, _, _ := e.serveHTTPLines(t, lines, "WASMWRIGHT_TOKEN="+agent)
	defer func() { // serve's notes, when the test failed
		for t.Failed() && len(lines) > 0 {
			t.Log(<-lines)
		}
	}()
	if names := toolNames(t, u, agent); strings.Contains(names, "browser_request_takeover") || !strings.Contains(names, "browser_navigate") {
		t.Fatalf("without the console: %s", names)
	}

	mint := exec.Command(e.bin, "console", "token", "new", "--name", "ops", "--personalities", "default")
	mint.Env = e.env
	out, err := mint.Output()
	if err != nil {
		t.Fatalf("console token new: %v", err)
	}
	token, snippet, _ := strings.Cut(string(out), "\n")
	if !strings.HasPrefix(token, "wwop_") || !strings.Contains(snippet, "[[console.operators]]") || strings.Contains(snippet, token) {
		t.Fatalf("console token new printed:\n%s", out)
	}
	os.WriteFile(cfgFile, []byte(cfg+"\n[console]\nenabled = true\n"+snippet), 0o644)

	u, _, _ = e.serveHTTP(t, "WASMWRIGHT_TOKEN="+agent)
	if names := toolNames(t, u, agent); !strings.Contains(names, "browser_request_takeover") {
		t.Fatalf("with the console: %s", names)
	}
	origin := strings.TrimSuffix(u, mcp.Path)
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err := noRedirect.Get(origin + "/console/")
	if err != nil || res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/console/login" {
		t.Fatalf("the console without a login: %v %v", err, res)
	}
	req, _ := http.NewRequest("POST", origin+"/console/login", strings.NewReader(url.Values{"token": {token}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", origin)
	res, err = noRedirect.Do(req)
	if err != nil || len(res.Cookies()) != 1 {
		t.Fatalf("operator login: %v %v", err, res)
	}
	req, _ = http.NewRequest("GET", origin+"/console/", nil)
	req.AddCookie(res.Cookies()[0])
	res, err = noRedirect.Do(req)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("the console with a login: %v %v", err, res)
	}
	if !regexp.MustCompile(`default-src 'none'`).MatchString(res.Header.Get("Content-Security-Policy")) {
		t.Fatalf("no CSP: %v", res.Header)
	}
}

// With MCP over stdio the console runs on console.addr, a listener of its
// own; without console.addr serve says the console has nowhere to run.
func TestServeConsoleOwnAddress(t *testing.T) {
	e, _ := browserServeEnv(t)
	cfgFile, b := e.configFile(t)
	op := "[[console.operators]]\nname = \"ops\"\nsha256 = \"" + strings.Repeat("ab", 32) + "\"\n"
	stdio := func(console string) (*exec.Cmd, *bufio.Scanner) {
		os.WriteFile(cfgFile, append(b, []byte("\n[console]\nenabled = true\n"+console+op)...), 0o644)
		cmd := exec.Command(e.bin, "serve")
		cmd.Env = e.env
		stdin, _ := cmd.StdinPipe()
		t.Cleanup(func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() })
		stderr, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, bufio.NewScanner(stderr)
	}
	_, sc := stdio("")
	var said string
	for sc.Scan() {
		said += sc.Text() + "\n"
	}
	if !strings.Contains(said, "the console needs a listener: set console.addr") {
		t.Fatalf("stdio without console.addr: %s", said)
	}
	_, sc = stdio("addr = \"127.0.0.1:0\"\n")
	re := regexp.MustCompile(`operator console at (http://\S+)`)
	var base string
	for base == "" && sc.Scan() {
		if m := re.FindStringSubmatch(sc.Text()); m != nil {
			base = m[1]
		}
	}
	go func() {
		for sc.Scan() {
		}
	}()
	res, err := http.Get(base + "login")
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("console login page on its own address %q: %v %v", base, err, res)
	}
	if res, err = http.Get(base + "static/app.js"); err != nil || res.StatusCode != http.StatusUnauthorized {
		t.Fatalf("app.js without a login: %v %v", err, res)
	}
}

// configFile is the config file serve runs with in e (the environment's
// last WASMWRIGHT_CONFIG, the one that wins), and its text.
func (e *inspectorEnv) configFile(t *testing.T) (string, []byte) {
	t.Helper()
	var file string
	for _, kv := range e.env {
		if v, ok := strings.CutPrefix(kv, "WASMWRIGHT_CONFIG="); ok {
			file = v
		}
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the serve environment's config: %v", err)
	}
	return file, b
}
