// Command browser benchmarks wasmwright's browser tools against Playwright
// MCP, both driven the same way: each is an MCP server over stdio (the
// built `build/wasmwright serve`, and Playwright MCP's cli.js), spoken to by
// the same JSON-RPC client code, on the same scripted task over saved web
// pages served on loopback: navigate, snapshot, type, click, read (a
// second snapshot). Both run the same Chromium; external hosts resolve to
// nothing for both, so only the loopback pages load.
//
//	go -C internal/bench run ./browser [-pages ../shared/corpus/pages] [-n 20 | -all]
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
	"flag"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/wasmwright/wasmwright/hostfuncs/browser"
	"github.com/wasmwright/wasmwright/internal/bench/benchflag"
	"github.com/wasmwright/wasmwright/internal/bench/mcpclient"
	"github.com/wasmwright/wasmwright/internal/bench/measure"
	"github.com/wasmwright/wasmwright/internal/bench/rows"
	corpusdir "github.com/wasmwright/wasmwright/internal/corpus"
)

// steps are the task's calls, in the order the tables show them. The
// task (its bytes and time) is navigate, snapshot, type, click, read;
// press and the snapshot-"none" calls are timed beside it.
var steps = []string{"navigate", "snapshot", "screenshot", "type", "click", "read", "press", "type none", "press none", "press again", "back"}

// inTask reports whether a step counts in the per-task cost.
func inTask(step string) bool {
	switch step {
	case "screenshot", "press", "type none", "press none", "press again", "back":
		return false
	}
	return true
}

// peerTools and wwTools name each step's tool.
var (
	wwTools   = map[string]string{"navigate": "browser_navigate", "snapshot": "browser_snapshot", "screenshot": "browser_screenshot", "type": "browser_type", "click": "browser_click", "read": "browser_snapshot", "press": "browser_press", "back": "browser_back"}
	peerTools = map[string]string{"navigate": "browser_navigate", "snapshot": "browser_snapshot", "screenshot": "browser_take_screenshot", "type": "browser_type", "click": "browser_click", "read": "browser_snapshot", "press": "browser_press_key", "back": "browser_navigate_back"}
	cdTools   = map[string]string{"navigate": "navigate_page", "snapshot": "take_snapshot", "screenshot": "take_screenshot", "type": "fill", "click": "click", "read": "take_snapshot", "press": "press_key", "back": "navigate_page"}
)

// cdArgs maps a step's arguments to chrome-devtools-mcp's: its page tools
// take pageId 1, its element argument is uid and fill's text is value.
// Its actions answer with no snapshot unless asked; where wasmwright's
// default answer carries the page (a diff), CD is asked for its snapshot
// (includeSnapshot), like with like; the "none" steps ask for none.
func cdArgs(step string, a map[string]any) map[string]any {
	out := map[string]any{"pageId": 1}
	for k, v := range a {
		switch k {
		case "snapshot":
		case "text":
			out["value"] = v
		default:
			out[k] = v
		}
	}
	switch step {
	case "navigate":
		out["type"] = "url"
	case "back":
		out["type"] = "back"
	case "type", "click", "press", "press again":
		if a["snapshot"] != "none" {
			out["includeSnapshot"] = true
		}
	}
	return out
}

// side is one system under test: its MCP client and what it measured.
type side struct {
	name   string
	c      *mcpclient.Client
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
	// modes: the side takes snapshot "none" (wasmwright since issue 13)
	modes bool
	dead  []time.Duration // clicks on a form posting to a dead port
	// args maps a step's arguments to the side's (nil: as they are);
	// elems reads the elements of its snapshot text (nil: refs).
	args  func(step string, a map[string]any) map[string]any
	elems func(snap string) (order []string, refs map[string]string)
}

// tool calls step's tool with the side's arguments.
func (s *side) tool(step string, a map[string]any) (string, int, time.Duration, error) {
	if s.args != nil {
		a = s.args(step, a)
	}
	return s.c.Tool(s.tools[strings.TrimSuffix(strings.TrimSuffix(step, " none"), " again")], a)
}

// snapElems reads a snapshot's elements the side's way.
func (s *side) snapElems(snap string) ([]string, map[string]string) {
	if s.elems != nil {
		return s.elems(snap)
	}
	return elems(snap)
}

func main() {
	pagesOf := benchflag.Pages()
	n := flag.Int("n", 20, "pages to run")
	all := flag.Bool("all", false, "run every page")
	peerDir, bin := benchflag.Peer(), benchflag.Wasmwright()
	before := benchflag.BeforeFlags("before")
	beforeRef := flag.String("before-ref", "", "the commit -before was built from, and what it was, for the text")
	verbose := flag.Bool("v", false, "log each call")
	skip := flag.String("skip", "", "comma-separated peers not to run (PW, PW0, CD): a shorter run of the rows that matter")
	flag.Parse()
	skipped := map[string]bool{}
	for _, n := range strings.Split(*skip, ",") {
		skipped[strings.TrimSpace(n)] = true
	}
	pagesDir := pagesOf()
	const title = "## Browser: wasmwright vs Playwright MCP 0.0.83 and chrome-devtools-mcp 1.11.0, all over MCP stdio"

	pages, err := corpusdir.Pages(pagesDir)
	if err != nil || len(pages) == 0 {
		fmt.Printf("%s\n\nSkipped: no corpus pages at %s (%v). Pass -pages with a folder of .html files.\n", title, pagesDir, err)
		return
	}
	if !*all && len(pages) > *n {
		pages = pages[:*n]
	}
	if err := browser.Preflight(browser.Config{}); err != nil {
		fmt.Printf("%s\n\nSkipped: %v\n", title, err)
		os.Exit(1)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(pagesDir)))
	defer srv.Close()

	wc, err := mcpclient.StartBuild(*bin, "", *verbose)
	if err != nil {
		fmt.Fprintln(os.Stderr, "wasmwright:", err)
		os.Exit(1)
	}
	defer wc.Close()
	sides := []*side{{name: "wasmwright", c: wc, arg: "ref", tools: wwTools, modes: true}}
	if *before.Bin != "" {
		bc, err := mcpclient.StartBuild(*before.Bin, *before.Plugins, *verbose)
		if err != nil {
			fmt.Fprintln(os.Stderr, "wasmwright before:", err)
			os.Exit(1)
		}
		defer bc.Close()
		sides = append(sides, &side{name: "before", c: bc, arg: "ref", tools: wwTools, modes: true})
	}
	cli := benchflag.PeerCLI(*peerDir)
	if _, err := os.Stat(cli); err == nil {
		// PW: Playwright MCP as it ships (it waits for the page to settle
		// after each action); PW0, last, with --timeout-settle 0, its
		// fastest. Ratios are to the faster of the two, call by call.
		if skipped["PW"] {
		} else if pc, err := mcpclient.StartPeerDefault(cli, *verbose); err != nil {
			fmt.Fprintln(os.Stderr, "playwright mcp:", err)
		} else {
			defer pc.Close()
			sides = append(sides, &side{name: "PW", c: pc, arg: "target", tools: peerTools})
		}
		if skipped["PW0"] {
		} else if pc, err := mcpclient.StartPeer(cli, *verbose); err != nil {
			fmt.Fprintln(os.Stderr, "playwright mcp:", err)
		} else {
			defer pc.Close()
			sides = append(sides, &side{name: "PW0", c: pc, arg: "target", tools: peerTools})
		}
	} else {
		fmt.Fprintf(os.Stderr, "Playwright MCP not found at %s: make peer\n", cli)
	}
	// CD: chrome-devtools-mcp, the second peer, after the PW sides.
	if bin := mcpclient.CDBin(*peerDir); skipped["CD"] {
	} else if fileExists(bin) {
		if cc, err := mcpclient.StartCD(bin, *verbose); err != nil {
			fmt.Fprintln(os.Stderr, "chrome-devtools-mcp:", err)
		} else {
			defer cc.Close()
			sides = append(sides, &side{name: "CD", c: cc, arg: "uid", tools: cdTools, modes: true, args: cdArgs, elems: cdElems})
		}
	} else {
		fmt.Fprintf(os.Stderr, "chrome-devtools-mcp not found at %s: make peer\n", bin)
	}
	for _, s := range sides {
		s.times, s.failed = map[string][]time.Duration{}, map[string]int{}
	}

	// Warm both (first launch, first compile) on the first page, unmeasured.
	runTask(sides, srv.URL+"/"+pages[0], false, 0)
	shared := 0
	for k, p := range pages {
		if runTask(sides, srv.URL+"/"+p, true, k) {
			shared++
		}
	}

	var peer, pwDefault, cd *side
	var ours []*side // wasmwright (and before), then CD: the sides with a ratio to PW
	for _, s := range sides {
		switch s.name {
		case "PW0":
			peer = s
		case "PW":
			pwDefault = s
		case "CD":
			cd = s
		}
	}
	for _, s := range sides {
		if s.name != "PW" && s.name != "PW0" {
			ours = append(ours, s)
		}
	}
	ww := sides[0]
	fmt.Printf("%s\n\n", title)
	fmt.Printf("%d pages of %s served on loopback. Each side is an MCP server over stdio driven by the same client code: `build/wasmwright serve` (browser plugin, egress proxy, detect/compact/mask pipeline) and Playwright MCP, as it ships (PW: it waits for the page to settle after an action) and with --timeout-settle 0 (PW0), same Chromium (%s), external hosts unresolvable. One scripted task per page: navigate, snapshot, type into the first textbox, click the first button (else link), read (a second snapshot); type and click act on the same element (role and name) on both sides, found in both snapshots (%d of %d pages had a shared textbox or clickable). Beside the task, a screenshot (the tool's defaults) after the snapshot, press Tab after the type, and on wasmwright type and press again with snapshot \"none\", then press Shift (a key that changes nothing: \"press again\"); back after the read. Playwright MCP's press (other than Enter) and type (not slowly, no submit) return no snapshot; wasmwright's return the changes since the last snapshot. CD is chrome-devtools-mcp 1.11.0 (--headless --isolated, same Chromium and host rules; its tools navigate_page, take_snapshot, take_screenshot, fill, click and press_key by uid, navigate_page type back, all with pageId 1): its actions answer with no snapshot unless asked, so, like with like, its type, click, press and press again ask for one (includeSnapshot) where wasmwright's default answer carries the page's changes, and its \"none\" rows ask for none. Warm medians of successful calls in ms; failures counted per call; each ratio is against the faster of PW and PW0 on the same call (for the \"none\" and \"again\" rows, their type and press, which have no such mode); the last column is wasmwright's median to CD's on the same row.\n\n",
		len(pages), filepath.Base(pagesDir), mcpclient.Chromium(), shared, len(pages))
	if *before.Bin != "" {
		fmt.Printf("*before* is wasmwright built from %s, run the same way in the same run.\n\n", *beforeRef)
	}
	head, rule := "| call |", "|---|"
	for _, s := range sides {
		head += fmt.Sprintf(" %s (ms) | failed |", s.name)
		rule += "---:|---:|"
	}
	if peer != nil {
		for _, s := range ours {
			head += fmt.Sprintf(" %s / faster PW |", s.name)
			rule += "---:|"
		}
	}
	if cd != nil {
		head += " wasmwright / CD |"
		rule += "---:|"
	}
	fmt.Println(head + " n |")
	fmt.Println(rule + "---:|")
	for _, st := range steps {
		row := "| " + st + " |"
		for _, s := range sides {
			if len(s.times[st])+s.failed[st] == 0 {
				row += " - | - |"
				continue
			}
			row += fmt.Sprintf(" %s | %d |", msStr(measure.Med(s.times[st])), s.failed[st])
			rows.Record("browser", st, s.name, float64(measure.Med(s.times[st]))/float64(time.Millisecond))
		}
		if peer != nil {
			ref := strings.TrimSuffix(strings.TrimSuffix(st, " none"), " again")
			faster := measure.Med(peer.times[ref])
			if pwDefault != nil {
				if d := measure.Med(pwDefault.times[ref]); d > 0 && (faster == 0 || d < faster) {
					faster = d
				}
			}
			for _, s := range ours {
				row += " " + ratio(measure.Med(s.times[st]), faster) + " |"
			}
		}
		if cd != nil {
			row += " " + ratio(measure.Med(ww.times[st]), measure.Med(cd.times[st])) + " |"
		}
		fmt.Printf("%s %d |\n", row, len(ww.times[st])+ww.failed[st])
	}
	fmt.Println()
	fmt.Println("Per-task cost (navigate, snapshot, type, click, read), summed over the measured pages (every call, failed ones included; bytes are the JSON-RPC responses the agent's client receives):")
	fmt.Println()
	fmt.Println("| | calls | failed | bytes received | time (s) | bytes per task | ms per task | bytes / PW0 | time / PW0 |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	for _, s := range sides {
		f := 0
		for st, v := range s.failed {
			if inTask(st) {
				f += v
			}
		}
		rb, rt := "-", "-"
		if peer != nil && peer.bytes > 0 && peer.total > 0 {
			rb = fmt.Sprintf("%.2f", float64(s.bytes)/float64(peer.bytes))
			rt = ratio(s.total, peer.total)
		}
		fmt.Printf("| %s | %d | %d | %d | %.1f | %d | %.0f | %s | %s |\n", s.name, s.calls, f, s.bytes, s.total.Seconds(),
			s.bytes/int64(len(pages)), float64(s.total.Milliseconds())/float64(len(pages)), rb, rt)
	}
	fmt.Println()
	fmt.Printf("wasmwright's actions take snapshot \"diff\" by default: %d of its %d type and click answers carried the changes since the last snapshot, the others the whole snapshot (a navigation, or a diff no shorter than the page).\n\n", ww.diffs, ww.actions)
	if peer != nil && len(peer.snaps) > 0 {
		fmt.Printf("Page snapshot size (median characters of the text content of the first answer that carried the page's snapshot: the navigate's or the snapshot's): wasmwright %d, Playwright MCP %d, ratio %.2f.\n\n",
			measure.Med(ww.snaps), measure.Med(peer.snaps), float64(measure.Med(ww.snaps))/float64(max(1, measure.Med(peer.snaps))))
	} else {
		fmt.Printf("Page snapshot size (median characters of the text content of the first answer that carried the page's snapshot: the navigate's or the snapshot's): wasmwright %d.\n\n", measure.Med(ww.snaps))
	}
	deadFormClicks(sides, peer)
	fmt.Print("Memory (PSS of each server's process tree, one session each, after the run):")
	for i, s := range sides {
		sep := ","
		if i == len(sides)-1 {
			sep = "."
		}
		fmt.Printf(" %s %s%s", s.name, mcpclient.MB(mcpclient.PSS(s.c.Pids())), sep)
	}
	fmt.Println()
}

// ratio is a/b to two places, or "-" when either is missing.
func ratio(a, b time.Duration) string {
	if a <= 0 || b <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", float64(a)/float64(b))
}

// deadFormClicks times, on every side, a click on a submit button whose
// form posts to a loopback port nothing listens on (an error on one side,
// an error page on the other: either way the call's time), and prints
// median and p90.
func deadFormClicks(sides []*side, peer *side) {
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
	fmt.Printf("Click on a submit button whose form posts to a loopback port nothing listens on (%d clicks each, after a navigate, by a ref of the page's snapshot; the first unmeasured):\n\n", n)
	fmt.Println("| | median (ms) | p90 (ms) | p90 / PW MCP |")
	fmt.Println("|---|---:|---:|---:|")
	p90 := map[*side]time.Duration{}
	for _, s := range sides {
		for i := 0; i <= n; i++ {
			snap, _, _, err := s.tool("navigate", map[string]any{"url": srv.URL + "/"})
			if err != nil {
				continue
			}
			if _, refs := s.snapElems(snap); len(refs) == 0 {
				if snap, _, _, err = s.tool("snapshot", map[string]any{}); err != nil {
					continue
				}
			}
			_, refs := s.snapElems(snap)
			ref, ok := refs[`button Send`]
			if !ok {
				continue
			}
			_, _, d, _ := s.tool("click", map[string]any{s.arg: ref})
			if i > 0 {
				s.dead = append(s.dead, d)
			}
		}
		p90[s] = measure.Quantile(s.dead, 9, 10)
	}
	for _, s := range sides {
		r := "-"
		if peer != nil {
			r = ratio(p90[s], p90[peer])
		}
		fmt.Printf("| %s | %s | %s | %s |\n", s.name, msStr(measure.Med(s.dead)), msStr(p90[s]), r)
	}
	fmt.Println()
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// elemLine is a snapshot line naming an element: role, name, ref.
var elemLine = regexp.MustCompile(`- (textbox|searchbox|button|link) "([^"\n]+)"[^\n]*?\[ref=([a-z0-9]+)\]`)

// cdElemLine is such a line in chrome-devtools-mcp's snapshot: uid, role,
// name.
var cdElemLine = regexp.MustCompile(`uid=(\S+) (textbox|searchbox|button|link) "([^"\n]+)"`)

// elems maps "role name" to the first ref a snapshot gives it, in order.
func elems(snap string) (order []string, refs map[string]string) {
	return elemsOf(elemLine.FindAllStringSubmatch(snap, -1), 1, 2, 3)
}

// cdElems is elems for chrome-devtools-mcp's snapshot.
func cdElems(snap string) (order []string, refs map[string]string) {
	return elemsOf(cdElemLine.FindAllStringSubmatch(snap, -1), 2, 3, 1)
}

// elemsOf maps the matches' "role name" (submatches ro and na) to their
// first ref (submatch re), in order.
func elemsOf(ms [][]string, ro, na, re int) (order []string, refs map[string]string) {
	refs = map[string]string{}
	for _, m := range ms {
		m = []string{m[0], m[ro], m[na], m[re]}
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
//
// The sides take their turns from side rot (mod their number), so that on
// every page another side goes first: a call sent right after another
// side's leaves that side's page still loading on the same cores
// (Playwright MCP answers back at the commit), and a fixed order put that
// cost on the same side's calls at every page.
func runTask(sides []*side, u string, measure bool, rot int) bool {
	turns := make([]int, len(sides))
	for j := range turns {
		turns[j] = (j + rot) % len(sides)
	}
	call := func(s *side, step string, args map[string]any) (string, error) {
		text, n, d, err := s.tool(step, args)
		if !measure {
			return text, err
		}
		if inTask(step) {
			s.calls++
			s.bytes += int64(n)
			s.total += d
		}
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
	for _, i := range turns {
		s := sides[i]
		snaps[i] = map[string]string{}
		page, err := call(s, "navigate", map[string]any{"url": u})
		if err != nil {
			continue
		}
		// The refs are those of the latest snapshot: the snapshot's when
		// it sent one, else the navigate's (wasmwright's navigate carries
		// the page and a snapshot the agent already has is one line;
		// Playwright MCP's navigate carries no snapshot).
		snap, err := call(s, "snapshot", map[string]any{})
		if err != nil {
			continue
		}
		if _, r := s.snapElems(snap); len(r) == 0 {
			snap = page
		}
		if measure {
			s.snaps = append(s.snaps, len(snap))
		}
		call(s, "screenshot", map[string]any{})
		o, refs := s.snapElems(snap)
		snaps[i] = refs
		if i == 0 {
			order = o
		}
	}
	tb, cl := sharedTargets(snaps, order)
	for _, i := range turns {
		s := sides[i]
		if tb != "" {
			ref := snaps[i][tb]
			call(s, "type", map[string]any{s.arg: ref, "text": "wasmwright"})
			call(s, "press", map[string]any{"key": "Tab"})
			if s.modes {
				call(s, "type none", map[string]any{s.arg: ref, "text": "wasmwright", "snapshot": "none"})
				call(s, "press none", map[string]any{"key": "Tab", "snapshot": "none"})
				// Shift changes nothing on the page: the default answer is
				// that the page is unchanged.
				call(s, "press again", map[string]any{"key": "Shift"})
			}
		}
		if cl != "" {
			call(s, "click", map[string]any{s.arg: snaps[i][cl]})
		}
		call(s, "read", map[string]any{})
		call(s, "back", map[string]any{})
	}
	return tb != "" || cl != ""
}

// ---- the servers: MCP servers over stdio (internal/bench/mcpclient)

// ---- helpers

func msStr(d time.Duration) string {
	if d == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", float64(d.Microseconds())/1000)
}
