package main

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/wasmwright/wasmwright/internal/bench/measure"
)

// report is what a soak saw.
type report struct {
	t             *tally
	pagesDir      string
	pages         int
	samples       []sample
	before, after sample
	swaps         []swapResult
	worked        time.Duration
	logged        map[string]int // the server's warnings and errors, by message
}

func (t *tally) callsTotal() int { return t.total(func(t *tally) map[string]int { return t.calls }) }

// steady are the samples the lines are fitted to: those after the
// warm-up (warmUp).
func (r *report) steady() []sample { return after(r.samples, warmUp(r.worked, r.t.warm)) }

// warmUp is the start of a run the lines leave out: its first third, or
// until every agent has done a lap if that is later. Fitted from the first
// minute, a ten-minute line took in the Go heap still rising to its level,
// which it reached at two to three minutes (at load 40-60: sessions opening,
// caches filling) and then held: the line then rose 3-5 MB a minute, flagged
// as growth, on a heap that had settled (memsplit.go).
func warmUp(worked, warm time.Duration) time.Duration { return max(worked/3, warm) }

// after keeps the samples taken at skip or later.
func after(ss []sample, skip time.Duration) []sample {
	var out []sample
	for _, s := range ss {
		if s.at >= skip {
			out = append(out, s)
		}
	}
	return out
}

func (r *report) growing() []string {
	var out []string
	ss := r.steady()
	window, ok := fitWindow(ss)
	if !ok {
		return out
	}
	for _, m := range metrics {
		if m.judged && fitLine(ss, m.get).grows(window) {
			out = append(out, m.name)
		}
	}
	return out
}

func (r *report) ok() bool { return r.t.unexpectedTotal() == 0 && len(r.growing()) == 0 }

func (r *report) print(o options) {
	t := r.t
	fmt.Println("## Soak: agents on one `serve --http` for a long run")
	fmt.Println()
	fmt.Printf("`go -C internal/bench run ./soak -duration %s -sessions %d` (`make soak`; SOAK_DURATION overrides the duration), %s, %d CPUs, %s. ", o.duration, o.sessions, time.Now().UTC().Format("2006-01-02"), runtime.NumCPU(), runtime.Version())
	fmt.Printf("%d MCP sessions over streamable HTTP on one `wasmwright serve --http` (browser plugin, egress proxy, detect/compact/mask pipeline, operator console on, watching its plugins folder), for %s. ", o.sessions, r.worked.Round(time.Second))
	fmt.Printf("Each agent loops: navigate to a page of %d (%s, served on loopback) and snapshot; navigate to a form, snapshot, type into its field and click its button by their refs, snapshot and check the page shows what was typed; every third lap a Cloudflare challenge (must answer `bot_wall`) and a host outside the policy (must answer `refused`); after 3-7 laps the session closes and a new one opens. ", r.pages, pagesLabel(r.pagesDir))
	fmt.Printf("Meanwhile the detector is hot-swapped with `wasmwright plugins swap` at a third of the run (to another build) and at two thirds (back), and %d takeovers are requested by agents and handed back by an operator through the console's HTTP API. ", o.takeovers)
	fmt.Printf("Load average (1 min) during the run: %s (the machine is shared). ", loadRange(r.samples))
	if o.stretch {
		fmt.Print("serve runs with `[host] stretch_with_load = true`: the agents call back to back, so they load the machine themselves (10 of them about 19 on 2 cores), and the default action_timeout (5 s) is a bound for a machine that is not; its deadlines stretch with the load per CPU, at most 4x (`-stretch=false`: the bounds as written).\n\n")
	} else {
		fmt.Print("serve's deadlines are the configured ones (`-stretch=false`).\n\n")
	}
	fmt.Printf("Work: %d calls in %d laps, %d sessions opened and %d closed, %d forms sent and checked, %d of %d takeovers handed back.\n\n", t.callsTotal(), t.laps, t.opened, t.closed, t.checkedForms, t.handed, t.takeovers)
	r.printCalls()
	r.printFailures()
	r.printSwaps()
	r.printSlopes()
	if len(r.logged) > 0 {
		fmt.Printf("\nThe server logged: %s.\n", joinCounts(r.logged))
	}
}

func pagesLabel(dir string) string {
	if dir == "" {
		return "the form"
	}
	return "`" + lastTwo(dir) + "`"
}

func lastTwo(p string) string {
	parts := strings.Split(strings.TrimRight(p, "/"), "/")
	return strings.Join(parts[max(0, len(parts)-2):], "/")
}

func loadRange(ss []sample) string {
	var ls []float64
	for _, s := range ss {
		if !math.IsNaN(s.load1) {
			ls = append(ls, s.load1)
		}
	}
	if len(ls) == 0 {
		return "unknown"
	}
	sort.Float64s(ls)
	return fmt.Sprintf("%.1f-%.1f, median %.1f", ls[0], ls[len(ls)-1], ls[len(ls)/2])
}

func (r *report) printCalls() {
	t := r.t
	fmt.Println("| tool | calls | p50 | p90 | expected failures | unexpected failures |")
	fmt.Println("|---|---:|---:|---:|---:|---:|")
	for _, tool := range sortedKeys(t.calls) {
		exp, unexp := 0, 0
		for k, v := range t.expected {
			if strings.HasPrefix(k, tool+":") {
				exp += v
			}
		}
		for k, v := range t.unexpected {
			if strings.HasPrefix(k, tool+":") {
				unexp += v
			}
		}
		fmt.Printf("| %s | %d | %s | %s | %d | %d |\n", tool, t.calls[tool], measure.D(measure.Quantile(t.lat[tool], 1, 2)), measure.D(measure.Quantile(t.lat[tool], 9, 10)), exp, unexp)
	}
	fmt.Println()
}

// printFailures lists every failed call by tool and abi code: the expected
// ones, then the unexpected ones with the first message of each.
func (r *report) printFailures() {
	t := r.t
	fmt.Printf("Failed calls by tool and abi error code. Expected (the wall and the refused host): %s.", joinCounts(t.expected))
	if len(t.unexpected) == 0 {
		fmt.Print(" **Unexpected: 0.**\n\n")
		return
	}
	fmt.Printf(" **Unexpected: %d**:\n\n", t.unexpectedTotal())
	for _, k := range sortedKeys(t.unexpected) {
		fmt.Printf("- %s: %d (first: %q)\n", k, t.unexpected[k], t.example[k])
	}
	fmt.Println()
}

func joinCounts(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range sortedKeys(m) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func (r *report) printSwaps() {
	for _, s := range r.swaps {
		state := "swapped in, live"
		if !s.live {
			state = "NOT live: " + firstLine(s.out, 120)
		}
		fmt.Printf("Detector swap at %s: %s in %s (validation, self-test, pick-up by the server).\n", s.at.Round(time.Second), state, measure.D(s.took))
	}
	fmt.Println()
}

// printSlopes prints, for each measure, its values and the line fitted to
// the steady samples: the slope per minute with its 95% band, the scatter
// around the line, and whether it grows beyond that noise.
func (r *report) printSlopes() {
	ss := r.steady()
	window, ok := fitWindow(ss)
	if !ok {
		fmt.Println("Too few samples to fit a line.")
		return
	}
	fmt.Printf("Resources of the server, sampled every %s; the line is a least-squares fit over the %d samples from %s to %s (left out: the first third of the run, or until every agent has done a lap if later, while sessions open, caches fill and the Go heap reaches its level). Goroutines come from serve's `--pprof` endpoint. *Idle* is before the first session and after the last one closed.\n\n",
		(r.samples[1].at - r.samples[0].at).Round(time.Second), len(ss), ss[0].at.Round(time.Second), ss[len(ss)-1].at.Round(time.Second))
	fmt.Println("| measure | idle before | mean | min-max | slope per minute (95%) | scatter (SD) | rise over the window | idle after | grows beyond noise |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---|")
	for _, m := range metrics {
		f := fitLine(ss, m.get)
		lo, hi := span(ss, m.get)
		verdict := "no"
		switch {
		case !m.judged:
			verdict = "not judged"
		case f.grows(window):
			verdict = "**yes**"
		}
		u := m.unit
		fmt.Printf("| %s | %s | %s | %s-%s | %+.2f ± %.2f %s | %s | %+.1f %s | %s | %s |\n", m.name, num(m.get(r.before), u), num(f.mean, u),
			num(lo, ""), num(hi, u), f.slope, f.ci, u, num(f.resid, u), f.slope*window.Minutes(), u, num(m.get(r.after), u), verdict)
	}
	fmt.Println()
	fmt.Println("A measure grows beyond noise when its slope is above zero with 95% confidence and its rise over the window is more than twice the scatter of the samples around the line.")
	fmt.Println()
	fmt.Println("serve's RSS is judged in its parts. *Plugin memories* are the plugin instances' linear memories (read from serve's smaps): *reserved* is the address space of the instances alive (one never closed would raise it), *resident* what they hold; it is shown, not judged, because an instance keeps the most its memory grew to (a wasm memory never shrinks), up to the pool's limit per instance. *Go heap goal* is the Go runtime's next collection target, twice the heap live at the last collection.")
}

func num(v float64, unit string) string {
	if math.IsNaN(v) {
		return "-"
	}
	s := fmt.Sprintf("%.0f", v)
	if unit != "" {
		s += " " + unit
	}
	return s
}

// writeCSV writes the samples, one a line.
func writeCSV(path string, ss []sample) error {
	var b strings.Builder
	b.WriteString("seconds,rss_mb,plugin_mb,plugin_reserved_mb,code_mb,heap_goal_mb,goroutines,threads,fds,chromium,tree_mb,load1\n")
	for _, s := range ss {
		fmt.Fprintf(&b, "%.0f,%.1f,%.1f,%.0f,%.1f,%.1f,%.0f,%.0f,%.0f,%.0f,%.1f,%.2f\n", s.at.Seconds(), s.rssMB, s.mem.pluginMB, s.mem.pluginReservedMB,
			s.mem.codeMB, s.heapGoalMB, s.goroutines, s.threads, s.fds, s.chromium, s.treeMB, s.load1)
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}
