// Command task runs an 11-step agent task on a small news site served on
// loopback (a header with a menu and a search box, a footer of links, a
// home page, articles, search results, a contact form) against wasmwright
// and Playwright MCP 0.0.83 (as it ships, PW, and with --timeout-settle 0,
// PW0), each an MCP server over stdio driven by the same client, and
// counts the bytes the agent's client receives and the time, call by
// call. The scripted agent finds each element's ref as an agent would:
// the last ref any answer so far gave that role and name.
//
//	go -C internal/bench run ./task [-rounds 3] [-wasmwright build/wasmwright]
package main

import (
	"flag"
	"fmt"
	"html"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/wasmwright/wasmwright/internal/bench/benchflag"
	"github.com/wasmwright/wasmwright/internal/bench/mcpclient"
	"github.com/wasmwright/wasmwright/internal/bench/measure"
	"github.com/wasmwright/wasmwright/internal/bench/rows"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

// step is one call of the task: a tool, its arguments, and the element it
// acts on ("role name", found among the refs the agent has read).
type step struct {
	what   string
	tool   string // wasmwright's name; peerTools maps it
	target string
	args   map[string]any
	want   string // text the site shows once the step is done (checked on the next snapshot-bearing answer)
}

var peerTools = map[string]string{"browser_back": "browser_navigate_back", "browser_press": "browser_press_key"}

func task(base string) []step {
	return []step{
		{what: "open the home page", tool: "browser_navigate", args: map[string]any{"url": base + "/"}, want: "Top stories"},
		{what: "open the second story", tool: "browser_click", target: `link "Harbour bridge reopens after repairs"`, want: "reopened on Tuesday"},
		{what: "read it", tool: "browser_snapshot", want: "reopened on Tuesday"},
		{what: "type a search", tool: "browser_type", target: `textbox "Search the site"`, args: map[string]any{"text": "rain"}},
		{what: "search", tool: "browser_click", target: `button "Search"`, want: "Results for"},
		{what: "open a result", tool: "browser_click", target: `link "Rain all week, forecasters say"`, want: "umbrella"},
		{what: "back to the results", tool: "browser_back", want: "Results for"},
		{what: "open the contact page", tool: "browser_click", target: `link "Contact us"`, want: "Write to the newsroom"},
		{what: "type a name", tool: "browser_type", target: `textbox "Your name"`, args: map[string]any{"text": "Ada"}},
		{what: "type a message", tool: "browser_type", target: `textbox "Message"`, args: map[string]any{"text": "A tip about the bridge."}},
		{what: "send", tool: "browser_click", target: `button "Send"`, want: "Thanks, Ada"},
	}
}

type side struct {
	name  string
	c     *mcpclient.Client
	arg   string // the element argument's name
	peer  bool
	bytes []int64 // per step, summed over rounds
	times [][]time.Duration
	fails int
	notes []string
}

func main() {
	root := wasmbuild.Root()
	rounds := flag.Int("rounds", 3, "times the task runs on each side (after one unmeasured run)")
	peerDir, bin := benchflag.Peer(), benchflag.Wasmwright()
	before := benchflag.BeforeFlags("before")
	verbose := flag.Bool("v", false, "log each call")
	benchflag.Unused() // (the site is the bench's own)
	flag.Parse()
	const title = "## An 11-step agent task on one site: wasmwright vs Playwright MCP 0.0.83, over MCP stdio"

	srv := httptest.NewServer(site())
	defer srv.Close()
	ws, err := os.MkdirTemp("", "ww-task-ws-")
	if err != nil {
		fail(err)
	}
	defer os.RemoveAll(ws)
	wc, err := mcpclient.StartWasmwright(*bin, mcpclient.BenchConfig(filepath.Join(root, "build", "cache"), "", ws, ""), *verbose)
	if err != nil {
		fmt.Printf("%s\n\nSkipped: wasmwright: %v\n", title, err)
		os.Exit(1)
	}
	defer wc.Close()
	sides := []*side{{name: "wasmwright", c: wc, arg: "ref"}}
	if *before.Bin != "" {
		bc, err := mcpclient.StartBuild(*before.Bin, *before.Plugins, *verbose)
		if err != nil {
			fmt.Printf("%s\n\nSkipped: wasmwright before: %v\n", title, err)
			os.Exit(1)
		}
		defer bc.Close()
		sides = append(sides, &side{name: "before", c: bc, arg: "ref"})
	}
	cli := benchflag.PeerCLI(*peerDir)
	if _, err := os.Stat(cli); err == nil {
		if pc, err := mcpclient.StartPeerDefault(cli, *verbose); err == nil {
			defer pc.Close()
			sides = append(sides, &side{name: "PW", c: pc, arg: "target", peer: true})
		}
		if pc, err := mcpclient.StartPeer(cli, *verbose); err == nil {
			defer pc.Close()
			sides = append(sides, &side{name: "PW0", c: pc, arg: "target", peer: true})
		}
	} else {
		fmt.Fprintf(os.Stderr, "Playwright MCP not found at %s: make peer\n", cli)
	}
	steps := task(srv.URL)
	for _, s := range sides {
		s.bytes = make([]int64, len(steps))
		s.times = make([][]time.Duration, len(steps))
		run(s, steps, false) // warm: first launch, first compile
	}
	for r := 0; r < *rounds; r++ {
		// Each run on a site of its own origin (another port), so that no
		// run starts on a page the last one left: every run is the task's
		// first on that site.
		rs := httptest.NewServer(site())
		for _, s := range sides { // interleaved, a whole task at a time
			run(s, task(rs.URL), true)
		}
		rs.Close()
	}
	report(title, sides, steps, *rounds)
}

var dump = os.Getenv("TASK_DUMP") != ""

var elemLine = regexp.MustCompile(`- (textbox|searchbox|button|link) "([^"\n]+)"[^\n]*?\[ref=([a-z0-9]+)\]`)

// run does the task once in a fresh browser session (the last step's
// page closed first), keeping the refs it reads as an agent would.
func run(s *side, steps []step, measure bool) {
	close := "browser_close"
	s.c.Tool(close, map[string]any{})
	refs := map[string]string{}
	for i, st := range steps {
		args := map[string]any{}
		for k, v := range st.args {
			args[k] = v
		}
		if st.target != "" {
			ref, ok := refs[st.target]
			if !ok {
				s.fails++
				s.notes = append(s.notes, fmt.Sprintf("step %d: no ref read for %s", i+1, st.target))
				continue
			}
			args[s.arg] = ref
			if s.peer {
				args["element"] = st.target
			}
		}
		tool := st.tool
		if s.peer && peerTools[tool] != "" {
			tool = peerTools[tool]
		}
		text, n, d, err := s.c.Tool(tool, args)
		if dump {
			fmt.Fprintf(os.Stderr, "==== %s step %d %s %v\n%s\n", s.name, i+1, tool, args, text)
		}
		if err == nil && strings.Contains(text, "- [Snapshot](") {
			// Playwright MCP saved the page's snapshot to a file and
			// answered with its name: the agent reads it, which costs
			// what a browser_snapshot call returns.
			more, n2, d2, err2 := s.c.Tool("browser_snapshot", map[string]any{})
			text, n, d, err = text+"\n"+more, n+n2, d+d2, err2
		}
		for _, m := range elemLine.FindAllStringSubmatch(text, -1) {
			role := m[1]
			if role == "searchbox" {
				role = "textbox"
			}
			refs[role+` "`+m[2]+`"`] = m[3]
		}
		if !measure {
			continue
		}
		s.bytes[i] += int64(n)
		s.times[i] = append(s.times[i], d)
		if err != nil {
			s.fails++
			s.notes = append(s.notes, fmt.Sprintf("step %d (%s): %v", i+1, st.what, err))
		} else if st.want != "" && !strings.Contains(text, st.want) && !strings.Contains(text, "unchanged since your last snapshot") {
			s.notes = append(s.notes, fmt.Sprintf("step %d (%s): the answer does not show %q", i+1, st.what, st.want))
		}
	}
}

func report(title string, sides []*side, steps []step, rounds int) {
	fmt.Println(title)
	fmt.Println()
	fmt.Printf("`go -C internal/bench run ./task -rounds %d`. A news site served on loopback by the bench (a header with a 12-link menu and a search box, a footer of 16 links, a home page of 8 stories, articles with related links, search results, a contact form), the same 11 steps on each side (navigate, click a story, snapshot, type a search, click Search, open a result, back, open the contact page from the footer, type twice, send), each side an MCP server over stdio started by the same client; %d measured runs a side after one unmeasured, interleaved a run at a time, each in a fresh browser session. The scripted agent uses, for each element, the last ref any answer gave it (on wasmwright, a page's chrome the agent read on the page before is one line, and its old refs are accepted). Bytes are the JSON-RPC responses the agent's client receives (mean per run); times are medians per step.\n\n", rounds, rounds)
	header := "| step |"
	sep := "|---|"
	for _, s := range sides {
		header += fmt.Sprintf(" %s bytes | %s ms |", s.name, s.name)
		sep += "---:|---:|"
	}
	fmt.Println(header)
	fmt.Println(sep)
	totals := make([]int64, len(sides))
	tsum := make([]time.Duration, len(sides))
	for i, st := range steps {
		row := fmt.Sprintf("| %d. %s |", i+1, st.what)
		for k, s := range sides {
			b := s.bytes[i] / int64(max(1, rounds))
			m := measure.Med(s.times[i])
			totals[k] += b
			tsum[k] += m
			row += fmt.Sprintf(" %d | %.0f |", b, ms(m))
		}
		fmt.Println(row)
	}
	row := "| **task** |"
	for k := range sides {
		row += fmt.Sprintf(" **%d** | **%.0f** |", totals[k], ms(tsum[k]))
	}
	fmt.Println(row)
	fmt.Println()
	for k, s := range sides {
		rows.Record("task", "task bytes", s.name, float64(totals[k]))
		rows.Record("task", "task time", s.name, ms(tsum[k]))
		if k == 0 {
			continue
		}
		fmt.Printf("wasmwright / %s: bytes **%.2f**, time **%.2f**.\n", s.name, float64(totals[0])/float64(max(1, totals[k])), float64(tsum[0])/float64(max(1, tsum[k])))
	}
	fmt.Println()
	for _, s := range sides {
		if len(s.notes) > 0 {
			sort.Strings(s.notes)
			fmt.Printf("%s: %d failed call(s); %s.\n", s.name, s.fails, strings.Join(s.notes, "; "))
		}
	}
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "task:", err)
	os.Exit(1)
}

// ---- the site

var sections = []string{"World", "Politics", "Business", "Technology", "Science", "Health", "Sport", "Culture", "Travel", "Weather", "Opinion", "Video"}

var stories = []struct{ slug, title, body string }{
	{"election", "Council election turnout hits a record", "Turnout in the council election reached 71 per cent, the highest since records began."},
	{"bridge", "Harbour bridge reopens after repairs", "The harbour bridge reopened on Tuesday after eight months of repairs to its deck and cables."},
	{"library", "City library extends its opening hours", "From next month the central library will open until ten at night on weekdays."},
	{"market", "Farmers market moves to the old station", "The weekly farmers market will move to the old station yard, with room for forty stalls."},
	{"rain", "Rain all week, forecasters say", "Forecasters expect rain every day this week; take an umbrella and allow extra time for travel."},
	{"museum", "Museum opens a gallery of maps", "A new gallery shows four centuries of maps of the coast and the harbour."},
	{"cycling", "New cycle lanes on the ring road", "Two kilometres of protected cycle lanes open on the ring road in the spring."},
	{"school", "School wins the regional science fair", "Pupils from the north school won the regional science fair with a tide-powered lamp."},
}

func page(title, main string) string {
	var b strings.Builder
	fmt.Fprintf(&b, `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>%s | The Harbour Herald</title></head><body>`, html.EscapeString(title))
	b.WriteString(`<header><a href="/">The Harbour Herald</a><nav aria-label="Sections"><ul>`)
	for _, s := range sections {
		fmt.Fprintf(&b, `<li><a href="/section/%s">%s</a></li>`, strings.ToLower(s), s)
	}
	b.WriteString(`</ul></nav><form action="/search" role="search"><input name="q" aria-label="Search the site"><button>Search</button></form><a href="/signin">Sign in</a></header>`)
	b.WriteString("<main>" + main + "</main>")
	b.WriteString(`<footer><nav aria-label="Footer">`)
	for _, col := range [][]string{{"About us", "Contact us", "Careers", "Advertise"}, {"Newsletters", "Podcasts", "Apps", "Archive"}, {"Terms of use", "Privacy", "Cookies", "Accessibility"}, {"Corrections", "Ethics", "Complaints", "Sitemap"}} {
		b.WriteString("<ul>")
		for _, l := range col {
			fmt.Fprintf(&b, `<li><a href="/%s">%s</a></li>`, strings.ReplaceAll(strings.ToLower(l), " ", "-"), l)
		}
		b.WriteString("</ul>")
	}
	b.WriteString(`</nav><p>© 2026 The Harbour Herald. All rights reserved.</p></footer></body></html>`)
	return b.String()
}

func teaser(i int) string {
	s := stories[i]
	return fmt.Sprintf(`<article><h2><a href="/story/%s">%s</a></h2><p>%s</p></article>`, s.slug, s.title, s.body)
}

func site() http.Handler {
	mux := http.NewServeMux()
	serve := func(w http.ResponseWriter, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}
	mux.HandleFunc("/{$}", func(w http.ResponseWriter, r *http.Request) {
		var m strings.Builder
		m.WriteString("<h1>Top stories</h1>")
		for i := range stories {
			m.WriteString(teaser(i))
		}
		serve(w, page("Top stories", m.String()))
	})
	mux.HandleFunc("/story/{slug}", func(w http.ResponseWriter, r *http.Request) {
		for i, s := range stories {
			if s.slug != r.PathValue("slug") {
				continue
			}
			var m strings.Builder
			fmt.Fprintf(&m, `<article><h1>%s</h1><p>By the newsroom, 1 December 2026</p>`, s.title)
			for k := 0; k < 5; k++ {
				fmt.Fprintf(&m, "<p>%s Paragraph %d goes on with the details, the people involved and what happens next.</p>", s.body, k+1)
			}
			m.WriteString(`</article><aside><h2>Related</h2><ul>`)
			for k := 1; k <= 3; k++ {
				o := stories[(i+k)%len(stories)]
				fmt.Fprintf(&m, `<li><a href="/story/%s">%s</a></li>`, o.slug, o.title)
			}
			m.WriteString(`</ul></aside>`)
			serve(w, page(s.title, m.String()))
			return
		}
		http.NotFound(w, r)
	})
	mux.HandleFunc("/search", func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query().Get("q")
		var m strings.Builder
		fmt.Fprintf(&m, "<h1>Results for %s</h1><ol>", html.EscapeString(q))
		for i, s := range stories {
			if strings.Contains(strings.ToLower(s.title+" "+s.body), strings.ToLower(q)) {
				fmt.Fprintf(&m, "<li>%s</li>", teaser(i))
			}
		}
		m.WriteString("</ol>")
		serve(w, page("Search", m.String()))
	})
	mux.HandleFunc("/contact-us", func(w http.ResponseWriter, r *http.Request) {
		serve(w, page("Contact us", `<h1>Write to the newsroom</h1><form method="post" action="/thanks"><label>Your name <input name="name"></label><label>Email <input name="email" type="email"></label><label>Message <textarea name="message"></textarea></label><button>Send</button></form>`))
	})
	mux.HandleFunc("/thanks", func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		serve(w, page("Thanks", fmt.Sprintf("<h1>Thanks, %s</h1><p>We read every message.</p>", html.EscapeString(r.FormValue("name")))))
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		serve(w, page("Section", "<h1>Section</h1><p>Stories of this section.</p>"))
	})
	return mux
}
