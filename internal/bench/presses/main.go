// Command presses times a key press (Tab by default) repeated on each
// corpus page that has a textbox, after typing into the first one, on one
// or more wasmwright builds and Playwright MCP with --timeout-settle 0
// (PW0), interleaved press by press (the side that goes first rotates):
// a closer look at the press row of ./browser, which presses once a page.
// Each Tab moves the focus on, through links with and without refs,
// frames and focus styles; every side walks the same page the same way.
//
//	go -C internal/bench run ./presses -n 30 -k 6 -ww build/wasmwright,/tmp/ww-main
//
// It prints each page's median per side, then the median of all presses
// and each side's ratio to the last (PW0 unless -nopeer). With
// WASMWRIGHT_SPANS set, ./spans reads where wasmwright's time went.
package main

import (
	"flag"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"time"

	"github.com/wasmwright/wasmwright/internal/bench/benchflag"
	"github.com/wasmwright/wasmwright/internal/bench/mcpclient"
	"github.com/wasmwright/wasmwright/internal/bench/measure"
	corpusdir "github.com/wasmwright/wasmwright/internal/corpus"
)

// elemLine is a snapshot line of a textbox: its name and ref.
var elemLine = regexp.MustCompile(`- (textbox|searchbox) "([^"\n]+)"[^\n]*?\[ref=([a-z0-9]+)\]`)

// side is one MCP server measured: its presses, all and this page's.
type side struct {
	name  string
	c     *mcpclient.Client
	peer  bool
	times []time.Duration
	page  []time.Duration
}

func main() {
	pagesOf := benchflag.Pages()
	n := flag.Int("n", 40, "pages to try")
	skipN := flag.Int("skip", 0, "pages to skip first")
	k := flag.Int("k", 6, "presses per page")
	key := flag.String("key", "Tab", "the key pressed")
	bin := benchflag.Wasmwright()
	bins := flag.String("ww", "", "comma-separated wasmwright binaries, each a side (instead of -wasmwright)")
	peerDir := benchflag.Peer()
	noPeer := flag.Bool("nopeer", false, "measure wasmwright only")
	show := flag.Bool("show", false, "print each side's first answer on each page (stderr)")
	only := flag.String("only", "", "comma-separated pages")
	flag.Parse()
	pagesDir := pagesOf()
	if *bins == "" {
		bins = bin
	}
	pages, err := corpusdir.Pages(pagesDir)
	if err != nil || len(pages) == 0 {
		fmt.Fprintf(os.Stderr, "no corpus pages at %s (%v): pass -pages\n", pagesDir, err)
		os.Exit(1)
	}
	if *only != "" {
		pages = strings.Split(*only, ",")
	}
	pages = pages[min(*skipN, len(pages)):]
	if len(pages) > *n {
		pages = pages[:*n]
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(pagesDir)))
	defer srv.Close()
	var sides []*side
	for i, b := range strings.Split(*bins, ",") {
		c, err := mcpclient.StartBuild(b, "", false)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer c.Close()
		sides = append(sides, &side{name: fmt.Sprintf("ww%d", i), c: c})
	}
	if !*noPeer {
		cli := benchflag.PeerCLI(*peerDir)
		pc, err := mcpclient.StartPeer(cli, false)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer pc.Close()
		sides = append(sides, &side{name: "PW0", c: pc, peer: true})
	}
	arg := func(s *side) string {
		if s.peer {
			return "target"
		}
		return "ref"
	}
	tool := func(s *side, t string) string {
		if s.peer {
			switch t {
			case "browser_press":
				return "browser_press_key"
			}
		}
		return t
	}
	for pi, p := range pages {
		u := srv.URL + "/" + p
		refs := make([]map[string]string, len(sides))
		ok := true
		var first string
		for i, s := range sides {
			s.page = nil
			nav, _, _, err := s.c.Tool("browser_navigate", map[string]any{"url": u})
			if err != nil {
				ok = false
				break
			}
			snap, _, _, err := s.c.Tool("browser_snapshot", map[string]any{})
			if err != nil {
				ok = false
				break
			}
			if !strings.Contains(snap, "[ref=") {
				snap = nav
			}
			refs[i] = map[string]string{}
			for _, m := range elemLine.FindAllStringSubmatch(snap, -1) {
				kk := "textbox " + m[2]
				if _, dup := refs[i][kk]; !dup {
					refs[i][kk] = m[3]
					if i == 0 && first == "" {
						first = kk
					}
				}
			}
		}
		if !ok || first == "" {
			continue
		}
		for i := range sides {
			if _, has := refs[i][first]; !has {
				ok = false
			}
		}
		if !ok {
			continue
		}
		for i, s := range sides {
			s.c.Tool("browser_type", map[string]any{arg(s): refs[i][first], "text": "wasmwright"})
		}
		for r := 0; r < *k; r++ {
			for j := range sides {
				s := sides[(j+r)%len(sides)]
				text, _, d, err := s.c.Tool(tool(s, "browser_press"), map[string]any{"key": *key})
				if err != nil {
					fmt.Fprintln(os.Stderr, s.name, p, err)
					continue
				}
				if *show && r == 0 {
					fmt.Fprintf(os.Stderr, "--- %s %s\n%s\n", s.name, p, text)
				}
				s.times = append(s.times, d)
				s.page = append(s.page, d)
			}
		}
		line := fmt.Sprintf("%3d %-28s", pi, p)
		for _, s := range sides {
			line += fmt.Sprintf(" %s %6.1f", s.name, ms(measure.Med(s.page)))
		}
		fmt.Println(line)
	}
	fmt.Println("median over all presses:")
	for _, s := range sides {
		fmt.Printf("  %s %6.1f ms (n %d) ratio to last %.2f\n", s.name, ms(measure.Med(s.times)), len(s.times), ms(measure.Med(s.times))/ms(measure.Med(sides[len(sides)-1].times)))
	}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
