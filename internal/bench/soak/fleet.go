package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/wasmwright/wasmwright/hostfuncs/browser"
	"github.com/wasmwright/wasmwright/internal/bench/mcpclient"
	"github.com/wasmwright/wasmwright/internal/bench/sut"
	"github.com/wasmwright/wasmwright/internal/procfs"
	"github.com/wasmwright/wasmwright/internal/seleniumgrid"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

// The fleet soak (-fleet): several hosts (`serve --http`) on one Selenium
// Grid of single-slot nodes, each node in a network namespace of its own
// whose only route is to the hub's address, where the hosts' egress
// proxies listen (internal/seleniumgrid). The agents are spread over the
// hosts and wait -pause between calls, as a model would; an agent's MCP
// session does one or two laps and closes, so its browser's slot goes
// back to the grid, and with more agents than slots the others wait in
// the grid's queue (grid_queue_timeout is long: a wait is not a failure).
// Every few seconds each host's memory, fds and goroutines are sampled,
// the hub's /status is read for which node runs which session, and each
// node's browser and Selenium server memory (PSS) is read.

// fleetHost is one host of the fleet: its server, its pprof address and
// its samples.
type fleetHost struct {
	srv     *sut.Server
	pprof   string
	log     *os.File
	samples []sample
	before  sample
}

// fleetEnv is what a fleet soak runs against.
type fleetEnv struct {
	dir   string
	grid  *seleniumgrid.Grid
	site  *site
	hosts []*fleetHost
}

// nodeSeen is what the samples saw of one node.
type nodeSeen struct {
	sessions   map[string]bool // WebDriver sessions seen in its slot
	browserPSS []float64       // MB: the browser's processes (Chromium, chromedriver) while a session ran
	serverPSS  []float64       // MB: its Selenium server
}

// fleetReport is what a fleet soak saw.
type fleetReport struct {
	t      *tally
	worked time.Duration
	hosts  []*fleetHost
	grid   *seleniumgrid.Grid
	nodes  map[string]*nodeSeen // by node URI
	hubPSS []float64
	loads  []sample // the first host's samples: the load average of the run
	pages  int
}

func setUpFleet(o options) (*fleetEnv, error) {
	root := wasmbuild.Root()
	if miss := seleniumgrid.Missing(root); miss != "" {
		return nil, fmt.Errorf("not run: %s", miss)
	}
	dir, err := os.MkdirTemp("", "ww-soak-fleet-")
	if err != nil {
		return nil, err
	}
	e := &fleetEnv{dir: dir}
	plugins := filepath.Join(dir, "plugins")
	if err := copyPlugins(o.plugins, plugins); err != nil {
		e.tearDown()
		return nil, err
	}
	if e.site, err = newSite(o.pagesDir); err != nil {
		e.tearDown()
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(dir, "grid"), 0o755); err != nil {
		e.tearDown()
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if e.grid, err = seleniumgrid.Start(ctx, seleniumgrid.Options{Root: root, Nodes: o.nodes, MaxSessions: 1, LogDir: filepath.Join(dir, "grid")}); err != nil {
		e.tearDown()
		return nil, fmt.Errorf("the grid: %w", err)
	}
	for i := range o.hosts {
		h, err := e.startHost(o, i, plugins)
		if err != nil {
			e.tearDown()
			return nil, fmt.Errorf("host %d: %w", i+1, err)
		}
		e.hosts = append(e.hosts, h)
	}
	return e, nil
}

// fleetBench is a fleet host's setup: the browser on the grid, calls
// allowed to wait in the grid's queue (call_timeout above
// grid_queue_timeout), and with stretch its deadlines stretched by the
// load, as the one-host soak's: the nodes' browsers, the hub and the hosts
// share this machine's 2 cores, so the fleet's own load is that of a
// machine no deployment would run on, and a 5 s action bound measures
// the scheduler there, not the host.
func fleetBench(plugins, hub, gridCDP string, stretch bool) mcpclient.Bench {
	b := mcpclient.Bench{PluginsDir: plugins,
		HostKeys:    "call_timeout = \"16m\"\n",
		BrowserKeys: fmt.Sprintf("grid = %q\ngrid_queue_timeout = \"15m\"\ngrid_cdp = %q\n", hub, gridCDP)}
	if stretch {
		b.HostKeys += "stretch_with_load = true\n"
	}
	return b
}

// startHost starts one host on the grid: the browser on a node, its
// egress proxies on the hub's address, calls allowed to wait in the
// grid's queue (call_timeout above grid_queue_timeout).
func (e *fleetEnv) startHost(o options, i int, plugins string) (*fleetHost, error) {
	hd := filepath.Join(e.dir, fmt.Sprintf("host%d", i+1))
	if err := os.MkdirAll(filepath.Join(hd, "run"), 0o755); err != nil {
		return nil, err
	}
	b := fleetBench(plugins, e.grid.HubURL, o.gridCDP, o.stretch)
	conf, err := sut.WriteConfig(hd, b, o.sessions, fmt.Sprintf("[network]\nproxy_listen = %q\n", e.grid.HostIP))
	if err != nil {
		return nil, err
	}
	h := &fleetHost{}
	if h.pprof, err = sut.FreeAddr(); err != nil {
		return nil, err
	}
	if h.log, err = os.Create(filepath.Join(hd, "serve.log")); err != nil {
		return nil, err
	}
	h.srv, err = sut.ServeWasmwrightLogging(fmt.Sprintf("host%d", i+1), o.bin, filepath.Join(hd, "run"), conf, h.log, "--pprof", h.pprof, "--log-level", "info")
	return h, err
}

func (e *fleetEnv) tearDown() {
	for _, h := range e.hosts {
		if h.srv != nil {
			h.srv.Stop()
		}
		if h.log != nil {
			h.log.Close()
		}
	}
	if e.grid != nil {
		e.grid.Close()
	}
	if e.site != nil {
		e.site.close()
	}
	os.RemoveAll(e.dir)
}

// soakFleet runs the agents over the fleet's hosts (agent i on host i mod
// hosts) for o.duration, sampling meanwhile.
func soakFleet(ctx context.Context, o options) (*fleetReport, error) {
	e, err := setUpFleet(o)
	if err != nil {
		return nil, err
	}
	defer e.tearDown()
	t := newTally()
	rep := &fleetReport{t: t, hosts: e.hosts, grid: e.grid, nodes: map[string]*nodeSeen{}, pages: len(e.site.pages)}
	for _, h := range e.hosts {
		h.before = take(h.srv.Pid(), h.pprof, 0)
	}
	start := time.Now()
	t.start = start
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4 * o.sessions}}
	runs := make([]*run, len(e.hosts))
	for i, h := range e.hosts {
		runs[i] = &run{ctx: ctx, hc: hc, url: h.srv.URL, token: h.srv.Token, site: e.site, t: t, end: start.Add(o.duration),
			agents: o.sessions, pause: o.pause, callWait: 20 * time.Minute, shortSessions: true}
	}
	done := make(chan struct{})
	var side sync.WaitGroup
	side.Go(func() { rep.sample(e, start, o.every, done) })
	var agents sync.WaitGroup
	for i := range o.sessions {
		agents.Go(func() { runs[i%len(runs)].agent(i) })
	}
	agents.Wait()
	rep.worked = time.Since(start)
	close(done)
	side.Wait()
	return rep, nil
}

// sample reads every host, the hub's status and the nodes until done.
func (rep *fleetReport) sample(e *fleetEnv, start time.Time, every time.Duration, done <-chan struct{}) {
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		at := time.Since(start)
		for i, h := range e.hosts {
			s := take(h.srv.Pid(), h.pprof, at)
			h.samples = append(h.samples, s)
			select {
			case <-h.srv.Exited():
				rep.t.fail(fmt.Sprintf("serve host%d: exited during the run", i+1), "the server process exited")
			default:
			}
		}
		busy := rep.readGrid(e)
		fmt.Fprintf(os.Stderr, "fleet %s: load %.1f, calls %d, unexpected %d, busy slots %d, host RSS %s\n", at.Round(time.Second),
			load1(), rep.t.callsTotal(), rep.t.unexpectedTotal(), busy, hostRSS(e.hosts))
		select {
		case <-done:
			return
		case <-tick.C:
		}
	}
}

func hostRSS(hs []*fleetHost) string {
	out := ""
	for i, h := range hs {
		if i > 0 {
			out += "/"
		}
		if n := len(h.samples); n > 0 {
			out += fmt.Sprintf("%.0f", h.samples[n-1].rssMB)
		}
	}
	return out + " MB"
}

// readGrid records which node runs which session (the hub's /status) and
// the nodes' and hub's memory; it returns the busy slots.
func (rep *fleetReport) readGrid(e *fleetEnv) int {
	busy := 0
	if st, err := browser.ReadGridStatus(context.Background(), e.grid.HubURL); err == nil {
		for _, n := range st.Value.Nodes {
			ns := rep.node(n.URI)
			for _, sl := range n.Slots {
				if sl.Session != nil {
					ns.sessions[sl.Session.SessionID] = true
					busy++
				}
			}
		}
	}
	onNode := map[int]bool{}
	for _, n := range e.grid.Nodes {
		var br, srv []int
		for _, p := range seleniumgrid.NamespacePIDs(n.NS) {
			onNode[p] = true
			if procfs.Name(p) == "java" {
				srv = append(srv, p)
			} else {
				br = append(br, p)
			}
		}
		ns := rep.node(n.URI)
		if len(srv) > 0 {
			ns.serverPSS = append(ns.serverPSS, float64(procfs.Memory(srv, "Pss"))/1024)
		}
		if len(br) > 0 {
			ns.browserPSS = append(ns.browserPSS, float64(procfs.Memory(br, "Pss"))/1024)
		}
	}
	var hub []int
	for _, st := range procfs.Tree(os.Getpid()) {
		if st.Comm == "java" && !onNode[st.PID] {
			hub = append(hub, st.PID)
		}
	}
	if len(hub) > 0 {
		rep.hubPSS = append(rep.hubPSS, float64(procfs.Memory(hub, "Pss"))/1024)
	}
	return busy
}

func (rep *fleetReport) node(uri string) *nodeSeen {
	ns := rep.nodes[uri]
	if ns == nil {
		ns = &nodeSeen{sessions: map[string]bool{}}
		rep.nodes[uri] = ns
	}
	return ns
}
