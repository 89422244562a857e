// Command grid measures browsers on a Selenium Grid against a local
// browser, through the same host API: a real hub and two nodes, each in
// a network namespace of its own (internal/seleniumgrid), the host's
// egress proxy on the hub's address. Three sides, each a host of its own,
// measured interleaved (each round runs every side once, in a rotating
// order, so a busy moment of the shared machine falls on all of them):
// a local browser, a grid browser driven through the hub (grid_cdp =
// "hub") and one driven straight at its node (grid_cdp = "node"). For
// each: the time to open a session (the first navigate of a new session:
// the browser start, on the grid the queue and the node's chromedriver
// too), and per call navigate, click, type and snapshot on a loopback
// page, medians. Then what one grid
// session costs: on its node, the memory (PSS) of the browser's processes
// (Chromium and its chromedriver) and of the node's Selenium server, and
// the processor time each used during the timed calls; on the host, the
// processor time of the host and its Playwright driver for those calls.
// Before the hosts start, the hop (hop.go): one CDP round trip locally, at
// the node and through the hub, the browser's own work taken out. With
// -protocol, each call's serial CDP round trips (protocol.go): a call's
// extra on the grid is about those times the hop's extra.
//
//	go -C internal/bench run ./grid [-n 15] [-opens 3] [-protocol]   (make bench-grid)
//
// With WASMWRIGHT_SPANS=FILE the hosts' timing spans (internal/spans)
// go to FILE, each call's after a line "side NAME" (the cost pairs':
// "side pairs"): the calls run one at a time, so each side's steps can be
// told apart and compared.
//
// It prints a markdown section; without root, ip netns, Java,
// chromedriver or the jar (make grid) it prints why it measured nothing.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/internal/bench/benchflag"
	"github.com/wasmwright/wasmwright/internal/bench/measure"
	"github.com/wasmwright/wasmwright/internal/procfs"
	"github.com/wasmwright/wasmwright/internal/seleniumgrid"
	"github.com/wasmwright/wasmwright/internal/spans"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

func main() {
	n := flag.Int("n", 15, "calls of each kind per side")
	opens := flag.Int("opens", 3, "sessions opened per side")
	protocol := flag.Bool("protocol", false, "count each call's CDP round trips (the drivers log every message: the times are not the figures)")
	benchflag.Unused()
	flag.Parse()
	if *protocol {
		var err error
		if proto, err = newProtoLog(); err != nil {
			fmt.Printf("Not measured: %v\n", err)
			return
		}
		defer os.RemoveAll(proto.dir)
	}
	fmt.Println("## Browsers on a Selenium Grid vs a local browser")
	fmt.Println()
	root := wasmbuild.Root()
	if miss := seleniumgrid.Missing(root); miss != "" {
		fmt.Printf("Not measured: %s.\n", miss)
		return
	}
	if err := run(root, *n, *opens); err != nil {
		fmt.Printf("Not measured: %v\n", err)
	}
}

// proto counts round trips (-protocol), or is nil.
var proto *protoLog

type figures struct {
	open, navigate, click, typ, snapshot []time.Duration
}

// side is one host measured: local, or on the grid through the hub or
// straight at the node.
type side struct {
	name     string
	h        *host.Host
	f        figures
	lastText string // the last navigate's answer: the refs to click and type by
}

func run(root string, n, opens int) error {
	logs, err := os.MkdirTemp("", "gridbench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(logs)
	t0 := time.Now()
	g, err := seleniumgrid.Start(context.Background(), seleniumgrid.Options{Root: root, Nodes: 2, MaxSessions: 1, LogDir: logs})
	if err != nil {
		return err
	}
	defer g.Close()
	up := time.Since(t0)
	hop, err := measureHop(g, 20, 10)
	if err != nil {
		return err
	}
	plugins := filepath.Join(logs, "plugins")
	if _, err := wasmbuild.Install(plugins, map[string]string{"browser": "plugins/browser"}); err != nil {
		return err
	}
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<!doctype html><title>Bench</title><h1>A page</h1><p>Some text.</p><a href="/">Link</a><button>Button</button><input aria-label="Field">`)
	}))
	defer site.Close()
	hp := strings.TrimPrefix(site.URL, "http://")
	var sides []*side
	defer func() {
		for _, sd := range sides {
			if sd.h != nil {
				sd.h.Close(context.Background())
			}
		}
	}()
	for _, c := range []struct{ name, grid, proxyIP, cdp string }{
		{"local", "", "127.0.0.1", ""}, {"grid, CDP through the hub", g.HubURL, g.HostIP, "hub"}, {"grid, CDP straight to the node", g.HubURL, g.HostIP, "node"},
	} {
		h, err := newHost(plugins, c.grid, c.proxyIP, hp, c.cdp)
		if err != nil {
			return err
		}
		sides = append(sides, &side{name: c.name, h: h})
	}
	if err := interleaved(sides, site.URL, n, opens); err != nil {
		return err
	}
	// What one grid session costs: the hub side alone, the other hosts
	// (and the local Chromium, which the host's share would count) gone.
	for _, sd := range []*side{sides[0], sides[2]} {
		sd.h.Close(context.Background())
		sd.h = nil
	}
	w := &usageWatch{g: g}
	if err := pairs(sides[1].h, site.URL, n, w); err != nil {
		return fmt.Errorf("%s: %w", sides[1].name, err)
	}
	report(sides, up, w.cost(n), n, opens)
	fmt.Printf("\n%s.\n", hop)
	return nil
}

// newHost is a host with the browser plugin, local (grid "") or on grid,
// its CDP through the hub or to the node (cdp).
func newHost(plugins, grid, proxyIP, allowed, cdp string) (*host.Host, error) {
	dir, err := os.MkdirTemp("", "gridbench-host-")
	if err != nil {
		return nil, err
	}
	gridKeys := ""
	if grid != "" {
		gridKeys = fmt.Sprintf("grid = %q\ngrid_queue_timeout = \"120s\"\ngrid_cdp = %q", grid, cdp)
	}
	cfgText := fmt.Sprintf(`[host]
plugins_dir = %q
cache_dir = %q
call_timeout = "300s"
default_personality = "agent"

[browser]
%s
headed = "false"
workspace_dir = "ws"
action_timeout = "60s"
navigation_timeout = "120s"

[network]
proxy_listen = %q

[plugins.browser]

[personalities.agent]
plugins = ["browser"]
tools = ["*"]
grants = ["browser.read", "browser.act"]
network = { allowed_hosts = [%q] }
`, plugins, filepath.Join(dir, "cache"), gridKeys, proxyIP, allowed)
	cfg, err := host.ParseConfig(cfgText, "bench.toml", dir)
	if err != nil {
		return nil, err
	}
	return host.New(context.Background(), cfg, host.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

// call times one tool call on h; text is the result's text and snapshot.
func call(h *host.Host, session, tool string, args any) (d time.Duration, text string, err error) {
	raw, _ := json.Marshal(args)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	t0 := time.Now()
	res, err := h.Call(ctx, host.Request{Session: session, Tool: tool, Args: raw})
	d = time.Since(t0)
	if res != nil {
		text = res.Text + "\n" + res.Snapshot
	}
	return d, text, err
}

var (
	buttonRef = regexp.MustCompile(`button "Button"[^\n]*\[ref=([^\]\s]+)\]`)
	fieldRef  = regexp.MustCompile(`textbox "Field"[^\n]*\[ref=([^\]\s]+)\]`)
)

// interleaved warms every side (a first session, not counted), then opens
// sessions, then runs n rounds of navigate, snapshot, click and type on
// one open session per side: each measurement runs on every side in turn,
// the order rotating with the round.
func interleaved(sides []*side, url string, n, opens int) error {
	each := func(round int, f func(sd *side) error) error {
		for i := range sides {
			sd := sides[(i+round)%len(sides)]
			spans.Mark("side " + sd.name)
			if err := f(sd); err != nil {
				return fmt.Errorf("%s: %w", sd.name, err)
			}
		}
		return nil
	}
	nav := map[string]any{"url": url}
	if err := each(0, func(sd *side) error {
		proto.beforeStart() // the side's driver starts now (the grid sides share one)
		_, _, err := call(sd.h, "warm", "browser_navigate", nav)
		call(sd.h, "warm", "browser_close", map[string]any{})
		return err
	}); err != nil {
		return err
	}
	for i := range opens {
		s := fmt.Sprintf("o%d", i)
		if err := each(i, func(sd *side) error {
			d, _, err := call(sd.h, s, "browser_navigate", nav)
			sd.f.open = append(sd.f.open, d)
			call(sd.h, s, "browser_close", map[string]any{})
			return err
		}); err != nil {
			return err
		}
	}
	for r := range n + 1 { // round 0 opens the sessions: not counted
		var err error
		step := func(tool string, args func(text string) (map[string]any, error), into func(f *figures) *[]time.Duration) {
			if err != nil {
				return
			}
			err = each(r, func(sd *side) error {
				a, aerr := args(sd.lastText)
				if aerr != nil {
					return aerr
				}
				d, text, cerr := call(sd.h, "calls", tool, a)
				proto.record(r, sd.name, tool, d)
				if cerr != nil {
					return fmt.Errorf("%s: %w", tool, cerr)
				}
				if tool == "browser_navigate" {
					sd.lastText = text
				}
				if r > 0 {
					*into(&sd.f) = append(*into(&sd.f), d)
				}
				return nil
			})
		}
		ref := func(re *regexp.Regexp, extra map[string]any) func(string) (map[string]any, error) {
			return func(text string) (map[string]any, error) {
				m := re.FindStringSubmatch(text)
				if m == nil {
					return nil, fmt.Errorf("no ref for %s in the navigate's snapshot: %.300s", re, text)
				}
				a := map[string]any{"ref": m[1]}
				for k, v := range extra {
					a[k] = v
				}
				return a, nil
			}
		}
		step("browser_navigate", func(string) (map[string]any, error) { return nav, nil }, func(f *figures) *[]time.Duration { return &f.navigate })
		step("browser_snapshot", func(string) (map[string]any, error) { return map[string]any{}, nil }, func(f *figures) *[]time.Duration { return &f.snapshot })
		step("browser_click", ref(buttonRef, nil), func(f *figures) *[]time.Duration { return &f.click })
		step("browser_type", ref(fieldRef, map[string]any{"text": "hello"}), func(f *figures) *[]time.Duration { return &f.typ })
		if err != nil {
			return err
		}
	}
	return nil
}

// pairs runs n navigate+snapshot pairs on h's open "calls" session while w
// samples the processes before and after them.
func pairs(h *host.Host, url string, n int, w *usageWatch) error {
	spans.Mark("side pairs")
	w.before = w.sample()
	for range n {
		if _, _, err := call(h, "calls", "browser_navigate", map[string]any{"url": url}); err != nil {
			return err
		}
		if _, _, err := call(h, "calls", "browser_snapshot", map[string]any{}); err != nil {
			return err
		}
	}
	w.after = w.sample()
	call(h, "calls", "browser_close", map[string]any{})
	return nil
}

// usage is what the processes of one side used: each node's browser
// (Chromium and chromedriver) and Selenium server, the host (this process
// and its Playwright driver). Memory in KB (PSS), time in clock ticks.
// Ticks are kept by PID and summed over the processes of the later
// sample (a new one: all of its ticks), so a process that exits between
// the samples (a closed host's browser) does not count against the others.
type usage struct {
	nodes    map[string]*nodeUsage // by network namespace
	busy     string                // the node that runs the most browser processes
	hostPSS  int64
	hubTicks int64
	host     map[int]int64
}

type nodeUsage struct {
	browserPSS, serverPSS int64
	browserProcs          int
	browser, server       map[int]int64 // ticks by PID
}

// usageWatch samples usage before and after the timed calls.
type usageWatch struct {
	g             *seleniumgrid.Grid
	before, after usage
}

// sample reads every node and the host's own tree.
func (w *usageWatch) sample() usage {
	u := usage{nodes: map[string]*nodeUsage{}, host: map[int]int64{}}
	onNode := map[int]bool{}
	for _, n := range w.g.Nodes {
		nu := &nodeUsage{browser: map[int]int64{}, server: map[int]int64{}}
		var browser, server []int
		for _, p := range seleniumgrid.NamespacePIDs(n.NS) {
			onNode[p] = true
			st, ok := procfs.ReadStat(p)
			if !ok {
				continue
			}
			if st.Comm == "java" {
				server = append(server, p)
				nu.server[p] = st.UTime + st.STime
			} else {
				browser = append(browser, p)
				nu.browser[p] = st.UTime + st.STime
			}
		}
		nu.browserPSS, nu.serverPSS, nu.browserProcs = procfs.Memory(browser, "Pss"), procfs.Memory(server, "Pss"), len(browser)
		u.nodes[n.NS] = nu
		if b := u.nodes[u.busy]; b == nil || nu.browserProcs > b.browserProcs {
			u.busy = n.NS
		}
	}
	// The hub and the nodes are this process's children too: the host is
	// the rest of its tree (this process and its Playwright driver).
	var hostPIDs []int
	for _, st := range procfs.Tree(os.Getpid()) {
		switch {
		case onNode[st.PID]:
		case st.Comm == "java":
			u.hubTicks += st.UTime + st.STime
		default:
			hostPIDs = append(hostPIDs, st.PID)
			u.host[st.PID] = st.UTime + st.STime
		}
	}
	u.hostPSS = procfs.Memory(hostPIDs, "Pss")
	return u
}

// grown is the ticks the processes of after used since before.
func grown(after, before map[int]int64) (ticks int64) {
	for pid, t := range after {
		ticks += t - before[pid]
	}
	return ticks
}

// cost says what one grid session cost, from the samples around n
// navigate+snapshot pairs, on the node that ran it.
func (w *usageWatch) cost(n int) string {
	a, b := w.after.nodes[w.after.busy], w.before.nodes[w.after.busy]
	if a == nil || b == nil || a.browserProcs == 0 || n == 0 {
		return ""
	}
	perCall := func(ticks int64) float64 { return float64(ticks) * 10 / float64(n) } // ms per navigate+snapshot
	return fmt.Sprintf("one session open on a node: its browser is %d processes (Chromium and chromedriver), %.0f MB PSS; the node's Selenium server %.0f MB PSS (once per node). "+
		"Processor time per navigate+snapshot pair (%d pairs): the browser %.0f ms, the node's server %.0f ms and the hub %.0f ms (relaying CDP), the host (wasmwright and its Playwright driver) %.0f ms; the host's PSS with the session open: %.0f MB",
		a.browserProcs, float64(a.browserPSS)/1024, float64(a.serverPSS)/1024,
		n, perCall(grown(a.browser, b.browser)), perCall(grown(a.server, b.server)), perCall(w.after.hubTicks-w.before.hubTicks), perCall(grown(w.after.host, w.before.host)), float64(w.after.hostPSS)/1024)
}

func report(sides []*side, up time.Duration, cost string, n, opens int) {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.0f", float64(d.Microseconds())/1000) }
	fmt.Printf("A hub and two nodes (one slot each), each node in its own network namespace; the host's egress proxy on the hub's address; the same host API (Host.Call) and loopback page on every side, measured interleaved (each round runs every side once, the order rotating). Medians: %d session opens and %d navigates, snapshots, clicks and types (5 characters) per side. Load average at the end: %s. The grid came up in %s.\n\n", opens, n, loadavg(), up.Round(time.Second))
	fmt.Println("| | local (ms) | grid, CDP through the hub (ms) | grid, CDP to the node (ms) | hub / local | node / local |")
	fmt.Println("|---|---:|---:|---:|---:|---:|")
	row := func(name string, get func(f figures) []time.Duration) {
		l, h, nd := measure.Med(get(sides[0].f)), measure.Med(get(sides[1].f)), measure.Med(get(sides[2].f))
		fmt.Printf("| %s | %s | %s | %s | %.2fx | %.2fx |\n", name, ms(l), ms(h), ms(nd), float64(h)/float64(max(l, 1)), float64(nd)/float64(max(l, 1)))
	}
	row("open a session (first navigate)", func(f figures) []time.Duration { return f.open })
	row("navigate", func(f figures) []time.Duration { return f.navigate })
	row("snapshot", func(f figures) []time.Duration { return f.snapshot })
	row("click", func(f figures) []time.Duration { return f.click })
	row("type", func(f figures) []time.Duration { return f.typ })
	if proto != nil {
		c := proto.counts()
		fmt.Println()
		fmt.Println("CDP round trips per call, medians (-protocol): serial (commands sent together count once) / messages sent")
		fmt.Println()
		fmt.Println("| | local | grid, CDP through the hub | grid, CDP to the node |")
		fmt.Println("|---|---:|---:|---:|")
		for _, tool := range []string{"browser_navigate", "browser_snapshot", "browser_click", "browser_type"} {
			fmt.Printf("| %s |", tool)
			for _, sd := range sides {
				s, m := medianCount(c[[2]string{sd.name, tool}])
				fmt.Printf(" %d / %d |", s, m)
			}
			fmt.Println()
		}
	}
	if cost != "" {
		fmt.Printf("\nCost on a node (CDP through the hub): %s.\n", cost)
	}
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
