// Command spans sums the timing spans a wasmwright server wrote with
// WASMWRIGHT_SPANS set (internal/spans): per kind of call, the median of
// each span's total in a call, and in how many calls it ran. The browser
// benchmark's type and press calls are told apart by their order (type,
// press, type none, press none, press again), as it makes them.
//
//	WASMWRIGHT_SPANS=/tmp/spans.txt go -C internal/bench run ./browser -n 12 -peer /nonexistent
//	go -C internal/bench run ./spans /tmp/spans.txt
package main

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/wasmwright/wasmwright/internal/bench/measure"
)

type call struct {
	kind  string
	spans map[string]int64 // microseconds, summed over the call
	whys  []string
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: spans FILE")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer f.Close()
	var calls []*call
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, us, _ := strings.Cut(sc.Text(), "\t")
		if tool, ok := strings.CutPrefix(name, "call "); ok {
			calls = append(calls, &call{kind: label(calls, tool), spans: map[string]int64{}})
			continue
		}
		if len(calls) == 0 {
			continue
		}
		c := calls[len(calls)-1]
		if why, ok := strings.CutPrefix(name, "why "); ok {
			c.whys = append(c.whys, why)
			continue
		}
		n, _ := strconv.ParseInt(us, 10, 64)
		c.spans[name] += n
	}
	byKind := map[string][]*call{}
	var kinds []string
	for _, c := range calls {
		if byKind[c.kind] == nil {
			kinds = append(kinds, c.kind)
		}
		byKind[c.kind] = append(byKind[c.kind], c)
	}
	for _, k := range kinds {
		cs := byKind[k]
		fmt.Printf("%s: %d calls\n", k, len(cs))
		vals := map[string][]int64{}
		for _, c := range cs {
			for n, v := range c.spans {
				vals[n] = append(vals[n], v)
			}
		}
		names := make([]string, 0, len(vals))
		for n := range vals {
			names = append(names, n)
		}
		sort.Slice(names, func(i, j int) bool { return measure.Med(vals[names[i]]) > measure.Med(vals[names[j]]) })
		for _, n := range names {
			if measure.Med(vals[n]) < 50 {
				continue
			}
			fmt.Printf("  %-22s median %7.1f ms in %d calls\n", n, float64(measure.Med(vals[n]))/1000, len(vals[n]))
		}
		whys := map[string]int{}
		for _, c := range cs {
			for _, w := range c.whys {
				whys[w]++
			}
		}
		for w, n := range whys {
			fmt.Printf("  snapshot taken (%d): %s\n", n, w)
		}
	}
}

// label names a call by its tool, and the benchmark's type and press
// calls by their place.
func label(calls []*call, tool string) string {
	prev := ""
	if len(calls) > 0 {
		prev = calls[len(calls)-1].kind
	}
	switch tool {
	case "browser_type":
		if prev == "press" {
			return "type none"
		}
		return "type"
	case "browser_press":
		switch prev {
		case "type":
			return "press"
		case "type none":
			return "press none"
		case "press none":
			return "press again"
		}
	}
	return tool
}
