// Command summary prints the one table of a `make bench` run that holds
// every measure of issue 25 (as fast as Playwright MCP at its fastest):
// the figures the benchmark programs recorded (internal/bench/rows) side
// by side, wasmwright and the before build against Playwright MCP as it
// ships (PW) and with --timeout-settle 0 (PW0), each ratio to the faster
// of the two, with the goal and whether this run met it.
//
//	go -C internal/bench run ./summary -rows FILE [-before-ref TEXT]
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/wasmwright/wasmwright/internal/bench/rows"
)

// measure is one row of the table.
type measure struct {
	label string
	key   string // the measure's name in the rows file
	// peerKey is the peers' measure compared with, when not key (the
	// "snapshot none" rows against their type and press).
	peerKey string
	higher  bool    // a higher value is better (calls per second)
	goal    float64 // the ratio to reach (at most; at least when higher); 0: none
	// absolute: the goal is on the value itself, not a ratio (a share).
	absolute bool
	// native: compared with native Go, not with Playwright MCP.
	native bool
}

var table = []measure{
	{label: "navigate (ms)", key: "navigate"},
	{label: "snapshot (ms)", key: "snapshot"},
	{label: "screenshot (ms)", key: "screenshot"},
	{label: "press Tab after a type, default diff (ms)", key: "press", goal: 1.2},
	{label: "type, default diff (ms)", key: "type", goal: 1.2},
	{label: "click a button or link, default diff (ms)", key: "click", goal: 1.0},
	{label: "back (ms)", key: "back", goal: 1.0},
	{label: "press Shift, which changes nothing (ms)", key: "press again", peerKey: "press"},
	{label: "press, snapshot none (ms)", key: "press none", peerKey: "press"},
	{label: "type, snapshot none (ms)", key: "type none", peerKey: "type"},
	{label: "11-step agent task: bytes the agent reads", key: "task bytes", goal: 0.3},
	{label: "11-step agent task: time (ms)", key: "task time"},
	{label: "start-up to tools/list, warm (ms)", key: "start-up to tools/list"},
	{label: "first navigate of a fresh serve (ms)", key: "first navigate of a fresh serve", goal: 1.3},
	{label: "connect + first navigate (ms)", key: "connect + first navigate", goal: 1.3},
	{label: "CPU per call, whole process tree, 1 session (ms)", key: "CPU per call, 1 sessions", goal: 1.0},
	{label: "CPU per call, 5 sessions (ms)", key: "CPU per call, 5 sessions", goal: 1.0},
	{label: "CPU per call, 10 sessions (ms)", key: "CPU per call, 10 sessions", goal: 1.0},
	{label: "throughput, navigate + snapshot, 1 session (calls/s)", key: "calls/s, 1 sessions", higher: true, goal: 1.0},
	{label: "throughput, 5 sessions (calls/s)", key: "calls/s, 5 sessions", higher: true, goal: 1.0},
	{label: "throughput, 10 sessions (calls/s)", key: "calls/s, 10 sessions", higher: true, goal: 1.0},
	{label: "USS of the whole process tree, one session (MB)", key: "USS of the tree, one session", goal: 1.15},
	{label: "plugins' share of navigate + snapshot (%)", key: "plugins' share of navigate + snapshot, %", goal: 5, absolute: true},
	{label: "compaction of the corpus snapshots, through the sandbox vs natively (ms)", key: "compaction of the corpus snapshots", goal: 3, native: true},
}

func main() {
	path := flag.String("rows", os.Getenv(rows.Env), "the rows file the run's programs wrote")
	beforeRef := flag.String("before-ref", "", "what the before build is, for the text")
	flag.Parse()
	all, err := rows.Read(*path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "summary:", err)
	}
	// The last value recorded for a measure and side counts.
	val := map[string]map[string]float64{}
	src := map[string][]string{}
	for _, r := range all {
		if val[r.Measure] == nil {
			val[r.Measure] = map[string]float64{}
		}
		val[r.Measure][r.Side] = r.Value
		if !slices.Contains(src[r.Measure], r.Source) {
			src[r.Measure] = append(src[r.Measure], r.Source)
		}
	}
	fmt.Println("## Every measure of the speed goals in one run")
	fmt.Println()
	fmt.Print("The figures of this `make bench` run's programs, side by side (internal/bench/summary; the program that measured each is in the last column, and its own section below says how). ")
	fmt.Print("PW is Playwright MCP 0.0.83 as it ships (it waits 500 ms for the page to settle after an action), PW0 the same with --timeout-settle 0, its fastest; the programs that start one peer start PW0. CD is chrome-devtools-mcp 1.11.0, where a program measures it (shown, not in the ratios). ")
	fmt.Print("Each ratio is wasmwright's (or before's) value to the better of PW and PW0 on that row (to native Go for the compactor); a goal is met when the ratio is at most the goal (at least, for throughput). ")
	if *beforeRef != "" {
		fmt.Printf("*before* is %s, measured the same way in the same run.", *beforeRef)
	}
	fmt.Println()
	fmt.Println()
	fmt.Println("| measure | wasmwright | before | PW | PW0 | CD | native | wasmwright ratio | before ratio | goal | met | measured by |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|")
	met, missed, absent := 0, 0, 0
	for _, m := range table {
		v := val[m.key]
		peerKey := m.key
		if m.peerKey != "" {
			peerKey = m.peerKey
		}
		pv := val[peerKey]
		ref, refName := best(m, pv)
		if m.native {
			ref, refName = v[rows.Native], "native"
		}
		ww, before := v[rows.Wasmwright], v[rows.Before]
		goal, ok := "", "-"
		wr := ratio(ww, ref)
		judged := ww
		if !m.absolute {
			judged = 0
			if ww > 0 && ref > 0 {
				judged = ww / ref
			}
		}
		if m.goal > 0 {
			cmp := "at most"
			if m.higher {
				cmp = "at least"
			}
			unit := "x"
			if m.absolute {
				unit = "%"
			}
			goal = fmt.Sprintf("%s %g%s", cmp, m.goal, unit)
			switch {
			case judged <= 0:
				ok = "not measured"
				absent++
			case (!m.higher && judged <= m.goal) || (m.higher && judged >= m.goal):
				ok = "**met**"
				met++
			default:
				ok = "not met"
				missed++
			}
		}
		if refName != "" && wr != "-" {
			wr += " (" + refName + ")"
		}
		fmt.Printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", m.label, num(ww), num(before), num(pv[rows.PW]), num(pv[rows.PW0]), num(pv[rows.CD]), num(v[rows.Native]),
			wr, ratio(before, ref), goal, ok, strings.Join(src[m.key], ", "))
	}
	fmt.Println()
	fmt.Printf("Goals met in this run: %d; not met: %d; not measured: %d.\n\n", met, missed, absent)
}

// best is the better of the peers' values on a row (the lower, or the
// higher when higher is better) and its side's name.
func best(m measure, pv map[string]float64) (float64, string) {
	var v float64
	var name string
	for _, s := range []string{rows.PW, rows.PW0} {
		x := pv[s]
		if x <= 0 {
			continue
		}
		if v == 0 || (!m.higher && x < v) || (m.higher && x > v) {
			v, name = x, s
		}
	}
	return v, name
}

func ratio(a, b float64) string {
	if a <= 0 || b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", a/b)
}

func num(v float64) string {
	switch {
	case v <= 0:
		return "-"
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", v), ".0")
	default:
		return fmt.Sprintf("%.2f", v)
	}
}
