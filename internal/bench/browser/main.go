// Command browser benchmarks wasmwright's browser tools against Playwright
// MCP, both driven the same way: each is an MCP server over stdio (the
// built `build/wasmwright serve`, and Playwright MCP's cli.js), spoken to by
// the same JSON-RPC client code, on the same scripted task over saved web
// pages served on loopback: navigate, snapshot, type, click, read (a
// second snapshot). Both run the same Chromium; external hosts resolve to
// nothing for both, so only the loopback pages load.
//
//	go run ./internal/bench/browser [-pages ../shared/corpus/pages] [-n 20 | -all]
//
// Type and click act on the same elements on both sides: the first textbox
// and the first button (else link), by role and name, that both
// snapshots show. Failed calls are counted, not dropped. It prints a
// markdown section: per-call median latency and failures of each, their
// ratio, the per-task cost (calls, bytes received, time) and memory. The
// peer is @playwright/mcp@0.0.83 installed in build/peer (make bench
// installs it); without it only wasmwright is measured.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/wasmwright/wasmwright/hostfuncs/browser"
	"github.com/wasmwright/wasmwright/internal/bench/mcphttp"
	"github.com/wasmwright/wasmwright/internal/bench/sut"
	corpusdir "github.com/wasmwright/wasmwright/internal/corpus"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

var steps = []string{"navigate", "snapshot", "type", "click", "read"}

// side is one system under test: its MCP client and what it measured.
type side struct {
	name   string
	c      *mcpClient
	tools  map[string]string // step -> tool name
	arg    string            // the name of the element argument
	times  map[string][]time.Duration
	failed map[string]int
	snaps  []int
	// per-task totals over the measured pages
	calls int
	bytes int64
	total time.Duration
	// actions (type, click) and how they answered: the changes since the
	// last snapshot (wasmwright's default, snapshot "diff"), or whole
	actions, diffs int
}

func main() {
	root := wasmbuild.Root()
	corpus := flag.String("corpus", "", "corpus folder (its pages/ subfolder is used; overrides -pages)")
	pagesDir := flag.String("pages", filepath.Join(corpusdir.Dir(), "pages"), "folder of saved .html pages")
	n := flag.Int("n", 20, "pages to run")
	all := flag.Bool("all", false, "run every page")
	peerDir := flag.String("peer", filepath.Join(root, "build", "peer"), "npm prefix holding @playwright/mcp@0.0.83")
	bin := flag.String("wasmwright", filepath.Join(root, "build", "wasmwright"), "the built wasmwright binary (make build)")
	verbose := flag.Bool("v", false, "log each call")
	flag.Parse()
	if *corpus != "" {
		*pagesDir = filepath.Join(*corpus, "pages")
	}
	const title = "## Browser: wasmwright vs Playwright MCP 0.0.83, both over MCP stdio"

	pages, err := listPages(*pagesDir)
	if err != nil || len(pages) == 0 {
		fmt.Printf("%s\n\nSkipped: no corpus pages at %s (%v). Pass -pages with a folder of .html files.\n", title, *pagesDir, err)
		return
	}
	if !*all && len(pages) > *n {
		pages = pages[:*n]
	}
	if err := browser.Preflight(browser.Config{}); err != nil {
		fmt.Printf("%s\n\nSkipped: %v\n", title, err)
		os.Exit(1)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(*pagesDir)))
	defer srv.Close()

	wc, err := newWasmwright(*bin, *verbose)
	if err != nil {
		fmt.Fprintln(os.Stderr, "wasmwright:", err)
		os.Exit(1)
	}
	defer wc.close()
	sides := []*side{{name: "wasmwright", c: wc, arg: "ref",
		tools: map[string]string{"navigate": "browser_navigate", "snapshot": "browser_snapshot", "type": "browser_type", "click": "browser_click", "read": "browser_snapshot"}}}
	cli := filepath.Join(*peerDir, "node_modules", "@playwright", "mcp", "cli.js")
	if _, err := os.Stat(cli); err == nil {
		if pc, err := newPeer(cli, *verbose); err != nil {
			fmt.Fprintln(os.Stderr, "playwright mcp:", err)
		} else {
			defer pc.close()
			sides = append(sides, &side{name: "Playwright MCP", c: pc, arg: "target",
				tools: map[string]string{"navigate": "browser_navigate", "snapshot": "browser_snapshot", "type": "browser_type", "click": "browser_click", "read": "browser_snapshot"}})
		}
	} else {
		fmt.Fprintf(os.Stderr, "Playwright MCP not found at %s: npm install --prefix %s @playwright/mcp@0.0.83\n", cli, *peerDir)
	}
	for _, s := range sides {
		s.times, s.failed = map[string][]time.Duration{}, map[string]int{}
	}

	// Warm both (first launch, first compile) on the first page, unmeasured.
	runTask(sides, srv.URL+"/"+pages[0], false)
	shared := 0
	for _, p := range pages {
		if runTask(sides, srv.URL+"/"+p, true) {
			shared++
		}
	}

	fmt.Printf("%s\n\n", title)
	fmt.Printf("%d pages of %s served on loopback. Each side is an MCP server over stdio driven by the same client code: `build/wasmwright serve` (browser plugin, egress proxy, detect/compact/mask pipeline) and Playwright MCP (--timeout-settle 0), same Chromium (%s), external hosts unresolvable. One scripted task per page: navigate, snapshot, type into the first textbox, click the first button (else link), read (a second snapshot); type and click act on the same element (role and name) on both sides, found in both snapshots (%d of %d pages had a shared textbox or clickable). Warm medians of successful calls in ms; failures counted per call.\n\n",
		len(pages), filepath.Base(*pagesDir), sut.Chromium(), shared, len(pages))
	peer := (*side)(nil)
	if len(sides) > 1 {
		peer = sides[1]
	}
	ww := sides[0]
	fmt.Println("| call | wasmwright (ms) | failed | Playwright MCP (ms) | failed | ratio | n |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|")
	for _, st := range steps {
		a := median(ww.times[st])
		b, bf, ratio := time.Duration(0), "-", "-"
		if peer != nil {
			b, bf = median(peer.times[st]), strconv.Itoa(peer.failed[st])
			if a > 0 && b > 0 {
				ratio = fmt.Sprintf("%.2f", float64(a)/float64(b))
			}
		}
		fmt.Printf("| %s | %s | %d | %s | %s | %s | %d |\n", st, msStr(a), ww.failed[st], msStr(b), bf, ratio, len(ww.times[st])+ww.failed[st])
	}
	fmt.Println()
	fmt.Println("Per-task cost, summed over the measured pages (every call, failed ones included; bytes are the JSON-RPC responses the agent's client receives):")
	fmt.Println()
	fmt.Println("| | calls | failed | bytes received | time (s) | bytes per task | ms per task |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|")
	for _, s := range sides {
		f := 0
		for _, v := range s.failed {
			f += v
		}
		fmt.Printf("| %s | %d | %d | %d | %.1f | %d | %.0f |\n", s.name, s.calls, f, s.bytes, s.total.Seconds(),
			s.bytes/int64(len(pages)), float64(s.total.Milliseconds())/float64(len(pages)))
	}
	fmt.Println()
	fmt.Printf("wasmwright's actions take snapshot \"diff\" by default: %d of its %d type and click answers carried the changes since the last snapshot, the others the whole snapshot (a navigation, or a diff no shorter than the page).\n\n", ww.diffs, ww.actions)
	if peer != nil && len(peer.snaps) > 0 {
		fmt.Printf("Snapshot answer size (median characters of the text content): wasmwright %d, Playwright MCP %d, ratio %.2f.\n\n",
			medianInt(ww.snaps), medianInt(peer.snaps), float64(medianInt(ww.snaps))/float64(max(1, medianInt(peer.snaps))))
	} else {
		fmt.Printf("Snapshot answer size (median characters of the text content): wasmwright %d.\n\n", medianInt(ww.snaps))
	}
	deadFormClicks(sides)
	fmt.Printf("Memory (PSS of each server's process tree, one session each, after the run): wasmwright %s", mb(pss(ww.c.pids())))
	if peer != nil {
		fmt.Printf(", Playwright MCP %s.\n", mb(pss(peer.c.pids())))
	} else {
		fmt.Println("; Playwright MCP not measured.")
	}
}

// deadFormClicks times, on every side, a click on a submit button whose
// form posts to a loopback port nothing listens on (an error on one side,
// an error page on the other: either way the call's time), and prints
// median and p90.
func deadFormClicks(sides []*side) {
	const n = 11
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return
	}
	dead := l.Addr().String()
	l.Close()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<!doctype html><title>Dead form</title><form method="post" action="http://%s/submit"><input name="q" aria-label="Query"><button>Send</button></form>`, dead)
	}))
	defer srv.Close()
	fmt.Printf("Click on a submit button whose form posts to a loopback port nothing listens on (%d clicks each, after navigate and snapshot; the first unmeasured):\n\n", n)
	fmt.Println("| | median (ms) | p90 (ms) |")
	fmt.Println("|---|---:|---:|")
	for _, s := range sides {
		var ds []time.Duration
		for i := 0; i <= n; i++ {
			if _, _, _, err := s.c.tool(s.tools["navigate"], map[string]any{"url": srv.URL + "/"}); err != nil {
				continue
			}
			snap, _, _, err := s.c.tool(s.tools["snapshot"], map[string]any{})
			if err != nil {
				continue
			}
			_, refs := elems(snap)
			ref, ok := refs[`button Send`]
			if !ok {
				continue
			}
			_, _, d, _ := s.c.tool(s.tools["click"], map[string]any{s.arg: ref})
			if i > 0 {
				ds = append(ds, d)
			}
		}
		fmt.Printf("| %s | %s | %s |\n", s.name, msStr(median(ds)), msStr(quantile(ds, 9, 10)))
	}
	fmt.Println()
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

// elemLine is a snapshot line naming an element: role, name, ref.
var elemLine = regexp.MustCompile(`- (textbox|searchbox|button|link) "([^"\n]+)"[^\n]*?\[ref=([a-z0-9]+)\]`)

// elems maps "role name" to the first ref a snapshot gives it, in order.
func elems(snap string) (order []string, refs map[string]string) {
	refs = map[string]string{}
	for _, m := range elemLine.FindAllStringSubmatch(snap, -1) {
		role := m[1]
		if role == "searchbox" {
			role = "textbox"
		}
		k := role + " " + m[2]
		if _, ok := refs[k]; !ok {
			refs[k] = m[3]
			order = append(order, k)
		}
	}
	return order, refs
}

// sharedTargets picks, from the first snapshot's order, the first textbox
// and the first button (else link) every snapshot shows: the same elements
// for every side. It returns the keys.
func sharedTargets(snaps []map[string]string, order []string) (textbox, clickable string) {
	inAll := func(k string) bool {
		for _, s := range snaps {
			if _, ok := s[k]; !ok {
				return false
			}
		}
		return true
	}
	link := ""
	for _, k := range order {
		if !inAll(k) {
			continue
		}
		switch {
		case strings.HasPrefix(k, "textbox ") && textbox == "":
			textbox = k
		case strings.HasPrefix(k, "button ") && clickable == "":
			clickable = k
		case strings.HasPrefix(k, "link ") && link == "":
			link = k
		}
	}
	if clickable == "" {
		clickable = link
	}
	return textbox, clickable
}

// runTask runs the scripted task on one page on every side: navigate and
// snapshot on each, then the shared targets, then type, click and read on
// each. measure records times, failures and totals. It reports whether the
// page had a shared target.
func runTask(sides []*side, u string, measure bool) bool {
	call := func(s *side, step string, args map[string]any) (string, error) {
		text, n, d, err := s.c.tool(s.tools[step], args)
		if !measure {
			return text, err
		}
		s.calls++
		s.bytes += int64(n)
		s.total += d
		if step == "type" || step == "click" {
			s.actions++
			if strings.Contains(text, "since your last snapshot") {
				s.diffs++
			}
		}
		if err != nil {
			s.failed[step]++
			fmt.Fprintf(os.Stderr, "%s %s %s: %v\n", s.name, step, u, err)
		} else {
			s.times[step] = append(s.times[step], d)
		}
		return text, err
	}
	snaps := make([]map[string]string, len(sides))
	var order []string
	for i, s := range sides {
		snaps[i] = map[string]string{}
		if _, err := call(s, "navigate", map[string]any{"url": u}); err != nil {
			continue
		}
		snap, err := call(s, "snapshot", map[string]any{})
		if err != nil {
			continue
		}
		if measure {
			s.snaps = append(s.snaps, len(snap))
		}
		o, refs := elems(snap)
		snaps[i] = refs
		if i == 0 {
			order = o
		}
	}
	tb, cl := sharedTargets(snaps, order)
	for i, s := range sides {
		if tb != "" {
			call(s, "type", map[string]any{s.arg: snaps[i][tb], "text": "wasmwright"})
		}
		if cl != "" {
			call(s, "click", map[string]any{s.arg: snaps[i][cl]})
		}
		call(s, "read", map[string]any{})
	}
	return tb != "" || cl != ""
}

// ---- the two servers, each an MCP server over stdio

// newWasmwright starts `wasmwright serve` over stdio, as an agent's MCP
// config runs it, with the benchmarks' config (sut.WasmwrightConfig).
func newWasmwright(bin string, verbose bool) (*mcpClient, error) {
	if _, err := os.Stat(bin); err != nil {
		return nil, fmt.Errorf("%v: build it with make build", err)
	}
	dir, err := os.MkdirTemp("", "ww-bench-")
	if err != nil {
		return nil, err
	}
	conf, err := sut.WasmwrightConfig(dir, 1)
	if err != nil {
		return nil, err
	}
	return startMCP(exec.Command(bin, "serve", "--config", conf), dir, "ww", verbose)
}

func newPeer(cli string, verbose bool) (*mcpClient, error) {
	dir, _ := os.MkdirTemp("", "ww-bench-mcp-")
	args, err := sut.PeerArgs(cli, dir)
	if err != nil {
		return nil, err
	}
	return startMCP(exec.Command("node", args...), dir, "mcp", verbose)
}

// ---- one MCP client over stdio JSON-RPC, for both

type mcpClient struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	id   int
	log  bool
	name string
	dir  string
}

func startMCP(cmd *exec.Cmd, dir, name string, verbose bool) (*mcpClient, error) {
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
	p := &mcpClient{cmd: cmd, in: in, out: bufio.NewReaderSize(outp, 1<<20), log: verbose, name: name, dir: dir}
	if _, _, err := p.rpc("initialize", map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "wasmwright-bench", "version": "1"},
	}); err != nil {
		p.close()
		return nil, err
	}
	fmt.Fprintf(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	return p, nil
}

// rpc sends one request and returns its result and the bytes of the
// response line.
func (p *mcpClient) rpc(method string, params any) (json.RawMessage, int, error) {
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
			return nil, len(line), errors.New(msg.Error.Message)
		}
		return msg.Result, len(line), nil
	}
}

// tool calls a tool and returns its text content, the response's size and
// the call's time; an isError result is an error.
func (p *mcpClient) tool(name string, args map[string]any) (string, int, time.Duration, error) {
	t0 := time.Now()
	raw, n, err := p.rpc("tools/call", map[string]any{"name": name, "arguments": args})
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

func (p *mcpClient) pids() []int {
	pid := p.cmd.Process.Pid
	return append([]int{pid}, sut.Descendants(pid)...)
}

func (p *mcpClient) close() {
	p.in.Close()
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		p.cmd.Process.Kill()
	}
	os.RemoveAll(p.dir)
}

// ---- helpers

func median(ds []time.Duration) time.Duration { return quantile(ds, 1, 2) }

// quantile is the num/den quantile of ds (0 when empty).
func quantile(ds []time.Duration, num, den int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)*num/den]
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
