// Package mcpclient is the MCP client the benchmark programs share: one
// JSON-RPC client over stdio that drives `wasmwright serve` and Playwright
// MCP alike, how each is started, and the memory of a process tree.
package mcpclient

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/wasmwright/wasmwright/internal/procfs"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"

	"github.com/wasmwright/wasmwright/internal/bench/jsonrpc"
	"github.com/wasmwright/wasmwright/internal/bench/mcphttp"
)

// StartBuild starts `wasmwright serve` over stdio with the benchmark's
// config, as an agent's MCP config runs it. plugins, when set, is the
// plugins folder of a binary built elsewhere, which then gets a
// compilation cache of its own.
func StartBuild(bin, plugins string, verbose bool) (*Client, error) {
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("%v: build it with make build", err)
	}
	ws, err := os.MkdirTemp("", "ww-bench-ws-")
	if err != nil {
		return nil, err
	}
	cache := filepath.Join(wasmbuild.Root(), "build", "cache")
	if plugins != "" {
		// The server runs in a folder of its own: a relative path would
		// name a folder there.
		if plugins, err = filepath.Abs(plugins); err != nil {
			return nil, err
		}
		cache = filepath.Join(filepath.Dir(plugins), "cache")
	}
	return StartWasmwright(bin, BenchConfig(cache, plugins, ws, ""), verbose)
}

// IsolateArgs go to Playwright MCP's browser: external hosts fail at once
// instead of waiting on a closed network (wasmwright's does this itself).
var IsolateArgs = []string{"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"}

// BenchConfig is the config `wasmwright serve` runs with in the benchmarks:
// the browser plugin with the default pipeline (detect, compact, mask),
// the egress proxy in front of Chromium (loopback allowed for the pages
// served on it). pluginsDir "" is the binary's default; browserKeys are
// added to its [browser] table. The driver is this checkout's
// build/driver, whichever binary runs (a before build has none beside it).
func BenchConfig(cacheDir, pluginsDir, workspace, browserKeys string) string {
	return Bench{CacheDir: cacheDir, PluginsDir: pluginsDir, Workspace: workspace, BrowserKeys: browserKeys}.Config()
}

// Bench is BenchConfig's setup, with what a long run needs besides:
// a server that watches its plugins folder (hot swap) and more grants
// (takeover, with the console the caller appends).
type Bench struct {
	CacheDir, PluginsDir, Workspace, BrowserKeys string
	HostKeys                                     string // more [host] keys, one a line
	WatchPlugins                                 bool
	ExtraGrants                                  []string
}

// Config is the config's text.
func (b Bench) Config() string {
	host := fmt.Sprintf("cache_dir = %q\nwatch_plugins = %t\n", b.CacheDir, b.WatchPlugins) + b.HostKeys
	if b.PluginsDir != "" {
		host += fmt.Sprintf("plugins_dir = %q\n", b.PluginsDir)
	}
	grants := `"browser.read", "browser.act", "secrets.mask"`
	for _, g := range b.ExtraGrants {
		grants += fmt.Sprintf(", %q", g)
	}
	// wasmwright's browser needs no IsolateArgs: it resolves no names
	// itself (its own --host-resolver-rules) and the proxy allows only
	// loopback here.
	return fmt.Sprintf(`
[host]
%sdefault_personality = "bench"
[browser]
headed = "false"
workspace_dir = %q
driver_dir = %q
%s
[plugins.browser]
[plugins.blockdetect]
[plugins.snapcompact]
[plugins.secretmask]
[personalities.bench]
plugins = ["browser", "blockdetect", "snapcompact", "secretmask"]
tools = ["*"]
grants = [%s]
hooks = { detect = "blockdetect", compact = "snapcompact", mask = "secretmask" }
network = { allowed_hosts = ["127.0.0.1"], only_hosts = ["127.0.0.1"] }
`, host, b.Workspace, filepath.Join(wasmbuild.Root(), "build", "driver"), b.BrowserKeys, grants)
}

// StartWasmwright starts `bin serve` over stdio with conf (BenchConfig's
// text) written into a fresh folder, removed on Close.
func StartWasmwright(bin, conf string, verbose bool) (*Client, error) {
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("%v: build it with make build", err)
	}
	dir, err := os.MkdirTemp("", "ww-bench-")
	if err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "bench.toml")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		return nil, err
	}
	return Start(exec.Command(bin, "serve", "--config", path), dir, "ww", verbose)
}

// StartPeer starts Playwright MCP (its cli.js) over stdio, headless, on
// the same Chromium, settle timeout 0 ("PW0", its fastest).
func StartPeer(cli string, verbose bool) (*Client, error) {
	return startPeer(cli, verbose, "--timeout-settle", "0")
}

// StartPeerDefault starts Playwright MCP as StartPeer does, with its
// default settle timeout (it waits after each action for the page to
// settle).
func StartPeerDefault(cli string, verbose bool) (*Client, error) {
	return startPeer(cli, verbose)
}

func startPeer(cli string, verbose bool, extra ...string) (*Client, error) {
	dir, err := os.MkdirTemp("", "ww-bench-mcp-")
	if err != nil {
		return nil, err
	}
	conf := filepath.Join(dir, "config.json")
	b, _ := json.Marshal(map[string]any{"browser": map[string]any{"launchOptions": map[string]any{"args": IsolateArgs}}})
	if err := os.WriteFile(conf, b, 0o644); err != nil {
		return nil, err
	}
	args := append([]string{cli, "--headless", "--executable-path", Chromium(), "--no-sandbox", "--isolated"}, extra...)
	args = append(args, "--config", conf, "--output-dir", dir)
	return Start(exec.Command("node", args...), dir, "mcp", verbose)
}

// CDBin is chrome-devtools-mcp's entry point in an npm prefix (make peer
// installs chrome-devtools-mcp@1.11.0 into build/peer).
func CDBin(prefix string) string {
	return filepath.Join(prefix, "node_modules", "chrome-devtools-mcp", "build", "src", "bin", "chrome-devtools-mcp.js")
}

// StartCD starts chrome-devtools-mcp ("CD") over stdio on the same
// Chromium, headless and isolated (a fresh profile), as root needs it, with
// its usage statistics and CrUX lookups off and the same host-resolver
// rules as Playwright MCP's. Its page tools take pageId 1 (the only page
// of an isolated start); its actions answer with no snapshot unless asked
// (includeSnapshot).
func StartCD(bin string, verbose bool) (*Client, error) {
	dir, err := os.MkdirTemp("", "ww-bench-cd-")
	if err != nil {
		return nil, err
	}
	args := []string{bin, "--headless", "--isolated", "--executablePath", Chromium(), "--chromeArg=--no-sandbox",
		"--no-usage-statistics", "--no-performance-crux"}
	for _, a := range IsolateArgs {
		args = append(args, "--chromeArg="+a)
	}
	return Start(exec.Command("node", args...), dir, "cd", verbose)
}

// Client is one MCP server process spoken to over stdio JSON-RPC.
type Client struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	id   int
	log  bool
	name string
	dir  string
}

// Start runs cmd in dir and initializes the MCP session.
func Start(cmd *exec.Cmd, dir, name string, verbose bool) (*Client, error) {
	cmd.Dir = dir
	cmd.Stderr = io.Discard
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	outp, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Client{cmd: cmd, in: in, out: bufio.NewReaderSize(outp, 1<<20), log: verbose, name: name, dir: dir}
	if _, _, err := p.RPC("initialize", map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "wasmwright-bench", "version": "1"},
	}); err != nil {
		p.Close()
		return nil, err
	}
	fmt.Fprintf(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	return p, nil
}

// RPC sends one request and returns its result and the bytes of the
// response line.
func (p *Client) RPC(method string, params any) (json.RawMessage, int, error) {
	p.id++
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": p.id, "method": method, "params": params})
	if _, err := p.in.Write(append(req, '\n')); err != nil {
		return nil, 0, err
	}
	for {
		line, err := p.out.ReadBytes('\n')
		if err != nil {
			return nil, 0, err
		}
		if res, ok, err := jsonrpc.Answer(line, int64(p.id)); ok {
			return res, len(line), err
		} // else a notification
	}
}

// Tool calls a tool and returns its text content, the response's size and
// the call's time; an isError result is an error.
func (p *Client) Tool(name string, args map[string]any) (string, int, time.Duration, error) {
	t0 := time.Now()
	raw, n, err := p.RPC("tools/call", map[string]any{"name": name, "arguments": args})
	d := time.Since(t0)
	if err != nil {
		return "", n, d, err
	}
	text, err := mcphttp.ToolText(raw)
	if p.log {
		fmt.Fprintf(os.Stderr, "%s %s %s error=%v\n", p.name, name, d.Round(time.Millisecond), err != nil)
	}
	return text, n, d, err
}

// Pid is the server's process id.
func (p *Client) Pid() int { return p.cmd.Process.Pid }

// Pids are the server's process and its descendants.
func (p *Client) Pids() []int {
	pid := p.cmd.Process.Pid
	return append([]int{pid}, procfs.Descendants(pid)...)
}

// Close ends the session (stdin closed) and waits for the process, or
// kills it after 5 s.
func (p *Client) Close() {
	p.in.Close()
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
	os.RemoveAll(p.dir)
}

// Chromium is the Chromium binary both sides run.
func Chromium() string {
	if _, err := os.Stat("/usr/lib/chromium/chromium"); err == nil {
		return "/usr/lib/chromium/chromium"
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	return "chromium"
}

// PSS sums the proportional set size (KB) of processes.
func PSS(pids []int) int64 { return procfs.Memory(pids, "Pss") }

// USS sums the private memory (KB) of processes.
func USS(pids []int) int64 { return procfs.Memory(pids, "Private_Clean", "Private_Dirty") }

// MB prints KB as MB.
func MB(kb int64) string { return fmt.Sprintf("%.0f MB", float64(kb)/1024) }
