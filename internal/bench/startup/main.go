// Command startup measures how fast wasmwright starts and how much memory
// it holds, against Playwright MCP measured in the same run by the same
// MCP client over stdio (internal/bench/mcpclient):
//
//   - start-up to tools/list answered, warm (median of -n);
//   - the first run after make build (an empty cache_dir, the compiled code
//     shipped in build/plugins/.cache) and with no cache at all;
//   - the first navigate of a process (a page on loopback), without and
//     with browser.prewarm (sent at once, and 3 s after tools/list);
//   - the RSS of the server process alone before any browser, and the USS
//     and PSS of one session's whole process tree after navigate and
//     snapshot.
//
// With -before-bin and -before-plugins (a build of an older commit, as
// scripts/bench.sh makes of the commit before issue 13) it adds that
// build's column.
//
//	go -C internal/bench run ./startup [-n 7] [-nav-n 3] [-before-bin B -before-plugins D]
package main

import (
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wasmwright/wasmwright/internal/bench/benchflag"
	"github.com/wasmwright/wasmwright/internal/bench/mcpclient"
	"github.com/wasmwright/wasmwright/internal/bench/measure"
	benchrows "github.com/wasmwright/wasmwright/internal/bench/rows"
	"github.com/wasmwright/wasmwright/internal/procfs"
)

// system is one server under test: how to start it with a cache folder
// and extra [browser] keys (wasmwright only).
type system struct {
	name  string
	start func(cache, plugins, browserKeys string) (*mcpclient.Client, error)
	// plugins is its plugins folder ("" for the peer).
	plugins string
	// prewarm says it knows browser.prewarm.
	prewarm bool
}

// row is one measure: a value per system, "" when not measured.
type row struct {
	what string
	vals map[string]float64
	unit string
}

func main() {
	n := flag.Int("n", 7, "warm start-ups to take the median of")
	navN := flag.Int("nav-n", 3, "first navigates of each system to take the median of, in rounds")
	bin, plugins, peerDir := benchflag.Wasmwright(), benchflag.Plugins(), benchflag.Peer()
	before := benchflag.BeforeFlags("before-bin")
	beforeName := flag.String("before-name", "before", "the before column's name")
	benchflag.Unused()
	parts := flag.Int("parts", 0, "only measure where one session's memory goes, part by part, in this many samples of each system")
	keys := flag.String("browser-keys", "", "more [browser] keys for wasmwright with -parts, one a line")
	partsCalls := flag.Int("parts-calls", 0, "with -parts: then navigate to and snapshot this many corpus pages in each session, timed")
	dump := flag.String("parts-dump", "", "with -parts: write each process's smaps and command line, and serve's heap profile, of the first sample into this folder")
	flag.Parse()
	const title = "## Start-up and memory: wasmwright vs Playwright MCP 0.0.83, over MCP stdio"

	tmp, err := os.MkdirTemp("", "ww-startup-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer os.RemoveAll(tmp)
	ww := func(b string) func(cache, plugins, keys string) (*mcpclient.Client, error) {
		return func(cache, plugins, keys string) (*mcpclient.Client, error) {
			ws, _ := os.MkdirTemp(tmp, "ws-")
			return mcpclient.StartWasmwright(b, mcpclient.BenchConfig(cache, plugins, ws, keys), false)
		}
	}
	systems := []*system{{name: "wasmwright", start: ww(*bin), plugins: *plugins, prewarm: true}}
	cli := benchflag.PeerCLI(*peerDir)
	if _, err := os.Stat(cli); err == nil {
		systems = append(systems, &system{name: "Playwright MCP", start: func(string, string, string) (*mcpclient.Client, error) {
			return mcpclient.StartPeer(cli, false)
		}}, &system{name: peerDefault, start: func(string, string, string) (*mcpclient.Client, error) {
			return mcpclient.StartPeerDefault(cli, false)
		}})
	} else {
		fmt.Fprintf(os.Stderr, "Playwright MCP not found at %s: only wasmwright is measured\n", cli)
	}
	if *before.Bin != "" {
		systems = append(systems, &system{name: *beforeName, start: ww(*before.Bin), plugins: *before.Plugins})
	}

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, `<!doctype html><title>Start</title><h1>Hello</h1><form><input aria-label="Query"><button>Go</button></form><a href="/next">next</a>`)
	}))
	defer srv.Close()
	if *parts > 0 {
		before := partsBefore{*beforeName, *before.Bin, *before.Plugins}
		if before.plugins == "" {
			before.plugins = *plugins
		}
		urls, stop := callPages(*partsCalls)
		defer stop()
		measureParts(partsSystems(*bin, *plugins, *keys, *peerDir, tmp, before), srv.URL+"/", *parts, *dump, urls)
		return
	}

	var rows []row
	add := func(what, unit string, f func(s *system) (float64, bool)) {
		r := row{what: what, unit: unit, vals: map[string]float64{}}
		for _, s := range systems {
			if v, ok := f(s); ok {
				r.vals[s.name] = v
			}
		}
		rows = append(rows, r)
	}
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	// Each wasmwright build gets its own cache, warmed by a first run.
	caches := map[string]string{}
	for _, s := range systems {
		caches[s.name] = filepath.Join(tmp, "cache-"+strings.ReplaceAll(s.name, " ", "-"))
		if c, _, err := toolsList(s, caches[s.name], s.plugins, ""); err == nil {
			c.Close()
		} else {
			fmt.Fprintf(os.Stderr, "%s: %v\n", s.name, err)
		}
	}
	rss := map[string][]time.Duration{} // KB, as durations for the median helper
	add("start-up to tools/list, warm (median of "+fmt.Sprint(*n)+")", "ms", func(s *system) (float64, bool) {
		var ds []time.Duration
		for i := 0; i < *n; i++ {
			c, d, err := toolsList(s, caches[s.name], s.plugins, "")
			if err != nil {
				fmt.Fprintf(os.Stderr, "%s: %v\n", s.name, err)
				return 0, false
			}
			time.Sleep(300 * time.Millisecond) // what start-up leaves settles
			rss[s.name] = append(rss[s.name], time.Duration(procfs.Memory([]int{c.Pid()}, "Rss")))
			c.Close()
			ds = append(ds, d)
		}
		return ms(measure.Med(ds)), true
	})
	firstRun := func(shipped bool) func(s *system) (float64, bool) {
		return func(s *system) (float64, bool) {
			if s.plugins == "" {
				return 0, false
			}
			var ds []time.Duration
			for i := 0; i < 3; i++ {
				dir, _ := os.MkdirTemp(tmp, "first-")
				plugins := s.plugins
				if !shipped {
					plugins = filepath.Join(dir, "plugins")
					if err := copyPlugins(s.plugins, plugins); err != nil {
						fmt.Fprintln(os.Stderr, err)
						return 0, false
					}
				}
				c, d, err := toolsList(s, filepath.Join(dir, "cache"), plugins, "")
				if err != nil {
					fmt.Fprintf(os.Stderr, "%s: %v\n", s.name, err)
					return 0, false
				}
				c.Close()
				ds = append(ds, d)
				if !shipped {
					break // seconds each: one is enough
				}
			}
			return ms(measure.Med(ds)), true
		}
	}
	add("first run after make build to tools/list (empty cache_dir, shipped compiled code; median of 3)", "ms", firstRun(true))
	add("first run to tools/list with no cache at all", "ms", firstRun(false))
	add("RSS of the server process alone before any browser (median)", "MB", func(s *system) (float64, bool) {
		if len(rss[s.name]) == 0 {
			return 0, false
		}
		return float64(measure.Med(rss[s.name])) / 1024, true
	})
	type mem struct{ uss, pss, host int64 }
	sessMem := map[string]mem{}
	connectNav := map[string][]time.Duration{} // the default row's start to navigate answered
	// firstNav is a row of first navigates, -nav-n of each system's, taken
	// in rounds (one run of each system in turn): a change of the
	// machine's load meets every system alike.
	firstNav := func(what, keys string, after time.Duration) {
		r := row{what: what, unit: "ms", vals: map[string]float64{}}
		ds := map[string][]time.Duration{}
		failed := map[string]bool{}
		for i := 0; i < *navN; i++ {
			for _, s := range systems {
				if failed[s.name] || (keys != "" && !s.prewarm) {
					continue
				}
				c, d0, err := toolsList(s, caches[s.name], s.plugins, keys)
				if err != nil {
					fmt.Fprintf(os.Stderr, "%s: %v\n", s.name, err)
					failed[s.name] = true
					continue
				}
				time.Sleep(after) // an agent's first call comes after its model has read the tools
				_, _, d, err := c.Tool("browser_navigate", map[string]any{"url": srv.URL + "/"})
				if err == nil && keys == "" && i == 0 {
					if _, _, _, err = c.Tool("browser_snapshot", map[string]any{}); err == nil {
						time.Sleep(time.Second) // what the page's load leaves settles
						pids := c.Pids()
						sessMem[s.name] = mem{mcpclient.USS(pids), mcpclient.PSS(pids), procfs.Memory([]int{c.Pid()}, "Rss")}
					}
				}
				c.Close()
				if err != nil {
					fmt.Fprintf(os.Stderr, "%s navigate: %v\n", s.name, err)
					failed[s.name] = true
					continue
				}
				ds[s.name] = append(ds[s.name], d)
				if keys == "" {
					connectNav[s.name] = append(connectNav[s.name], d0+d)
				}
			}
		}
		for name, d := range ds {
			if failed[name] {
				delete(connectNav, name)
				continue
			}
			r.vals[name] = ms(measure.Med(d))
		}
		rows = append(rows, r)
	}
	navMed := fmt.Sprintf(" (median of %d)", *navN)
	firstNav("first navigate of a process, sent right after tools/list"+navMed, "", 0)
	add("connect + first navigate: process start to the navigate's answer, the same runs"+navMed, "ms", func(s *system) (float64, bool) {
		if len(connectNav[s.name]) == 0 {
			return 0, false
		}
		return ms(measure.Med(connectNav[s.name])), true
	})
	firstNav("the same with browser.prewarm = true (serve starts the driver and Chromium and compiles the plugins at once; the default now)", "prewarm = true", 0)
	firstNav("browser.prewarm = false: nothing starts before the first call (the default before)", "prewarm = false", 0)
	firstNav("browser.prewarm = true, navigate sent 3 s after tools/list", "prewarm = true", 3*time.Second)
	memRow := func(f func(m mem) int64) func(s *system) (float64, bool) {
		return func(s *system) (float64, bool) {
			m, ok := sessMem[s.name]
			return float64(f(m)) / 1024, ok
		}
	}
	add("one session after navigate and snapshot: USS of the whole process tree", "MB", memRow(func(m mem) int64 { return m.uss }))
	add("the same, PSS", "MB", memRow(func(m mem) int64 { return m.pss }))
	add("the same, RSS of the server process alone", "MB", memRow(func(m mem) int64 { return m.host }))

	record(rows, systems)
	fmt.Printf("%s\n\n", title)
	fmt.Printf("Each server started by the same MCP client over stdio, as an agent's config starts it: `wasmwright serve` with the browser plugin and the detect/compact/mask pipeline, Playwright MCP (--isolated, --timeout-settle 0; and PW, as it ships, with its default settle wait) on the same Chromium (%s). Start-up is from process start to the tools/list answer; navigate loads a small page on loopback. Ratios are against Playwright MCP.\n\n", mcpclient.Chromium())
	head := "| measure |"
	sep := "|---|"
	for _, s := range systems {
		head += " " + s.name + " |"
		sep += "---:|"
		if len(systems) > 1 && s != systems[1] && systems[1].plugins == "" {
			head += " ratio |"
			sep += "---:|"
		}
	}
	fmt.Println(head)
	fmt.Println(sep)
	for _, r := range rows {
		line := "| " + r.what + " (" + r.unit + ") |"
		var peer float64
		if len(systems) > 1 {
			peer = r.vals[systems[1].name]
		}
		for _, s := range systems {
			v, ok := r.vals[s.name]
			line += " " + num(v, ok) + " |"
			if len(systems) > 1 && s != systems[1] && systems[1].plugins == "" {
				line += " " + ratio(v, peer, ok) + " |"
			}
		}
		fmt.Println(line)
	}
	fmt.Println()
	fmt.Println("Each serve process over stdio is one MCP session; sessions sharing one process (serve --http) are not measured here.")
	fmt.Println()
}

// peerDefault is Playwright MCP as it ships (its default settle wait):
// PW. "Playwright MCP", the ratios' peer, is PW0 (--timeout-settle 0).
const peerDefault = "PW (default settle)"

// summaryRows names the rows the run's summary shows (internal/bench/rows),
// by the start of their text here.
var summaryRows = map[string]string{
	"start-up to tools/list, warm":                    "start-up to tools/list",
	"first navigate of a process, sent right after":   "first navigate of a fresh serve",
	"connect + first navigate":                        "connect + first navigate",
	"one session after navigate and snapshot: USS of": "USS of the tree, one session",
}

// record hands the summary's rows to internal/bench/rows: the peers here
// are Playwright MCP with --timeout-settle 0 (PW0) and as it ships (PW).
func record(rs []row, systems []*system) {
	for _, r := range rs {
		for prefix, measure := range summaryRows {
			if !strings.HasPrefix(r.what, prefix) {
				continue
			}
			for i, s := range systems {
				var side string
				switch {
				case i == 0:
					side = benchrows.Wasmwright
				case s.name == peerDefault:
					side = benchrows.PW
				case s.plugins == "":
					side = benchrows.PW0
				default:
					side = benchrows.Before
				}
				benchrows.Record("startup", measure, side, r.vals[s.name])
			}
		}
	}
}

// toolsList starts s and asks for its tools; it returns the running client
// and the time from start to the answer.
func toolsList(s *system, cache, plugins, keys string) (*mcpclient.Client, time.Duration, error) {
	t0 := time.Now()
	c, err := s.start(cache, plugins, keys)
	if err != nil {
		return nil, 0, err
	}
	if _, _, err := c.RPC("tools/list", map[string]any{}); err != nil {
		c.Close()
		return nil, 0, err
	}
	return c, time.Since(t0), nil
}

// copyPlugins copies a plugins folder's files, not its shipped cache.
func copyPlugins(from, to string) error {
	ents, err := os.ReadDir(from)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(to, 0o755); err != nil {
		return err
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

func num(v float64, ok bool) string {
	if !ok {
		return "-"
	}
	return fmt.Sprintf("%.0f", v)
}

func ratio(v, peer float64, ok bool) string {
	if !ok || peer == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2fx", v/peer)
}
