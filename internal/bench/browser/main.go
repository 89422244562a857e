// Command browser benchmarks wasmwright's browser tools against Playwright
// MCP on the same scripted session over saved web pages served on loopback:
// navigate, snapshot, type, click, screenshot. Both run the same Chromium;
// external hosts resolve to nothing for both, so only the loopback pages
// load.
//
//	go run ./internal/bench/browser [-pages ../shared/corpus/pages] [-n 20 | -all]
//
// It prints a markdown section: per-call median latency of each, their
// ratio, snapshot size, and memory per open session. The peer is
// @playwright/mcp@0.0.83 installed in build/peer (make bench installs it);
// without it only wasmwright is measured.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/hostfuncs/browser"
	corpusdir "github.com/wasmwright/wasmwright/internal/corpus"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

// Playwright MCP's browser gets these: external hosts fail at once instead
// of waiting on a closed network (wasmwright's does this itself).
var isolateArgs = []string{"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"}

var steps = []string{"navigate", "snapshot", "type", "click", "screenshot"}

func main() {
	root := wasmbuild.Root()
	corpus := flag.String("corpus", "", "corpus folder (its pages/ subfolder is used; overrides -pages)")
	pagesDir := flag.String("pages", filepath.Join(corpusdir.Dir(), "pages"), "folder of saved .html pages")
	n := flag.Int("n", 20, "pages to run")
	all := flag.Bool("all", false, "run every page")
	peerDir := flag.String("peer", filepath.Join(root, "build", "peer"), "npm prefix holding @playwright/mcp@0.0.83")
	sessions := flag.Int("sessions", 3, "extra sessions opened to measure memory per session")
	verbose := flag.Bool("v", false, "log each call")
	flag.Parse()
	if *corpus != "" {
		*pagesDir = filepath.Join(*corpus, "pages")
	}

	pages, err := listPages(*pagesDir)
	if err != nil || len(pages) == 0 {
		fmt.Printf("## Browser benchmark\n\nSkipped: no corpus pages at %s (%v). Pass -pages with a folder of .html files.\n", *pagesDir, err)
		return
	}
	if !*all && len(pages) > *n {
		pages = pages[:*n]
	}
	if err := browser.Preflight(browser.Config{}); err != nil {
		fmt.Printf("## Browser benchmark\n\nSkipped: %v\n", err)
		os.Exit(1)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(*pagesDir)))
	defer srv.Close()

	ww, err := newWasmwright(*verbose)
	if err != nil {
		fmt.Fprintln(os.Stderr, "wasmwright:", err)
		os.Exit(1)
	}
	defer ww.close()
	var peer *mcpPeer
	cli := filepath.Join(*peerDir, "node_modules", "@playwright", "mcp", "cli.js")
	if _, err := os.Stat(cli); err == nil {
		if peer, err = newPeer(cli, *verbose); err != nil {
			fmt.Fprintln(os.Stderr, "playwright mcp:", err)
			peer = nil
		} else {
			defer peer.close()
		}
	} else {
		fmt.Fprintf(os.Stderr, "Playwright MCP not found at %s: npm install --prefix %s @playwright/mcp@0.0.83\n", cli, *peerDir)
	}

	wwT, peerT := map[string][]time.Duration{}, map[string][]time.Duration{}
	var wwSnap, peerSnap []int
	// Warm both (first launch, first compile) on the first page, unmeasured.
	ww.run(srv.URL+"/"+pages[0], nil, nil)
	if peer != nil {
		peer.run(srv.URL+"/"+pages[0], nil, nil)
	}
	for _, p := range pages {
		u := srv.URL + "/" + p
		ww.run(u, wwT, &wwSnap)
		if peer != nil {
			peer.run(u, peerT, &peerSnap)
		}
	}

	// Memory: one session each is open now; open more and see what grows.
	wwBase := pss(wwPids())
	for i := 0; i < *sessions; i++ {
		ww.openSession(fmt.Sprintf("extra-%d", i), srv.URL+"/"+pages[i%len(pages)])
	}
	wwMore := pss(wwPids())
	var peerMem int64
	if peer != nil {
		peerMem = pss(peer.pids())
	}

	fmt.Printf("## Browser: wasmwright vs Playwright MCP 0.0.83\n\n")
	fmt.Printf("%d pages of %s served on loopback; one scripted session per page (navigate, snapshot, type into the first textbox, click the first button or link, screenshot); warm medians in ms; same Chromium (%s) for both, external hosts unresolvable. Playwright MCP runs with --timeout-settle 0.\n\n",
		len(pages), filepath.Base(*pagesDir), chromium())
	fmt.Println("| call | wasmwright (ms) | Playwright MCP (ms) | ratio | n |")
	fmt.Println("|---|---:|---:|---:|---:|")
	for _, s := range steps {
		a, b := median(wwT[s]), median(peerT[s])
		ratio := "-"
		if peer != nil && b > 0 {
			ratio = fmt.Sprintf("%.2f", float64(a)/float64(b))
		}
		fmt.Printf("| %s | %s | %s | %s | %d |\n", s, msStr(a), msStr(b), ratio, len(wwT[s]))
	}
	fmt.Println()
	if peer != nil && len(peerSnap) > 0 {
		fmt.Printf("Snapshot size (median characters): wasmwright %d, Playwright MCP %d, ratio %.2f (what the agent receives: wasmwright after its compact hook, Playwright MCP as browser_snapshot returns it).\n\n",
			medianInt(wwSnap), medianInt(peerSnap), float64(medianInt(wwSnap))/float64(max(1, medianInt(peerSnap))))
	} else {
		fmt.Printf("Snapshot size (median characters): wasmwright %d.\n\n", medianInt(wwSnap))
	}
	fmt.Printf("Memory (PSS): wasmwright with 1 session %s, each further session +%s (%d opened); ",
		mb(wwBase), mb((wwMore-wwBase)/int64(max(1, *sessions))), *sessions)
	if peer != nil {
		fmt.Printf("Playwright MCP, one session per process: %s.\n", mb(peerMem))
	} else {
		fmt.Println("Playwright MCP not measured.")
	}
}

func listPages(dir string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if strings.HasSuffix(e.Name(), ".html") {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out, nil
}

var (
	refLine = regexp.MustCompile(`- (textbox|searchbox|button|link)\b[^\n]*\[ref=([a-z0-9]+)\]`)
)

// targets picks the first textbox and the first button (else link) of a
// snapshot, the same rule for both systems.
func targets(snap string) (textbox, clickable string) {
	var link string
	for _, m := range refLine.FindAllStringSubmatch(snap, -1) {
		switch m[1] {
		case "textbox", "searchbox":
			if textbox == "" {
				textbox = m[2]
			}
		case "button":
			if clickable == "" {
				clickable = m[2]
			}
		case "link":
			if link == "" {
				link = m[2]
			}
		}
	}
	if clickable == "" {
		clickable = link
	}
	return textbox, clickable
}

// ---- wasmwright: the browser plugin in the sandbox on the host functions

type wasmwright struct {
	h   *host.Host
	log bool
}

// newWasmwright starts a real host, as `wasmwright serve` does: the browser
// plugin with the default pipeline (detect, compact, mask), the egress proxy
// in front of Chromium (loopback allowed for the corpus server), every call
// through dispatch and the hooks.
func newWasmwright(verbose bool) (*wasmwright, error) {
	dir, err := os.MkdirTemp("", "ww-bench-plugins-")
	if err != nil {
		return nil, err
	}
	if _, err := wasmbuild.Install(dir, map[string]string{"browser": "plugins/browser", "blockdetect": "plugins/blockdetect",
		"snapcompact": "plugins/snapcompact", "secretmask": "plugins/secretmask"}); err != nil {
		return nil, err
	}
	// wasmwright's browser needs no isolateArgs: it resolves no names
	// itself (its own --host-resolver-rules) and the proxy allows only
	// loopback here.
	cfg, err := host.ParseConfig(fmt.Sprintf(`
[host]
plugins_dir = %q
cache_dir = %q
default_personality = "bench"
[browser]
headed = "false"
workspace_dir = %q
[plugins.browser]
[plugins.blockdetect]
[plugins.snapcompact]
[plugins.secretmask]
[personalities.bench]
plugins = ["browser", "blockdetect", "snapcompact", "secretmask"]
tools = ["*"]
grants = ["browser.read", "browser.act", "secrets.mask"]
hooks = { detect = "blockdetect", compact = "snapcompact", mask = "secretmask" }
network = { allowed_hosts = ["127.0.0.1"], only_hosts = ["127.0.0.1"] }
`, dir, filepath.Join(wasmbuild.Root(), "build", "cache"), filepath.Join(os.TempDir(), "ww-bench-workspace")), "bench", dir)
	if err != nil {
		return nil, err
	}
	h, err := host.New(context.Background(), cfg, host.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return nil, err
	}
	if probs, _ := h.Problems("bench"); len(probs) > 0 {
		return nil, fmt.Errorf("bench personality: %s", strings.Join(probs, "; "))
	}
	return &wasmwright{h: h, log: verbose}, nil
}

func (w *wasmwright) call(session, tool string, args any) (*abi.Result, time.Duration, error) {
	b, _ := json.Marshal(args)
	t0 := time.Now()
	r, err := w.h.Call(context.Background(), host.Request{Personality: "bench", Session: session, Tool: tool, Args: b})
	d := time.Since(t0)
	if w.log {
		fmt.Fprintf(os.Stderr, "ww %s %s %v\n", tool, d.Round(time.Millisecond), err)
	}
	return r, d, err
}

func (w *wasmwright) run(u string, times map[string][]time.Duration, sizes *[]int) {
	// One session for every page, as Playwright MCP keeps one context.
	session := "bench"
	record := func(step string, d time.Duration, err error) {
		if times != nil && err == nil {
			times[step] = append(times[step], d)
		}
	}
	_, d, err := w.call(session, "browser_navigate", map[string]any{"url": u})
	record("navigate", d, err)
	if err != nil {
		fmt.Fprintf(os.Stderr, "wasmwright navigate %s: %v\n", u, err)
		return
	}
	r, d, err := w.call(session, "browser_snapshot", map[string]any{})
	record("snapshot", d, err)
	if err == nil && sizes != nil {
		*sizes = append(*sizes, len(r.Snapshot))
	}
	snap := ""
	if r != nil {
		snap = r.Snapshot
	}
	tb, cl := targets(snap)
	if tb != "" {
		_, d, err = w.call(session, "browser_type", map[string]any{"ref": tb, "text": "wasmwright"})
		record("type", d, err)
	}
	if cl != "" {
		_, d, err = w.call(session, "browser_click", map[string]any{"ref": cl})
		record("click", d, err)
	}
	_, d, err = w.call(session, "browser_screenshot", map[string]any{"name": "bench"})
	record("screenshot", d, err)
}

func (w *wasmwright) openSession(name, u string) {
	w.call(name, "browser_navigate", map[string]any{"url": u})
}

func (w *wasmwright) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	w.h.Close(ctx)
}

// wwPids: this process, and its descendants except the MCP peer's tree.
func wwPids() []int {
	out := []int{os.Getpid()}
	for _, p := range descendants(os.Getpid()) {
		if !inTree(p, peerPid.Load()) {
			out = append(out, p)
		}
	}
	return out
}

// ---- Playwright MCP over stdio JSON-RPC

var peerPid atomic.Int64

type mcpPeer struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	id   int
	log  bool
	conf string
}

func newPeer(cli string, verbose bool) (*mcpPeer, error) {
	dir, _ := os.MkdirTemp("", "ww-bench-mcp-")
	conf := filepath.Join(dir, "config.json")
	cfg := map[string]any{"browser": map[string]any{"launchOptions": map[string]any{"args": isolateArgs}}}
	b, _ := json.Marshal(cfg)
	os.WriteFile(conf, b, 0o644)
	cmd := exec.Command("node", cli, "--headless", "--executable-path", chromium(), "--no-sandbox", "--isolated",
		"--timeout-settle", "0", "--config", conf, "--output-dir", dir)
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
	peerPid.Store(int64(cmd.Process.Pid))
	p := &mcpPeer{cmd: cmd, in: in, out: bufio.NewReaderSize(outp, 1<<20), log: verbose, conf: dir}
	if _, err := p.rpc("initialize", map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "wasmwright-bench", "version": "1"},
	}); err != nil {
		p.close()
		return nil, err
	}
	fmt.Fprintf(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	return p, nil
}

func (p *mcpPeer) rpc(method string, params any) (json.RawMessage, error) {
	p.id++
	req, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": p.id, "method": method, "params": params})
	if _, err := p.in.Write(append(req, '\n')); err != nil {
		return nil, err
	}
	for {
		line, err := p.out.ReadBytes('\n')
		if err != nil {
			return nil, err
		}
		var msg struct {
			ID     *int            `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if json.Unmarshal(line, &msg) != nil || msg.ID == nil || *msg.ID != p.id {
			continue // notifications
		}
		if msg.Error != nil {
			return nil, errors.New(msg.Error.Message)
		}
		return msg.Result, nil
	}
}

// tool calls a tool and returns its text content.
func (p *mcpPeer) tool(name string, args map[string]any) (string, time.Duration, error) {
	t0 := time.Now()
	raw, err := p.rpc("tools/call", map[string]any{"name": name, "arguments": args})
	d := time.Since(t0)
	if err != nil {
		return "", d, err
	}
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	json.Unmarshal(raw, &res)
	var text strings.Builder
	for _, c := range res.Content {
		if c.Type == "text" {
			text.WriteString(c.Text)
		}
	}
	if p.log {
		fmt.Fprintf(os.Stderr, "mcp %s %s error=%v\n", name, d.Round(time.Millisecond), res.IsError)
	}
	if res.IsError {
		return text.String(), d, errors.New(firstLine(text.String()))
	}
	return text.String(), d, nil
}

func (p *mcpPeer) run(u string, times map[string][]time.Duration, sizes *[]int) {
	record := func(step string, d time.Duration, err error) {
		if times != nil && err == nil {
			times[step] = append(times[step], d)
		}
	}
	_, d, err := p.tool("browser_navigate", map[string]any{"url": u})
	record("navigate", d, err)
	if err != nil {
		fmt.Fprintf(os.Stderr, "mcp navigate %s: %v\n", u, err)
		return
	}
	snap, d, err := p.tool("browser_snapshot", map[string]any{})
	record("snapshot", d, err)
	if err == nil && sizes != nil {
		*sizes = append(*sizes, len(yamlPart(snap)))
	}
	tb, cl := targets(snap)
	if tb != "" {
		_, d, err = p.tool("browser_type", map[string]any{"target": tb, "text": "wasmwright"})
		record("type", d, err)
	}
	if cl != "" {
		_, d, err = p.tool("browser_click", map[string]any{"target": cl})
		record("click", d, err)
	}
	_, d, err = p.tool("browser_take_screenshot", map[string]any{})
	record("screenshot", d, err)
}

// yamlPart is the snapshot inside Playwright MCP's markdown answer.
func yamlPart(s string) string {
	if i := strings.Index(s, "```yaml"); i >= 0 {
		rest := s[i+7:]
		if j := strings.Index(rest, "```"); j >= 0 {
			return strings.TrimSpace(rest[:j])
		}
	}
	return s
}

func (p *mcpPeer) pids() []int {
	pid := int(peerPid.Load())
	return append([]int{pid}, descendants(pid)...)
}

func (p *mcpPeer) close() {
	p.in.Close()
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
	}
	os.RemoveAll(p.conf)
}

// ---- helpers

func chromium() string {
	if _, err := os.Stat("/usr/lib/chromium/chromium"); err == nil {
		return "/usr/lib/chromium/chromium"
	}
	if p, err := exec.LookPath("chromium"); err == nil {
		return p
	}
	return "chromium"
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func medianInt(v []int) int {
	if len(v) == 0 {
		return 0
	}
	s := append([]int(nil), v...)
	sort.Ints(s)
	return s[len(s)/2]
}

func msStr(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", float64(d.Microseconds())/1000)
}

func mb(kb int64) string { return fmt.Sprintf("%.0f MB", float64(kb)/1024) }

func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return l
}

// pss sums the proportional set size (KB) of processes.
func pss(pids []int) int64 {
	var total int64
	for _, p := range pids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/smaps_rollup", p))
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "Pss:") {
				f := strings.Fields(l)
				if len(f) >= 2 {
					v, _ := strconv.ParseInt(f[1], 10, 64)
					total += v
				}
			}
		}
	}
	return total
}

func parents() map[int]int {
	out := map[int]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 1 {
			out[p], _ = strconv.Atoi(f[1])
		}
	}
	return out
}

func descendants(pid int) []int {
	par := parents()
	var out []int
	for p := range par {
		if p != pid && inTreeOf(par, p, int64(pid)) {
			out = append(out, p)
		}
	}
	return out
}

func inTree(p int, root int64) bool { return root != 0 && inTreeOf(parents(), p, root) }

func inTreeOf(par map[int]int, p int, root int64) bool {
	for q, n := p, 0; q > 0 && n < 64; q, n = par[q], n+1 {
		if int64(q) == root {
			return true
		}
	}
	return false
}
