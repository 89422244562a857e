package main

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/internal/bench/measure"
)

// costSection measures what the detector costs a navigation (issue 23):
// each corpus page's detect hook through the sandbox (median of calls),
// per 100 KB of its HTML, and as a share of the time the same page takes
// to load in Chromium from loopback, timed in this run. It prints a
// markdown subsection.
func costSection(h *hooks, pages []rendered, docs, htmlOnly []doc, calls int, logf func(string, ...any)) {
	load0 := loadNow()
	nav, err := navigateTimes(docs, logf)
	if err != nil {
		fmt.Printf("### Bot-wall detection: cost\n\nSkipped: %v\n\n", err)
		return
	}
	type row struct {
		name             string
		kb               float64
		detect, load     float64 // ms
		per100, sharePct float64
	}
	var rows []row
	skipped := 0
	for i, p := range pages {
		if p.HTML == "" { // its render failed (a load past 15 s): nothing to time
			skipped++
			continue
		}
		var ds []float64
		for range calls {
			t0 := time.Now()
			if _, err := h.call(h.detect, detectReq(p, false)); err != nil {
				fmt.Fprintf(os.Stderr, "detect %s: %v\n", p.Name, err)
			}
			ds = append(ds, float64(time.Since(t0).Microseconds())/1000)
		}
		r := row{name: p.Name, kb: float64(len(p.HTML)) / 1024, detect: median(ds), load: nav[i]}
		r.per100 = r.detect / max(r.kb/100, 0.01)
		if r.load > 0 {
			r.sharePct = 100 * r.detect / r.load
		}
		rows = append(rows, r)
	}
	load1 := loadNow()
	var per100, shares, loads []float64
	var sumD, sumL float64
	for _, r := range rows {
		if r.kb >= 100 { // below that the call's fixed cost dominates
			per100 = append(per100, r.per100)
		}
		if r.load > 0 {
			shares = append(shares, r.sharePct)
			loads = append(loads, r.load)
			sumD, sumL = sumD+r.detect, sumL+r.load
		}
	}
	fmt.Println("### Bot-wall detection: cost")
	fmt.Println()
	fmt.Printf("Each of the %d corpus pages as a navigation hands it to the detector (status, headers, title, text, raw HTML, as rendered above), through the sandbox (fuel on): the hook call's time is the median of %d calls. *Load* is the same page navigated in a fresh Chromium context from loopback until its load event, timed in this run (median %.0f ms); the share is detect / load. Load average (1 min) at the start and at the end: %s and %s.\n\n", len(rows), calls, median(loads), load0, load1)
	fmt.Println("| measure | median | p90 | max |")
	fmt.Println("|---|---:|---:|---:|")
	fmt.Printf("| detect per 100 KB of HTML, pages of 100 KB or more (%d) | %.2f ms | %.2f ms | %.2f ms |\n", len(per100), median(per100), measure.Pct(per100, 0.9), measure.Pct(per100, 1))
	fmt.Printf("| detect as a share of the page's load, every page (%d) | %.2f%% | %.2f%% | %.2f%% |\n", len(shares), median(shares), measure.Pct(shares, 0.9), measure.Pct(shares, 1))
	fmt.Printf("\nIn aggregate (detect summed over load summed): %.2f%%. Goal: under 5%% of a navigate on every corpus page.", 100*sumD/max(sumL, 1))
	if skipped > 0 {
		fmt.Printf(" Left out: %d page(s) whose render got no HTML (the load took over 15 s).", skipped)
	}
	fmt.Print("\n\n")
	htmlOnlyCost(h, htmlOnly, calls)
	if len(rows) == 0 {
		return
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].kb > rows[j].kb })
	fmt.Println("| largest pages | HTML | detect | per 100 KB | load | share |")
	fmt.Println("|---|---:|---:|---:|---:|---:|")
	for _, r := range rows[:min(10, len(rows))] {
		fmt.Printf("| %s | %.0f KB | %.2f ms | %.2f ms | %.0f ms | %.2f%% |\n", r.name, r.kb, r.detect, r.per100, r.load, r.sharePct)
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].sharePct > rows[j].sharePct })
	fmt.Printf("\nHighest share: %s (%.0f KB, detect %.2f ms of a %.0f ms load, %.2f%%).\n\n", rows[0].name, rows[0].kb, rows[0].detect, rows[0].load, rows[0].sharePct)
}

// navigateTimes loads each doc in a fresh Chromium context from loopback
// until its load event and returns the times in ms (0 when it failed).
func navigateTimes(docs []doc, logf func(string, ...any)) ([]float64, error) {
	out := make([]float64, len(docs))
	return out, withRenderer(docs, func(r *renderer, base string) error {
		for i, d := range docs {
			out[i] = r.load(base + d.route())
			if (i+1)%40 == 0 {
				logf("  timed the navigation of %d/%d pages", i+1, len(docs))
			}
		}
		return nil
	})
}

// load times one navigation to url in a fresh context, until load.
func (r *renderer) load(url string) float64 {
	ctx, err := r.browser.NewContext()
	if err != nil {
		return 0
	}
	defer ctx.Close()
	page, err := ctx.NewPage()
	if err != nil {
		return 0
	}
	t0 := time.Now()
	if _, err := page.Goto(url, playwright.PageGotoOptions{WaitUntil: playwright.WaitUntilStateLoad, Timeout: playwright.Float(30000)}); err != nil {
		return 0
	}
	return float64(time.Since(t0).Microseconds()) / 1000
}

func loadNow() string {
	b, _ := os.ReadFile("/proc/loadavg")
	if f := strings.Fields(string(b)); len(f) > 0 {
		return f[0]
	}
	return "?"
}

// htmlOnlyCost is the detect hook's time per 100 KB of HTML over every
// corpus page given as its HTML alone (the detector reads the text out of
// it), no browser needed: the median of calls per page.
func htmlOnlyCost(h *hooks, docs []doc, calls int) {
	var per100, all []float64
	for _, d := range docs {
		b, err := os.ReadFile(d.Path)
		if err != nil {
			continue
		}
		req := detectReq(rendered{URL: "http://corpus.test/" + d.Name + ".html", Status: 200, HTML: string(b)}, false)
		var ds []float64
		for range calls {
			t0 := time.Now()
			if _, err := h.call(h.detect, req); err != nil {
				fmt.Fprintf(os.Stderr, "detect %s: %v\n", d.Name, err)
			}
			ds = append(ds, float64(time.Since(t0).Microseconds())/1000)
		}
		all = append(all, median(ds))
		if kb := float64(len(b)) / 1024; kb >= 100 {
			per100 = append(per100, median(ds)/(kb/100))
		}
	}
	fmt.Printf("Every corpus page as HTML alone (%d pages, the detector reads the text out of it): detect per call median %.2f ms, max %.2f ms; per 100 KB of HTML over the %d pages of 100 KB or more, median %.2f ms, p90 %.2f ms, max %.2f ms.\n\n",
		len(all), median(all), measure.Pct(all, 1), len(per100), median(per100), measure.Pct(per100, 0.9), measure.Pct(per100, 1))
}
