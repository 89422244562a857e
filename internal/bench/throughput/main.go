// Command throughput measures how many calls per second one server process
// answers when N agents use it at once: wasmwright (`build/wasmwright serve
// --http`, one browser session per MCP session) against Playwright MCP
// 0.0.83 in its multi-client mode (cli.js --port --isolated: one browser
// context per client), both over streamable HTTP, driven by the same client
// code (internal/bench/mcphttp), on the same Chromium.
//
//	go -C internal/bench run ./throughput [-pages ../shared/corpus/pages] [-sessions 1,5,10] [-window 10s] [-rounds 2]
//
// Each of the N sessions loops navigate + snapshot over the loopback
// corpus pages (each session starting at a different page) for a fixed
// window, after a warm-up lap that is not measured. Rounds alternate which
// side runs first, so the machine's noise falls on both. It prints a
// markdown section: calls per second of each side, their ratio, p50/p90
// call latency and failures; then the memory of each side's whole process
// tree (USS and PSS) with its sessions open after the warm-up, at the
// smallest and the largest N, and what each added session costs.
//
// With -before-bin and -before-plugins (a build of an older commit, as
// scripts/bench.sh makes of the commit before issue 13) that build is
// measured too, as a third side.
//
// With TPUT_SERVER_LOG=1 each server's log goes to stderr (wasmwright's at
// --log-level debug, which carries its driver's output); with
// DEBUG=pw:protocol as well, both sides log every driver protocol message:
// what a navigate + snapshot asks of Chromium, side by side.
package main

import (
	"context"
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
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/wasmwright/wasmwright/hostfuncs/browser"
	"github.com/wasmwright/wasmwright/internal/bench/benchflag"
	"github.com/wasmwright/wasmwright/internal/bench/mcpclient"
	"github.com/wasmwright/wasmwright/internal/bench/mcphttp"
	"github.com/wasmwright/wasmwright/internal/bench/measure"
	"github.com/wasmwright/wasmwright/internal/bench/rows"
	"github.com/wasmwright/wasmwright/internal/bench/sut"
	corpusdir "github.com/wasmwright/wasmwright/internal/corpus"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

const title = "## Throughput: N agents on one server process, wasmwright vs Playwright MCP 0.0.83, both over streamable HTTP"

// server is one side: a running server process and its MCP endpoint.
type server struct{ *sut.Server }

// tally is what one side measured at one N.
type tally struct {
	calls, failed int
	warmFailed    int // warm-up laps that failed (not in the window)
	window        time.Duration
	cpu           int64 // clock ticks the server's process tree used in the windows
	lat           []time.Duration
	// uss, pss: the process tree's memory (kB) with the N sessions open
	// after their warm-up, the least over the rounds (0: not measured).
	uss, pss int64
	errs     map[string]int
	// roles: the ticks of cpu split by what each process is (roles.go).
	roles map[string]int64
}

func main() {
	root := wasmbuild.Root()
	pagesOf := benchflag.Pages()
	sessionsFlag := flag.String("sessions", "1,5,10", "numbers of concurrent sessions to measure")
	window := flag.Duration("window", 10*time.Second, "measured time per side, round and N")
	rounds := flag.Int("rounds", 2, "rounds per N (sides alternate which goes first)")
	npages := flag.Int("n", 20, "corpus pages to loop over")
	peerDir, bin := benchflag.Peer(), benchflag.Wasmwright()
	pprofAddr := flag.String("pprof", "", "run wasmwright serve with --pprof at this address, for profiling a run")
	only := flag.String("only", "", "measure only this side: wasmwright (with -before-bin, the before side too) or peer")
	older := benchflag.BeforeFlags("before-bin")
	beforeName := flag.String("before-name", "before", "the before side's name")
	flag.Parse()
	pagesDir := pagesOf()
	var ns []int
	for _, f := range strings.Split(*sessionsFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			fmt.Fprintf(os.Stderr, "-sessions %q: give numbers of sessions, comma-separated\n", *sessionsFlag)
			os.Exit(2)
		}
		ns = append(ns, n)
	}
	pages, err := corpusdir.Pages(pagesDir)
	if err != nil || len(pages) == 0 {
		fmt.Printf("%s\n\nSkipped: no corpus pages at %s (%v). Pass -pages with a folder of .html files.\n", title, pagesDir, err)
		return
	}
	pages = pages[:min(len(pages), *npages)]
	if err := browser.Preflight(browser.Config{}); err != nil {
		fmt.Printf("%s\n\nSkipped: %v\n", title, err)
		os.Exit(1)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(pagesDir)))
	defer srv.Close()
	urls := make([]string, len(pages))
	for i, p := range pages {
		urls[i] = srv.URL + "/" + p
	}
	maxN := slices.Max(ns)

	var sides []*server
	if *only != "peer" {
		ww, err := startWasmwright("wasmwright", *bin, "", "", maxN, *pprofAddr)
		if err != nil {
			fmt.Fprintln(os.Stderr, "wasmwright:", err)
			os.Exit(1)
		}
		defer ww.Stop()
		sides = append(sides, ww)
	}
	var before *server
	if *older.Bin != "" && *only != "peer" {
		// Its own cache (kept, as build/cache is): compiled code of another
		// wazero or rewrite.
		b, err := startWasmwright(*beforeName, *older.Bin, *older.Plugins, filepath.Join(root, "build", "cache-before"), maxN, "")
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s: %v\n", *beforeName, err)
		} else {
			before = b
			defer before.Stop()
		}
	}
	if *only != "wasmwright" {
		cli := benchflag.PeerCLI(*peerDir)
		if _, err := os.Stat(cli); err != nil {
			fmt.Fprintf(os.Stderr, "Playwright MCP not found at %s: npm install --prefix %s @playwright/mcp@0.0.83\n", cli, *peerDir)
		} else {
			// PW0 (--timeout-settle 0), the peer the ratios are to, and
			// PW as it ships.
			for _, name := range []string{peerName, peerDefaultName} {
				pc, err := startPeer(cli, name)
				if err != nil {
					fmt.Fprintln(os.Stderr, "playwright mcp:", err)
					continue
				}
				defer pc.Stop()
				sides = append(sides, pc)
			}
		}
	}
	if before != nil {
		sides = append(sides, before)
	}

	res := map[string]map[int]*tally{}
	for _, s := range sides {
		res[s.Name] = map[int]*tally{}
	}
	for _, n := range ns {
		for r := 0; r < *rounds; r++ {
			order := append([]*server(nil), sides...)
			if r%2 == 1 {
				for i, j := 0, len(order)-1; i < j; i, j = i+1, j-1 {
					order[i], order[j] = order[j], order[i]
				}
			}
			for _, s := range order {
				t := res[s.Name][n]
				if t == nil {
					t = &tally{errs: map[string]int{}, roles: map[string]int64{}}
					res[s.Name][n] = t
				}
				if err := s.run(n, urls, *window, t); err != nil {
					fmt.Fprintf(os.Stderr, "%s, %d sessions: %v\n", s.Name, n, err)
				}
				fmt.Fprintf(os.Stderr, "%s n=%d round %d: %.1f calls/s so far\n", s.Name, n, r+1, t.rate())
			}
		}
	}

	fmt.Printf("%s\n\n", title)
	fmt.Printf("N sessions open on one server process at once, each looping navigate + snapshot over %d pages of %s served on loopback (sessions start at different pages), for %s per round after an unmeasured warm-up lap; %d rounds per N, alternating which side goes first. wasmwright: `build/wasmwright serve --http` (one browser session per MCP session; browser plugin, egress proxy, detect/compact/mask pipeline). Playwright MCP: `cli.js --port --isolated --timeout-settle 0` (one browser context per client; the ratios are to it), and the same as it ships, with its default settle wait (PW). Same Chromium (%s), same client code; calls/s and CPU/call count only the calls answered without an error (the failed ones have their own column). Latency is per call (navigate or snapshot), in ms. CPU/call is the processor time the server's whole process tree (server, driver, Chromium) used during the windows, per call, in ms: on a machine with fewer cores than sessions it bounds the calls per second.\n\n",
		len(urls), filepath.Base(pagesDir), *window, *rounds, sut.Chromium())
	if before != nil {
		fmt.Printf("%s is the same serve --http of a build of that commit, with its own plugins and compilation cache.\n\n", before.Name)
	}
	const peer = peerName
	head, sep := "| sessions |", "|---:|"
	for _, sd := range sides {
		head += " " + sd.Name + " calls/s | p50 | p90 | failed | CPU/call |"
		sep += "---:|---:|---:|---:|---:|"
		if sd.Name != peer && res[peer] != nil {
			head += " ratio |"
			sep += "---:|"
		}
	}
	fmt.Println(head)
	fmt.Println(sep)
	for _, n := range ns {
		line := fmt.Sprintf("| %d |", n)
		for _, sd := range sides {
			t := res[sd.Name][n]
			if t == nil {
				line += " - | - | - | - | - |"
			} else {
				line += fmt.Sprintf(" %.1f | %s | %s | %d | %s |", t.rate(), ms(measure.Quantile(t.lat, 1, 2)), ms(measure.Quantile(t.lat, 9, 10)), t.failed, t.cpuPerCall())
				side := rows.Before
				switch {
				case sd.Name == "wasmwright":
					side = rows.Wasmwright
				case sd.Name == peerName:
					side = rows.PW0
				case sd.Name == peerDefaultName:
					side = rows.PW
				}
				rows.Record("throughput", fmt.Sprintf("calls/s, %d sessions", n), side, t.rate())
				if t.answered() > 0 {
					rows.Record("throughput", fmt.Sprintf("CPU per call, %d sessions", n), side, float64(t.cpu*10)/float64(t.answered()))
				}
			}
			if sd.Name != peer && res[peer] != nil {
				line += " " + ratioOf(t, res[peer][n], (*tally).rate) + " |"
			}
		}
		fmt.Println(line)
	}
	printRoles(sides, res, ns)
	if lo, hi := slices.Min(ns), slices.Max(ns); hi > lo {
		printMemory(sides, res, lo, hi)
	}
	fmt.Println()
	for _, s := range sides {
		for _, n := range ns {
			if t := res[s.Name][n]; t != nil && len(t.errs) > 0 {
				fmt.Printf("%s at %d sessions failed with: %s.\n", s.Name, n, topErrs(t.errs))
			}
		}
	}
}

// printMemory prints each side's process-tree memory with lo and with hi
// sessions open, and the cost of each session added between them.
func printMemory(sides []*server, res map[string]map[int]*tally, lo, hi int) {
	const peer = peerName
	fmt.Printf("\nMemory of each server's whole process tree (server, driver, Chromium) with its sessions open, measured 1 s after the warm-up laps (the least over the rounds), in MB; per added session is (at %d - at %d) / %d. The ratio is against Playwright MCP.\n\n", hi, lo, hi-lo)
	fmt.Println("| measure | " + strings.Join(names(sides), " | ") + " |")
	fmt.Println("|---|" + strings.Repeat("---:|", len(sides)))
	row := func(what string, f func(t *server) (float64, bool)) {
		line := "| " + what + " |"
		var pv float64
		for _, sd := range sides {
			if sd.Name == peer {
				pv, _ = f(sd)
			}
		}
		for _, sd := range sides {
			v, ok := f(sd)
			cell := "-"
			if ok {
				cell = fmt.Sprintf("%.0f", v)
				if sd.Name != peer && pv > 0 {
					cell += fmt.Sprintf(" (%.2fx)", v/pv)
				}
			}
			line += " " + cell + " |"
		}
		fmt.Println(line)
	}
	for _, m := range []struct {
		name string
		get  func(t *tally) int64
	}{{"USS", func(t *tally) int64 { return t.uss }}, {"PSS", func(t *tally) int64 { return t.pss }}} {
		at := func(n int) func(sd *server) (float64, bool) {
			return func(sd *server) (float64, bool) {
				t := res[sd.Name][n]
				if t == nil || m.get(t) == 0 {
					return 0, false
				}
				return float64(m.get(t)) / 1024, true
			}
		}
		row(fmt.Sprintf("%s, %d session(s)", m.name, lo), at(lo))
		row(fmt.Sprintf("%s, %d sessions", m.name, hi), at(hi))
		row(m.name+" per added session", func(sd *server) (float64, bool) {
			a, oka := at(lo)(sd)
			b, okb := at(hi)(sd)
			return (b - a) / float64(hi-lo), oka && okb
		})
	}
}

func names(sides []*server) []string {
	var out []string
	for _, sd := range sides {
		out = append(out, sd.Name)
	}
	return out
}

// ratioOf is f(a)/f(b), or "-".
func ratioOf(a, b *tally, f func(*tally) float64) string {
	if a == nil || b == nil || f(b) == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", f(a)/f(b))
}

// cpuPerCall is the processor time per call, in ms (clock ticks of 10 ms).
func (t *tally) cpuPerCall() string {
	if t.answered() == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", float64(t.cpu*10)/float64(t.answered()))
}

func (t *tally) rate() float64 {
	if t.window <= 0 {
		return 0
	}
	return float64(t.answered()) / t.window.Seconds()
}

// answered is the calls that were answered without an error: a side that
// fails fast (a wrong plugins folder answers every call at once) must not
// look fast. A failed lap made one failed call (lap stops at its error).
func (t *tally) answered() int {
	return t.calls - t.failed
}

// run opens n sessions, warms each up with one navigate + snapshot, then
// lets all of them loop until the window ends, and adds what they did to t.
func (s *server) run(n int, urls []string, window time.Duration, t *tally) error {
	ctx, cancel := context.WithTimeout(context.Background(), window+2*time.Minute)
	defer cancel()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * n}}
	defer hc.CloseIdleConnections()
	clients := make([]*mcphttp.Client, n)
	errc := make(chan error, n)
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := mcphttp.Dial(ctx, hc, s.URL, s.Token)
			if err != nil {
				errc <- fmt.Errorf("session %d: opening: %w", i, err)
				return
			}
			clients[i] = c
			if _, err := lap(ctx, c, urls[i%len(urls)]); err != nil {
				// Counted against the side, not fatal: a loaded server
				// may time a call out and serve the next.
				mu.Lock()
				t.warmFailed++
				t.errs["warm-up: "+firstWords(err.Error())]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	defer func() {
		cctx, ccancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer ccancel()
		for _, c := range clients {
			if c != nil {
				c.Close(cctx)
			}
		}
	}()
	select {
	case err := <-errc:
		return err
	default:
	}
	time.Sleep(time.Second) // what the warm-up's pages leave settles
	pids := append([]int{s.Pid()}, sut.Descendants(s.Pid())...)
	if uss := mcpclient.USS(pids); t.uss == 0 || uss < t.uss {
		t.uss, t.pss = uss, mcpclient.PSS(pids)
	}
	cpu0 := sut.CPUTime(s.Pid())
	tree0 := readTree(s.Pid())
	start := time.Now()
	end := start.Add(window)
	for i, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := i + 1; time.Now().Before(end); k++ {
				ds, err := lap(ctx, c, urls[k%len(urls)])
				mu.Lock()
				t.calls += len(ds)
				for _, d := range ds {
					t.lat = append(t.lat, d)
				}
				if err != nil {
					t.failed++
					t.errs[firstWords(err.Error())]++
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	// The window ends when the last call started in it has answered.
	t.window += time.Since(start)
	used := sut.CPUTime(s.Pid()) - cpu0
	t.cpu += used
	addRoles(t.roles, tree0, readTree(s.Pid()), used)
	return nil
}

// lap navigates to u and takes a snapshot; it returns the times of the
// calls it made (a failed one included) and the first error.
func lap(ctx context.Context, c *mcphttp.Client, u string) ([]time.Duration, error) {
	_, d1, err := c.Tool(ctx, "browser_navigate", map[string]any{"url": u})
	if err != nil {
		return []time.Duration{d1}, fmt.Errorf("navigate: %w", err)
	}
	snap, d2, err := c.Tool(ctx, "browser_snapshot", map[string]any{})
	if err == nil && strings.TrimSpace(snap) == "" {
		err = errors.New("the snapshot is empty")
	}
	if err != nil {
		return []time.Duration{d1, d2}, fmt.Errorf("snapshot: %w", err)
	}
	return []time.Duration{d1, d2}, nil
}

// startWasmwright runs `bin serve --http` on a free loopback port with a
// token of its own, and waits until it answers. plugins "" is the
// binary's default; cache "" is build/cache.
func startWasmwright(name, bin, plugins, cache string, sessions int, pprofAddr string) (*server, error) {
	dir, err := os.MkdirTemp("", "ww-tput-")
	if err != nil {
		return nil, err
	}
	conf, err := sut.WasmwrightConfig(dir, cache, plugins, sessions)
	if err != nil {
		return nil, err
	}
	var extra []string
	if pprofAddr != "" {
		extra = append(extra, "--pprof", pprofAddr)
	}
	var logTo io.Writer
	if os.Getenv("TPUT_SERVER_LOG") != "" {
		logTo = os.Stderr
		extra = append(extra, "--log-level", "debug")
	}
	s, err := sut.ServeWasmwrightLogging(name, bin, dir, conf, logTo, extra...)
	return &server{s}, err
}

// startPeer runs Playwright MCP's HTTP server on a free loopback port.
// The peers' names: Playwright MCP with --timeout-settle 0 (PW0), the one
// the ratios are to, and as it ships (PW).
const (
	peerName        = "Playwright MCP"
	peerDefaultName = "Playwright MCP (default settle, PW)"
)

func startPeer(cli, name string) (*server, error) {
	dir, err := os.MkdirTemp("", "ww-tput-mcp-")
	if err != nil {
		return nil, err
	}
	addr, err := sut.FreeAddr()
	if err != nil {
		return nil, err
	}
	host, port, _ := net.SplitHostPort(addr)
	peerArgs := sut.PeerArgs
	if name == peerDefaultName {
		peerArgs = sut.PeerArgsDefault
	}
	args, err := peerArgs(cli, dir, "--host", host, "--port", port, "--allowed-hosts", "*")
	if err != nil {
		return nil, err
	}
	s := &sut.Server{Name: name, URL: "http://" + addr + "/mcp", Dir: dir, Cmd: exec.Command("node", args...)}
	if os.Getenv("TPUT_SERVER_LOG") != "" {
		s.Cmd.Stderr = os.Stderr
	}
	return &server{s}, s.Start()
}

func ms(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", float64(d.Microseconds())/1000)
}

// firstWords keeps an error's first 80 characters, to count alike ones.
func firstWords(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

func topErrs(m map[string]int) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Slice(ks, func(i, j int) bool { return m[ks[i]] > m[ks[j]] })
	var parts []string
	for _, k := range ks[:min(3, len(ks))] {
		parts = append(parts, fmt.Sprintf("%q (%d)", k, m[k]))
	}
	return strings.Join(parts, ", ")
}
