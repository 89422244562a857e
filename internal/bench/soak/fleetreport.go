package main

import (
	"context"
	"flag"
	"fmt"
	"maps"
	"math"
	"os"
	"runtime"
	"slices"
	"sort"
	"time"
)

// mainFleet runs the fleet soak, prints its section and returns the exit
// status: 1 when a call failed unexpectedly, a host's measure grew beyond
// its noise, or a node took no session.
func mainFleet(ctx context.Context, o options) int {
	if o.pause == 0 {
		o.pause = 2 * time.Second
	}
	if !flagSet("sessions") {
		o.sessions = 12
	}
	rep, err := soakFleet(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		return 1
	}
	rep.print(o)
	if !rep.ok(o) {
		return 1
	}
	return 0
}

// fleetMetrics are the host measures judged for growth.
var fleetMetrics = []struct {
	name, unit string
	get        func(s sample) float64
}{
	{"serve RSS outside plugin memories", "MB", outsidePlugins},
	{"plugin memories, reserved", "MB", func(s sample) float64 { return s.mem.pluginReservedMB }},
	{"Go heap goal", "MB", func(s sample) float64 { return s.heapGoalMB }},
	{"host tree RSS (serve and its Playwright driver)", "MB", func(s sample) float64 { return s.treeMB }},
	{"open fds", "", func(s sample) float64 { return s.fds }},
	{"goroutines", "", func(s sample) float64 { return s.goroutines }},
}

// steady leaves out the warm-up, as the one-host soak does (warmUp).
func (rep *fleetReport) steady(ss []sample) []sample {
	return after(ss, warmUp(rep.worked, rep.t.warm))
}

func (rep *fleetReport) growing() []string {
	var out []string
	rep.eachSteady(func(i int, _ *fleetHost, ss []sample, window time.Duration) {
		for _, m := range fleetMetrics {
			if fitLine(ss, m.get).grows(window) {
				out = append(out, fmt.Sprintf("host%d %s", i+1, m.name))
			}
		}
	})
	return out
}

// eachSteady calls f with each host's samples after the warm-up and the
// time they span, for the hosts with enough of them to fit a line.
func (rep *fleetReport) eachSteady(f func(i int, h *fleetHost, ss []sample, window time.Duration)) {
	for i, h := range rep.hosts {
		ss := rep.steady(h.samples)
		if window, ok := fitWindow(ss); ok {
			f(i, h, ss, window)
		}
	}
}

func (rep *fleetReport) ok(o options) bool {
	used := 0
	for _, n := range rep.nodes {
		if len(n.sessions) > 0 {
			used++
		}
	}
	return rep.t.unexpectedTotal() == 0 && len(rep.growing()) == 0 && used == o.nodes
}

func (rep *fleetReport) print(o options) {
	t := rep.t
	fmt.Printf("## Soak, fleet: %d hosts on a Selenium Grid of %d single-slot nodes\n\n", o.hosts, o.nodes)
	fmt.Printf("`go -C internal/bench run ./soak -fleet -duration %s -sessions %d -hosts %d -nodes %d -pause %s -grid-cdp %s` (`make soak-fleet`), %s, %d CPUs, %s. ",
		o.duration, o.sessions, o.hosts, o.nodes, o.pause, o.gridCDP, time.Now().UTC().Format("2006-01-02"), runtime.NumCPU(), runtime.Version())
	fmt.Printf("A hub on this machine and %d nodes (Selenium %s, Debian's Chromium and chromedriver, one slot each), each node in a network namespace of its own whose only route is to the hub's address, where the hosts' egress proxies listen; %d `wasmwright serve --http` hosts with `browser.grid` on the hub; %d agents over MCP (agent i on host i mod %d), each waiting %s before every call as a model would, for %s. ",
		o.nodes, "4.48.0", o.hosts, o.sessions, o.hosts, o.pause, rep.worked.Round(time.Second))
	fmt.Printf("Each MCP session does one or two laps (a page of %d and its snapshot; a form typed into and sent by refs and checked; every third lap a bot wall and a refused host, which must fail so) and closes, so its browser's slot goes back to the grid; with more agents than slots the others wait in the grid's queue (`grid_queue_timeout` 15m). ", rep.pages)
	fmt.Printf("Load average (1 min) during the run: %s (the machine is shared).\n\n", loadRange(rep.hosts[0].samples))
	if o.stretch {
		fmt.Print("The hosts run with `[host] stretch_with_load = true`, as the one-host soak's serve: hub, nodes and hosts share this machine's cores, and their deadlines stretch with the load per CPU, at most 4x (`-stretch=false`: the bounds as written).\n\n")
	}
	fmt.Printf("Work: %d calls in %d laps, %d MCP sessions opened and %d closed, %d forms sent and checked.\n\n", t.callsTotal(), t.laps, t.opened, t.closed, t.checkedForms)
	r := &report{t: t}
	r.printCalls()
	r.printFailures()
	rep.printHosts()
	rep.printNodes()
}

// printHosts gives each host's measures: mean, range, the slope of the
// line fitted after the warm-up, and whether it grows beyond noise.
func (rep *fleetReport) printHosts() {
	fmt.Printf("Each host sampled every %s; the slope is a least-squares line over the samples after the first third of the run (95%% band); a measure grows when its slope is above zero with 95%% confidence and it rises more than twice its scatter over the window.\n\n", o5(rep.hosts[0].samples))
	fmt.Println("| host | measure | before | mean | min-max | slope per minute (95%) | grows |")
	fmt.Println("|---|---|---:|---:|---:|---:|---|")
	rep.eachSteady(func(i int, h *fleetHost, ss []sample, window time.Duration) {
		for _, m := range fleetMetrics {
			f := fitLine(ss, m.get)
			lo, hi := span(ss, m.get)
			grows := "no"
			if f.grows(window) {
				grows = "**yes**"
			}
			fmt.Printf("| host%d | %s | %s | %s | %s-%s | %+.2f ± %.2f %s | %s |\n", i+1, m.name, num(m.get(h.before), m.unit), num(f.mean, m.unit), num(lo, ""), num(hi, m.unit), f.slope, f.ci, m.unit, grows)
		}
	})
	fmt.Println()
}

// printNodes says how the sessions spread over the nodes and what a
// session's browser and a node's server took.
func (rep *fleetReport) printNodes() {
	fmt.Println("| node | browser sessions it ran (seen in the hub's /status) | its browser's PSS while a session ran, median (max) | its Selenium server's PSS, median |")
	fmt.Println("|---|---:|---:|---:|")
	for _, u := range slices.Sorted(maps.Keys(rep.nodes)) {
		n := rep.nodes[u]
		fmt.Printf("| %s | %d | %.0f MB (%.0f) | %.0f MB |\n", u, len(n.sessions), medianF(n.browserPSS), maxF(n.browserPSS), medianF(n.serverPSS))
	}
	fmt.Printf("\nThe hub's Selenium server: %.0f MB PSS (median).\n", medianF(rep.hubPSS))
}

// flagSet reports whether the command line set flag name.
func flagSet(name string) bool {
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func o5(ss []sample) time.Duration {
	if len(ss) < 2 {
		return 0
	}
	return (ss[1].at - ss[0].at).Round(time.Second)
}

func medianF(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[len(s)/2]
}

func maxF(v []float64) float64 {
	m := math.NaN()
	for _, x := range v {
		if math.IsNaN(m) || x > m {
			m = x
		}
	}
	return m
}
