// Command soak runs a real `wasmwright serve --http` for a long time under
// the work agents do, and watches it for leaks and failures: N concurrent
// MCP sessions over streamable HTTP, each looping over pages served on
// loopback by this program (real corpus pages, a form it fills in and
// sends by refs, a bot wall and a refused host whose failures are
// expected), sessions closing and new ones opening; meanwhile the
// detector is hot-swapped twice (`wasmwright plugins swap`, to another
// build and back), and takeovers are requested and handed back through the
// operator console's HTTP API. Every few seconds it samples the server's
// RSS, goroutines (its --pprof endpoint), OS threads, open fds, the
// Chromium processes under it and its process tree's RSS, and it reports
// the least-squares slope of each per minute with its noise band, and
// every failed call by tool and abi error code, expected ones apart.
//
//	go -C internal/bench run ./soak [-duration 10m] [-sessions 10] [-wasmwright build/wasmwright]
//
// It prints a markdown section and exits 1 when a call failed unexpectedly
// or a measure grew beyond its noise.
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"time"

	"github.com/wasmwright/wasmwright/internal/bench/benchflag"
)

// options are the soak's flags.
type options struct {
	duration, every time.Duration
	sessions        int
	bin, plugins    string
	pagesDir        string
	takeovers       int
	csv             string
	goroutinesAfter string
	heapAfter       string
	// stretch runs serve with [host] stretch_with_load (soak.go's agents
	// load the machine themselves: see the flag).
	stretch bool
	// The fleet soak (fleet.go): hosts on a grid of single-slot nodes.
	fleet        bool
	hosts, nodes int
	pause        time.Duration
	gridCDP      string
}

func main() {
	var o options
	pagesOf := benchflag.Pages() // the pages the agents visit (absent: the form only)
	flag.DurationVar(&o.duration, "duration", 10*time.Minute, "how long the agents work")
	flag.DurationVar(&o.every, "sample", 5*time.Second, "how often the server is sampled")
	flag.IntVar(&o.sessions, "sessions", 10, "concurrent agent sessions")
	flag.IntVar(&o.takeovers, "takeovers", 5, "takeovers requested and handed back, spread over the run")
	bin, plugins := benchflag.Wasmwright(), benchflag.Plugins() // (copied into the server's own plugins folder)
	flag.BoolVar(&o.stretch, "stretch", true, "run serve with [host] stretch_with_load: its action, navigation and call deadlines stretch with the load per CPU (1x-4x); the agents, calling back to back, load the machine themselves (10 make a load of about 19 on 2 cores)")
	flag.StringVar(&o.csv, "csv", "", "also write every sample to this CSV file")
	flag.StringVar(&o.heapAfter, "heap-after", "", "write the server's heap profile (pprof), once every session has closed, to this file")
	flag.StringVar(&o.goroutinesAfter, "goroutines-after", "", "write the server's goroutine profile, once every session has closed, to this file")
	flag.BoolVar(&o.fleet, "fleet", false, "run the fleet soak: -hosts hosts on a Selenium Grid of -nodes single-slot nodes in network namespaces (needs root and make grid)")
	flag.IntVar(&o.hosts, "hosts", 3, "fleet: hosts (serve --http) on the grid")
	flag.IntVar(&o.nodes, "nodes", 4, "fleet: single-slot grid nodes")
	flag.DurationVar(&o.pause, "pause", 0, "each agent's wait before a call, as a model's (the fleet soak uses 2s unless set)")
	flag.StringVar(&o.gridCDP, "grid-cdp", "hub", "fleet: browser.grid_cdp of the hosts (hub or node)")
	flag.Parse()
	o.pagesDir, o.bin, o.plugins = pagesOf(), *bin, *plugins
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if o.fleet {
		os.Exit(mainFleet(ctx, o))
	}
	rep, err := soak(ctx, o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "soak:", err)
		os.Exit(1)
	}
	rep.print(o)
	if !rep.ok() {
		os.Exit(1)
	}
}

// soak sets up the server and the site, runs the agents, the operator,
// the swaps and the sampler side by side, and gathers what they saw.
func soak(ctx context.Context, o options) (*report, error) {
	env, err := setUp(o)
	if err != nil {
		return nil, err
	}
	defer env.tearDown()
	r := &run{ctx: ctx, hc: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4 * o.sessions}},
		url: env.srv.URL, token: env.srv.Token, site: env.site, t: newTally(), pause: o.pause}
	rep := &report{t: r.t, pagesDir: o.pagesDir, pages: len(env.site.pages)}
	rep.before = take(env.srv.Pid(), env.pprof, 0)
	start := time.Now()
	r.end, r.agents, r.t.start = start.Add(o.duration), o.sessions, start
	opDone := make(chan struct{})
	var side sync.WaitGroup
	side.Go(func() { rep.samples = sampler(r, env, start, o.every, opDone) })
	side.Go(func() { operatorLoop(r, env, opDone) })
	side.Go(func() { rep.swaps = swaps(r, env, start, o.duration) })
	side.Go(func() { scheduleTakeovers(r, start, o.duration, o.takeovers) })
	var agents sync.WaitGroup
	for i := range o.sessions {
		agents.Go(func() { r.agent(i) })
	}
	agents.Wait()
	rep.worked = time.Since(start)
	close(opDone)
	side.Wait()
	// What the server holds once every session has closed: given a few
	// seconds to close browser contexts, and read at the same cadence.
	rep.after = settle(env, start, o.every)
	rep.logged = env.logLines()
	if o.heapAfter != "" {
		if err := saveProfile(env.pprof, "heap", o.heapAfter); err != nil {
			fmt.Fprintln(os.Stderr, "soak: saving the heap profile:", err)
		}
	}
	if o.goroutinesAfter != "" {
		if err := saveGoroutines(env.pprof, o.goroutinesAfter); err != nil {
			fmt.Fprintln(os.Stderr, "soak: saving the goroutine profile:", err)
		}
	}
	if o.csv != "" {
		if err := writeCSV(o.csv, rep.samples); err != nil {
			fmt.Fprintln(os.Stderr, "soak: writing", o.csv+":", err)
		}
	}
	return rep, nil
}

// sampler samples the server until done is closed.
func sampler(r *run, env *env, start time.Time, every time.Duration, done <-chan struct{}) []sample {
	var out []sample
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		s := take(env.srv.Pid(), env.pprof, time.Since(start))
		out = append(out, s)
		fmt.Fprintf(os.Stderr, "soak %s: rss %.0f MB (plugin memories %.0f of %.0f MB reserved, Go heap goal %.0f MB), goroutines %.0f, fds %.0f, chromium %.0f, load %.1f, calls %d, unexpected %d\n",
			s.at.Round(time.Second), s.rssMB, s.mem.pluginMB, s.mem.pluginReservedMB, s.heapGoalMB, s.goroutines, s.fds, s.chromium, s.load1, r.t.callsTotal(), r.t.unexpectedTotal())
		select {
		case <-done:
			return out
		case <-env.srv.Exited():
			r.t.fail("serve: exited during the run", "the server process exited")
			return out
		case <-tick.C:
		}
	}
}

// settle samples the server after the run until its Chromium processes and
// goroutines stop falling (at most 30 s) and returns the last sample.
func settle(env *env, start time.Time, every time.Duration) sample {
	last := take(env.srv.Pid(), env.pprof, time.Since(start))
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); {
		time.Sleep(min(every, 5*time.Second)) // a sampling period, not a synchronisation
		s := take(env.srv.Pid(), env.pprof, time.Since(start))
		if s.chromium >= last.chromium && s.goroutines >= last.goroutines {
			return s
		}
		last = s
	}
	return last
}

// scheduleTakeovers asks for n takeovers spread evenly over the run: the
// next agent to finish a lap claims each.
func scheduleTakeovers(r *run, start time.Time, d time.Duration, n int) {
	for k := 1; k <= n; k++ {
		at := start.Add(d * time.Duration(k) / time.Duration(n+1))
		select {
		case <-r.ctx.Done():
			return
		case <-time.After(time.Until(at)):
			r.takeoverDue.Add(1)
		}
	}
}
