// Command network measures the egress proxy: the time to navigate the
// corpus pages served on loopback through a session's proxy, as a ratio
// against the same browser's direct contexts in the same run (alternating,
// so both see the same machine load), and how many hostile URLs of the
// corpus were tried and refused. It prints a markdown section.
//
//	go -C internal/bench run ./network [-corpus ../shared/corpus]
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/capability"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/hostfuncs/browser"
	"github.com/wasmwright/wasmwright/hostfuncs/network"
	"github.com/wasmwright/wasmwright/internal/bench/measure"
	corpusdir "github.com/wasmwright/wasmwright/internal/corpus"
)

func main() {
	corpus := flag.String("corpus", corpusdir.Dir(), "the shared corpus (pages/, ssrf/); default ../shared/corpus beside the repository, or $WASMWRIGHT_CORPUS")
	n := flag.Int("pages", 40, "at most this many corpus pages")
	rounds := flag.Int("rounds", 3, "timed navigations of each page per mode (after one warm-up)")
	flag.Parse()
	const title = "## Egress proxy (hostfuncs/network)"
	pagesDir := filepath.Join(*corpus, "pages")
	if _, err := os.Stat(pagesDir); err != nil {
		fmt.Printf("%s\n\nSkipped: no corpus at %s (pass -corpus DIR holding pages/ and ssrf/).\n", title, *corpus)
		return
	}
	if err := browser.Preflight(browser.Config{}); err != nil {
		fmt.Printf("%s\n\nSkipped: Chromium or the Playwright driver is missing (make deps): %v\n", title, err)
		return
	}
	pages, _ := corpusdir.Pages(pagesDir)
	pages = pages[:min(len(pages), *n)]
	// Same-origin only (CSP), so both modes load exactly the same bytes
	// and neither waits on the closed internet.
	fs := http.FileServer(http.Dir(pagesDir))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Security-Policy", "default-src 'self' 'unsafe-inline' data:")
		fs.ServeHTTP(w, r)
	}))
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port

	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	nw, err := network.New(network.Options{Logger: log, DialTimeout: 2 * time.Second,
		Policies: map[string]network.Policy{"proxied": {AllowedHosts: []string{fmt.Sprintf("127.0.0.1:%d", port)}}}})
	if err != nil {
		fail(err)
	}
	defer nw.Close(context.Background())
	// Two browser services of the same Chromium build: under a network
	// service a context without a proxy is given a dead one (fail closed),
	// so the direct peer is a service of its own, without one.
	bcfg := browser.Config{Headed: "false", WorkspaceDir: filepath.Join(os.TempDir(), "ww-bench-network"),
		NavigationTimeout: browser.Duration(10 * time.Second)}
	proxied, err := browser.New(bcfg, browser.Options{Logger: log, SessionProxy: nw.OpenSessionProxy})
	if err != nil {
		fail(err)
	}
	direct, err := browser.New(bcfg, browser.Options{Logger: log})
	if err != nil {
		fail(err)
	}
	services := map[string]*browser.Service{"direct": direct, "proxied": proxied}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		direct.Close(ctx)
		proxied.Close(ctx)
	}()

	times := map[string][]time.Duration{}
	failed := map[string]int{}
	for round := 0; round <= *rounds; round++ {
		for _, pg := range pages {
			for _, mode := range []string{"direct", "proxied"} {
				t0 := time.Now()
				_, aerr := navigate(services[mode], mode, "bench", srv.URL+"/"+pg)
				d := time.Since(t0)
				if aerr != nil {
					failed[mode]++
					continue
				}
				if round > 0 {
					times[mode] = append(times[mode], d)
				}
			}
		}
	}
	nw.TakeBlocked("proxied", "bench")

	hostile := hostileURLs(filepath.Join(*corpus, "ssrf"))
	_, dials0 := nw.Stats()
	refused, byProxy, before := 0, 0, 0
	var notRefused []string
	for _, u := range hostile {
		_, aerr := navigate(proxied, "proxied", "hostile", u)
		bl := nw.TakeBlocked("proxied", "hostile")
		switch {
		case len(bl) > 0:
			refused++
			byProxy++
		case aerr != nil && (aerr.Code == abi.CodeRefused || aerr.Code == abi.CodeInputInvalid ||
			strings.Contains(aerr.Message, "ERR_UNSAFE_PORT") || strings.Contains(aerr.Message, "invalid URL")):
			refused++
			before++
		default:
			notRefused = append(notRefused, u)
		}
	}
	_, dials := nw.Stats()

	md, mp := measure.Pct(times["direct"], 0.5), measure.Pct(times["proxied"], 0.5)
	fmt.Printf("%s\n\n", title)
	fmt.Printf("Navigate (no snapshot) of %d corpus pages served on loopback, %d timed rounds after a warm-up, direct and proxied contexts alternating, each in a browser service of its own (same Chromium build). Medians; trust the ratio, not the milliseconds (shared 2-core machine).\n\n", len(pages), *rounds)
	fmt.Println("| mode | navigations | median | p90 | failed |")
	fmt.Println("|---|---|---|---|---|")
	for _, m := range []string{"direct", "proxied"} {
		fmt.Printf("| %s | %d | %s | %s | %d |\n", m, len(times[m]), ms(measure.Pct(times[m], 0.5)), ms(measure.Pct(times[m], 0.9)), failed[m])
	}
	if md > 0 {
		fmt.Printf("\nProxy overhead: **%.2fx** the direct median (%+.1f ms per navigation).\n", float64(mp)/float64(md), float64(mp-md)/1e6)
	}
	fmt.Printf("\nHostile URLs (corpus ssrf tables and extra cases) tried for navigation through the proxy: **%d**, refused **%d** (%d by the proxy, %d before any request: the URL check or Chromium itself); connections made for them: %d.\n",
		len(hostile), refused, byProxy, before, dials-dials0)
	for _, u := range notRefused {
		fmt.Printf("- NOT refused: `%s`\n", u)
	}
}

func navigate(b *browser.Service, personality, session, u string) (abi.BrowserNavigateResponse, *abi.Error) {
	var out abi.BrowserNavigateResponse
	c := hostfuncs.NewCaller(hostfuncs.CallerInfo{Personality: personality, Session: session, Plugin: "bench",
		Grants: capability.Set{capability.BrowserRead: true, capability.BrowserAct: true}})
	for _, f := range b.HostFuncs() {
		if f.Name == abi.HostBrowserNavigate {
			in, _ := json.Marshal(abi.BrowserNavigateRequest{URL: u, NoSnapshot: true})
			raw, err := f.Fn(hostfuncs.WithCaller(context.Background(), c), "bench", in)
			if err != nil {
				return out, abi.AsError(err)
			}
			json.Unmarshal(raw, &out)
			return out, nil
		}
	}
	return out, abi.Errorf(abi.CodeNotAvailable, "no navigate")
}

func hostileURLs(dir string) []string {
	out := []string{
		"http://169.254.169.254/latest/meta-data/", "http://metadata.google.internal/", "http://[fd00:ec2::254]/",
		"http://localhost/", "http://0x7f000001/", "http://2130706433/", "http://[::ffff:127.0.0.1]/",
		"http://[64:ff9b::7f00:1]/", "http://user:pass@127.0.0.1/", "https://127.0.0.1/", "http://10.0.0.1/",
		"file:///etc/passwd", "data:text/html,x",
	}
	for _, f := range []string{"code.dny.dev-ssrf-denied-urls.txt", "doyensec-safeurl-blocked-urls.txt"} {
		fh, err := os.Open(filepath.Join(dir, f))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
				out = append(out, l)
			}
		}
		fh.Close()
	}
	return out
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d)/1e6) }

func fail(err error) {
	fmt.Fprintln(os.Stderr, "bench network:", err)
	os.Exit(1)
}
