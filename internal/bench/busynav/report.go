package main

import (
	"fmt"
	"runtime"
	"strings"
	"time"

	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/internal/bench/measure"
)

// print writes the section and says whether every page was returned.
func print(outs []outcome, cfg *host.Config, loops, rounds int, load0, load1 string, took time.Duration) bool {
	count := map[string]int{}
	for _, o := range outs {
		count[o.result]++
	}
	p := cfg.Personalities[cfg.Host.DefaultPersonality]
	fmt.Println("## Busy-load navigation of the largest corpus pages")
	fmt.Println()
	fmt.Printf("`go -C internal/bench run ./busynav -n %d -rounds %d` (`make bench-busy`), %s, %d CPUs, %s. ", len(outs)/max(rounds, 1), rounds, time.Now().UTC().Format("2006-01-02"), runtime.NumCPU(), runtime.Version())
	fmt.Printf("The %d largest pages of the shared corpus's pages/, served on loopback, each navigated %d time(s) through the real host (`host.New`, headless Chromium, egress proxy) with the embedded default config's personality %q (hooks detect = %s, compact = %s, mask = %s; the detector fail_closed) while %d busy loops (`sh -c 'while ...; do :; done'`, two per core as `make test-busy` starts them) spin. ",
		len(outs)/max(rounds, 1), rounds, cfg.Host.DefaultPersonality, p.Hooks.Detect, p.Hooks.Compact, p.Hooks.Mask, loops)
	fmt.Printf("Load average (1 min) when the loops started: %s, when they stopped: %s; %s in all.\n\n", load0, load1, took.Round(time.Second))
	fmt.Printf("| result | navigations |\n|---|---:|\n| page returned | **%d** |\n| `plugin_failed` | %d |\n| `bot_wall` | %d |\n", count["page"], count["plugin_failed"], count["bot_wall"])
	for k, v := range count {
		if k != "page" && k != "plugin_failed" && k != "bot_wall" {
			fmt.Printf("| `%s` | %d |\n", k, v)
		}
	}
	fmt.Println()
	fmt.Println("| page | size | navigate | result |")
	fmt.Println("|---|---:|---:|---|")
	for _, o := range outs {
		res := o.result
		if o.msg != "" {
			res += ": " + strings.ReplaceAll(clip(o.msg, 120), "|", `\|`)
		}
		fmt.Printf("| %s | %d KB | %s | %s |\n", o.page, o.size/1024, measure.D(o.took), res)
	}
	fmt.Println()
	return count["page"] == len(outs)
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n] + "..."
	}
	return s
}
