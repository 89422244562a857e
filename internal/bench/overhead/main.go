// Command overhead measures what the result pipeline (detect, compact, mask)
// adds to a browser call: navigate + snapshot over corpus pages served on
// loopback, through a host with the three hooks, timing inside each call
// the tool (plugin + browser) and the pipeline (host.Options.OnCall). A
// share measured inside the call is immune to the machine's noise between
// calls, which swamps an A/B of two hosts. It prints a markdown section.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/internal/bench/benchflag"
	"github.com/wasmwright/wasmwright/internal/bench/mcpclient"
	"github.com/wasmwright/wasmwright/internal/bench/measure"
	"github.com/wasmwright/wasmwright/internal/bench/rows"
	corpusdir "github.com/wasmwright/wasmwright/internal/corpus"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

func main() {
	pagesOf := benchflag.Pages()
	n := flag.Int("n", 30, "pages")
	rounds := flag.Int("rounds", 3, "timed rounds after one warm-up round")
	flag.Parse()
	pagesDir := pagesOf()
	pages, err := corpusdir.Pages(pagesDir)
	if err != nil {
		fmt.Printf("## Pipeline overhead\n\nSkipped: no corpus pages at %s (%v).\n", pagesDir, err)
		return
	}
	if len(pages) > *n {
		pages = pages[:*n]
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(pagesDir)))
	defer srv.Close()
	plugins := buildPlugins()
	var mu sync.Mutex
	var last []host.CallStats
	h := start(plugins, func(st host.CallStats) {
		mu.Lock()
		last = append(last, st)
		mu.Unlock()
	})
	defer h.Close(context.Background())

	type sample struct{ total, pipe time.Duration }
	run := func(session string) (out []sample, walls int) {
		for round := 0; round <= *rounds; round++ {
			for _, p := range pages {
				mu.Lock()
				last = last[:0]
				mu.Unlock()
				// A URL of its own per round and session: the host's cache
				// of compacted snapshots is keyed by URL, so no timed call
				// reuses a compaction from the warm-up or another round
				// (the snapshot right after the navigation still may, as an
				// agent's would).
				u := fmt.Sprintf("%s/%s?round=%d&session=%s", srv.URL, p, round, session)
				if err := navSnap(h, session, u); err != nil {
					if strings.Contains(err.Error(), "bot_wall") {
						walls++
					}
					continue
				}
				if round == 0 {
					continue
				}
				var sm sample
				mu.Lock()
				for _, st := range last {
					sm.total += st.ToolTime + st.Pipeline
					sm.pipe += st.Pipeline
				}
				mu.Unlock()
				out = append(out, sm)
			}
		}
		return
	}
	// Session "plain" holds no secret: the masker has nothing to hide and is
	// skipped. Session "secret" holds one, so the masker runs on every
	// result.
	plain, walls := run("plain")
	h.Secrets().Add("bench", "secret", "s3cret-value-for-masking")
	secret, _ := run("secret")
	fmt.Println("## Pipeline overhead")
	fmt.Println()
	fmt.Printf("`go -C internal/bench run ./overhead` (%d pages of corpus/pages on loopback, %d timed rounds after a warm-up, each page under a URL of its own per round so every timed navigation is compacted cold). browser_navigate then browser_snapshot through a host whose personality has detect (blockdetect), compact (snapcompact) and mask (secretmask); each call's time is split, inside the call, into the tool (plugin and browser) and the pipeline (the hooks and the host's secret check). Detect and compact run side by side; a compacted snapshot is reused when the next snapshot is identical; mask runs only in sessions that hold a secret value.\n\n", len(pages), *rounds)
	fmt.Println("| session | navigate + snapshot, median | pipeline, median | pipeline share of all time | median share per page |")
	fmt.Println("|---|---|---|---|---|")
	for _, r := range []struct {
		name  string
		s     []sample
		plain bool
	}{{"no secret held (mask skipped)", plain, true}, {"a secret held (mask on every result)", secret, false}} {
		var tot, pipe []time.Duration
		var shares []float64
		var st, sp time.Duration
		for _, x := range r.s {
			tot, pipe = append(tot, x.total), append(pipe, x.pipe)
			shares = append(shares, float64(x.pipe)/float64(x.total))
			st, sp = st+x.total, sp+x.pipe
		}
		sort.Float64s(shares)
		fmt.Printf("| %s | %.1f ms | %.1f ms | **%.1f%%** | %.1f%% |\n", r.name, ms(measure.Med(tot)), ms(measure.Med(pipe)), 100*float64(sp)/float64(st), 100*shares[len(shares)/2])
		if r.plain { // the summary's row: the pipeline a navigate pays in every session
			rows.Record("overhead", "plugins' share of navigate + snapshot, %", rows.Wasmwright, 100*float64(sp)/float64(st))
		}
	}
	fmt.Println()
	fmt.Println("Goal: under 5% of the calls' time, in aggregate (the share of all time: pipeline time summed over total time summed, so long pages weigh as much as they cost).")
	if walls > 0 {
		fmt.Printf(" %d navigations were failed as bot walls by the detector.\n", walls)
	}
	fmt.Println()
}

func navSnap(h *host.Host, session, u string) error {
	a, _ := json.Marshal(map[string]string{"url": u})
	if _, err := h.Call(context.Background(), host.Request{Personality: "bench", Session: session, Tool: "browser_navigate", Args: a}); err != nil {
		return err
	}
	if _, err := h.Call(context.Background(), host.Request{Personality: "bench", Session: session, Tool: "browser_snapshot", Args: []byte(`{}`)}); err != nil {
		return err
	}
	return nil
}

func buildPlugins() string {
	dir, err := os.MkdirTemp("", "ww-overhead-")
	if err != nil {
		log.Fatal(err)
	}
	if _, err := wasmbuild.Install(dir, map[string]string{"browser": "plugins/browser", "blockdetect": "plugins/blockdetect",
		"snapcompact": "plugins/snapcompact", "secretmask": "plugins/secretmask"}); err != nil {
		log.Fatal(err)
	}
	return dir
}

// start runs the benchmarks' setup (mcpclient.Bench: the browser tools
// with detect, compact and mask, egress to loopback only) in this
// process, on the plugins built in the folder plugins, telling onCall
// each call's split.
func start(plugins string, onCall func(host.CallStats)) *host.Host {
	conf := mcpclient.Bench{CacheDir: filepath.Join(wasmbuild.Root(), "build", "cache"), PluginsDir: plugins, Workspace: filepath.Join(plugins, "workspace")}.Config()
	cfg, err := host.ParseConfig(conf, "bench", plugins)
	if err != nil {
		log.Fatal(err)
	}
	var w io.Writer = io.Discard
	if os.Getenv("WW_BENCH_DEBUG") != "" {
		w = os.Stderr
	}
	h, err := host.New(context.Background(), cfg, host.Options{Logger: slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug})), OnCall: onCall})
	if err != nil {
		log.Fatal(err)
	}
	return h
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
