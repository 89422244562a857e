// Command grid measures browsers on a Selenium Grid against a local
// browser, through the same host API: a real hub and two nodes, each in
// a network namespace of its own (internal/seleniumgrid), the host's
// egress proxy on the hub's address. For each side: the time to open a
// session (the first navigate of a new session: the browser start, on
// the grid the queue and the node's chromedriver too), and per call,
// navigate and snapshot on a loopback page, medians. Then what one grid
// session costs: on its node, the memory (PSS) of the browser's processes
// (Chromium and its chromedriver) and of the node's Selenium server, and
// the processor time each used during the timed calls; on the host, the
// processor time of the host and its Playwright driver for those calls.
//
//	go -C internal/bench run ./grid [-n 15] [-opens 3]
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
	"sort"
	"strings"
	"time"

	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/internal/procfs"
	"github.com/wasmwright/wasmwright/internal/seleniumgrid"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

func main() {
	n := flag.Int("n", 15, "calls of each kind per side")
	opens := flag.Int("opens", 3, "sessions opened per side")
	flag.String("corpus", "", "unused (scripts/bench.sh passes it to every bench)")
	flag.Parse()
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

type figures struct {
	open, navigate, snapshot []time.Duration
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
	local, err := newHost(plugins, "", "127.0.0.1", hp)
	if err != nil {
		return err
	}
	lf, err := measure(local, site.URL, n, opens, nil)
	local.Close(context.Background())
	if err != nil {
		return fmt.Errorf("local: %w", err)
	}
	grid, err := newHost(plugins, g.HubURL, g.HostIP, hp)
	if err != nil {
		return err
	}
	w := &usageWatch{g: g}
	gf, err := measure(grid, site.URL, n, opens, w)
	grid.Close(context.Background())
	if err != nil {
		return fmt.Errorf("grid: %w", err)
	}
	report(lf, gf, up, w.cost(n), n, opens)
	return nil
}

// newHost is a host with the browser plugin, local (grid "") or on grid.
func newHost(plugins, grid, proxyIP, allowed string) (*host.Host, error) {
	dir, err := os.MkdirTemp("", "gridbench-host-")
	if err != nil {
		return nil, err
	}
	gridKeys := ""
	if grid != "" {
		gridKeys = fmt.Sprintf("grid = %q\ngrid_queue_timeout = \"120s\"", grid)
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

// measure opens sessions one after the other (each timed by its first
// navigate, then closed), then times n navigates and n snapshots on one
// open session; w (if any) samples the processes before and after them.
func measure(h *host.Host, url string, n, opens int, w *usageWatch) (figures, error) {
	var f figures
	do := func(session, tool string, args any) (time.Duration, error) {
		raw, _ := json.Marshal(args)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		t0 := time.Now()
		_, err := h.Call(ctx, host.Request{Session: session, Tool: tool, Args: raw})
		return time.Since(t0), err
	}
	// A first session warms the driver and the plugin: not counted.
	if _, err := do("warm", "browser_navigate", map[string]any{"url": url}); err != nil {
		return f, err
	}
	do("warm", "browser_close", map[string]any{})
	for i := range opens {
		s := fmt.Sprintf("o%d", i)
		d, err := do(s, "browser_navigate", map[string]any{"url": url})
		if err != nil {
			return f, err
		}
		f.open = append(f.open, d)
		do(s, "browser_close", map[string]any{})
	}
	if _, err := do("calls", "browser_navigate", map[string]any{"url": url}); err != nil {
		return f, err
	}
	if w != nil {
		w.before = w.sample()
	}
	for range n {
		d, err := do("calls", "browser_navigate", map[string]any{"url": url})
		if err != nil {
			return f, err
		}
		f.navigate = append(f.navigate, d)
		if d, err = do("calls", "browser_snapshot", map[string]any{}); err != nil {
			return f, err
		}
		f.snapshot = append(f.snapshot, d)
	}
	if w != nil {
		w.after = w.sample()
	}
	do("calls", "browser_close", map[string]any{})
	return f, nil
}

// usage is what the processes of one side used: the busy node's browser
// (Chromium and chromedriver) and Selenium server, the host (this process
// and its Playwright driver). Memory in KB (PSS), time in clock ticks.
type usage struct {
	browserPSS, serverPSS, hostPSS       int64
	browserTicks, serverTicks, hostTicks int64
	hubTicks                             int64
	browserProcs                         int
}

// usageWatch samples usage before and after the timed calls.
type usageWatch struct {
	g             *seleniumgrid.Grid
	before, after usage
}

// sample reads the node that runs a browser and the host's own tree.
func (w *usageWatch) sample() usage {
	var u usage
	onNode := map[int]bool{}
	for _, n := range w.g.Nodes {
		var nu usage
		var browser, server []int
		for _, p := range seleniumgrid.NamespacePIDs(n.NS) {
			onNode[p] = true
			st, ok := procfs.ReadStat(p)
			if !ok {
				continue
			}
			if st.Comm == "java" {
				server = append(server, p)
				nu.serverTicks += st.UTime + st.STime
			} else {
				browser = append(browser, p)
				nu.browserTicks += st.UTime + st.STime
			}
		}
		nu.browserPSS, nu.serverPSS, nu.browserProcs = procfs.Memory(browser, "Pss"), procfs.Memory(server, "Pss"), len(browser)
		if nu.browserProcs > u.browserProcs {
			u = nu
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
			u.hostTicks += st.UTime + st.STime
		}
	}
	u.hostPSS = procfs.Memory(hostPIDs, "Pss")
	return u
}

// cost says what one grid session cost, from the samples around n
// navigate+snapshot pairs.
func (w *usageWatch) cost(n int) string {
	a, b := w.after, w.before
	if a.browserProcs == 0 || n == 0 {
		return ""
	}
	perCall := func(ticks int64) float64 { return float64(ticks) * 10 / float64(n) } // ms per navigate+snapshot
	return fmt.Sprintf("one session open on a node: its browser is %d processes (Chromium and chromedriver), %.0f MB PSS; the node's Selenium server %.0f MB PSS (once per node). "+
		"Processor time per navigate+snapshot pair (%d pairs): the browser %.0f ms, the node's server %.0f ms and the hub %.0f ms (relaying CDP), the host (wasmwright and its Playwright driver) %.0f ms; the host's PSS with the session open: %.0f MB",
		a.browserProcs, float64(a.browserPSS)/1024, float64(a.serverPSS)/1024,
		n, perCall(a.browserTicks-b.browserTicks), perCall(a.serverTicks-b.serverTicks), perCall(a.hubTicks-b.hubTicks), perCall(a.hostTicks-b.hostTicks), float64(a.hostPSS)/1024)
}

func median(ds []time.Duration) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func report(l, g figures, up time.Duration, cost string, n, opens int) {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.0f", float64(d.Microseconds())/1000) }
	row := func(name string, a, b []time.Duration) {
		ratio := float64(median(b)) / float64(max(median(a), 1))
		fmt.Printf("| %s | %s | %s | %.1fx |\n", name, ms(median(a)), ms(median(b)), ratio)
	}
	fmt.Printf("A hub and two nodes (one slot each), each node in its own network namespace; the host's egress proxy on the hub's address; the same host API (Host.Call) and loopback page on both sides. Medians: %d session opens, %d navigates and %d snapshots per side. The grid came up in %s.\n\n", opens, n, n, up.Round(time.Second))
	fmt.Println("| | local browser (ms) | grid browser (ms) | grid / local |")
	fmt.Println("|---|---:|---:|---:|")
	row("open a session (first navigate)", l.open, g.open)
	row("navigate", l.navigate, g.navigate)
	row("snapshot", l.snapshot, g.snapshot)
	if cost != "" {
		fmt.Printf("\nCost on a node: %s.\n", cost)
	}
}
