package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/wasmwright/wasmwright/internal/bench/measure"
	"github.com/wasmwright/wasmwright/internal/bench/rows"
	"github.com/wasmwright/wasmwright/internal/bench/snapcache"
)

// The measures of a compacted snapshot against Playwright's.

// interactiveRoles are the roles an agent acts on: every one of them must
// stay addressable by ref.
var interactiveRoles = map[string]bool{
	"link": true, "button": true, "textbox": true, "checkbox": true, "radio": true,
	"combobox": true, "listbox": true, "menuitem": true, "menuitemcheckbox": true,
	"menuitemradio": true, "tab": true, "option": true, "slider": true, "searchbox": true,
	"switch": true, "spinbutton": true, "treeitem": true,
}

// pwLine is one element line of a Playwright snapshot, read independently of
// the plugin's parser so the two check each other.
type pwLine struct {
	indent int
	role   string
	name   string
	ref    string
	texts  []string // name, inline value or text node: what recall counts
}

var (
	refRe  = regexp.MustCompile(`\[ref=([A-Za-z0-9]+)\]`)
	foldRe = regexp.MustCompile(`… (\d+) more items: browser_snapshot ref=([A-Za-z0-9]+)`)
)

func parsePW(s string) []pwLine {
	var res []pwLine
	for _, l := range strings.Split(s, "\n") {
		t := strings.TrimLeft(l, " ")
		if !strings.HasPrefix(t, "- ") {
			continue
		}
		p := pwLine{indent: len(l) - len(t)}
		t = t[2:]
		key, val, hasVal := t, "", false
		if strings.HasPrefix(t, "'") {
			end := 1
			for end < len(t) {
				if t[end] == '\'' {
					if end+1 < len(t) && t[end+1] == '\'' {
						end += 2
						continue
					}
					break
				}
				end++
			}
			key = strings.ReplaceAll(t[1:min(end, len(t))], "''", "'")
			if rest := t[min(end+1, len(t)):]; strings.HasPrefix(rest, ": ") {
				val, hasVal = rest[2:], true
			}
		} else if i := strings.Index(t, ": "); i >= 0 {
			key, val, hasVal = t[:i], t[i+2:], true
		} else {
			key = strings.TrimSuffix(t, ":")
		}
		if hasVal && len(val) >= 2 && val[0] == '"' && val[len(val)-1] == '"' {
			if u, err := strconv.Unquote(strings.ReplaceAll(val, `\x`, `\u00`)); err == nil {
				val = u
			}
		}
		sp := strings.IndexByte(key, ' ')
		if sp < 0 {
			p.role = key
		} else {
			p.role = key[:sp]
			rest := key[sp+1:]
			if strings.HasPrefix(rest, `"`) {
				if q, err := strconv.QuotedPrefix(rest); err == nil {
					p.name, _ = strconv.Unquote(q)
				}
			}
		}
		if m := refRe.FindStringSubmatch(key); m != nil {
			p.ref = m[1]
		}
		switch {
		case p.role == "/url" || p.role == "/placeholder":
			continue
		case p.role == "text":
			p.texts = append(p.texts, val)
		default:
			if p.name != "" {
				p.texts = append(p.texts, p.name)
			}
			if hasVal {
				p.texts = append(p.texts, val)
			}
		}
		res = append(res, p)
	}
	return res
}

// words splits text into lower-case words of letters and digits.
func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

// subtree cuts the element with ref out of a Playwright snapshot and
// dedents it: what a scoped snapshot of that element looks like.
func subtree(s, ref string) string {
	lines := strings.Split(s, "\n")
	tag := "[ref=" + ref + "]"
	for i, l := range lines {
		if !strings.Contains(l, tag) {
			continue
		}
		ind := len(l) - len(strings.TrimLeft(l, " "))
		out := []string{l[ind:]}
		for _, m := range lines[i+1:] {
			mi := len(m) - len(strings.TrimLeft(m, " "))
			if mi <= ind {
				break
			}
			out = append(out, m[ind:])
		}
		return strings.Join(out, "\n")
	}
	return ""
}

type compactMeasure struct {
	pwBytes, ourBytes   int
	inter, addressable  int
	foldedInter         int // interactive elements reached only by unfolding
	folds               int
	recallSet, recallMS float64
	textFloor           float64  // distinct names and texts, in bytes, / Playwright's bytes
	missing             []string // interactive elements not addressable (for the report)
}

// measureCompact compares ours with Playwright's pw. compact compacts a snapshot
// scoped to a ref, to follow fold lines the way an agent would.
func measureCompact(pw, ours string, compact func(snap, ref string) (string, error)) compactMeasure {
	m := compactMeasure{pwBytes: len(pw), ourBytes: len(ours)}
	lines := parsePW(pw)

	// Addressable: the ref appears on a line with the same role and name,
	// in ours or in what unfolding a fold line gives.
	reach := map[string]string{} // ref -> the line that carries it
	direct := map[string]bool{}
	var follow func(text string, depth int, top bool)
	follow = func(text string, depth int, top bool) {
		for _, l := range strings.Split(text, "\n") {
			if mm := refRe.FindStringSubmatch(l); mm != nil {
				if _, ok := reach[mm[1]]; !ok {
					reach[mm[1]] = l
					direct[mm[1]] = top
				}
			}
			if f := foldRe.FindStringSubmatch(l); f != nil && depth < 6 {
				if top {
					m.folds++
				}
				sub := subtree(pw, f[2])
				if sub == "" {
					continue
				}
				if out, err := compact(sub, f[2]); err == nil {
					follow(out, depth+1, false)
				}
			}
		}
	}
	follow(ours, 0, true)
	for _, p := range lines {
		if !interactiveRoles[p.role] || p.ref == "" {
			continue
		}
		m.inter++
		l, ok := reach[p.ref]
		if ok && strings.Contains(l, p.role) && (p.name == "" || strings.Contains(l, strconv.Quote(strings.Join(strings.Fields(p.name), " ")))) {
			m.addressable++
			if !direct[p.ref] {
				m.foldedInter++
			}
		} else if len(m.missing) < 5 {
			m.missing = append(m.missing, p.role+" "+strconv.Quote(p.name)+" "+p.ref)
		}
	}

	// The floor of any compaction that keeps the text: every distinct name
	// and text said once, one byte between them.
	seen := map[string]bool{}
	floor := 0
	for _, p := range lines {
		for _, t := range p.texts {
			t = strings.Join(strings.Fields(t), " ")
			if t != "" && !seen[t] {
				seen[t] = true
				floor += len(t) + 1
			}
		}
	}
	m.textFloor = float64(floor) / float64(max(len(pw), 1))

	// Text recall over words of names and text nodes.
	want := map[string]int{}
	for _, p := range lines {
		for _, t := range p.texts {
			for _, w := range words(t) {
				want[w]++
			}
		}
	}
	have := map[string]int{}
	for _, w := range words(ours) {
		have[w]++
	}
	var setHit, msHit, msAll int
	for w, n := range want {
		if have[w] > 0 {
			setHit++
		}
		msHit += min(n, have[w])
		msAll += n
	}
	m.recallSet, m.recallMS = 1, 1
	if len(want) > 0 {
		m.recallSet = float64(setHit) / float64(len(want))
		m.recallMS = float64(msHit) / float64(msAll)
	}
	return m
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func compactSection(h *hooks, pages []rendered, verbose bool) {
	var ratios, recallS, recallM, floors []float64
	var inter, addr, folded, folds, empty, pwTotal, ourTotal int
	type row struct {
		name  string
		m     compactMeasure
		ratio float64
	}
	var rows []row
	for _, p := range pages {
		if strings.TrimSpace(p.Snapshot) == "" {
			empty++
			continue
		}
		ours, err := h.compactSnap(p.Snapshot, "")
		if err != nil {
			fmt.Fprintf(os.Stderr, "compact %s: %v\n", p.Name, err)
			continue
		}
		m := measureCompact(p.Snapshot, ours, h.compactSnap)
		r := float64(m.ourBytes) / float64(m.pwBytes)
		ratios = append(ratios, r)
		recallS = append(recallS, m.recallSet)
		recallM = append(recallM, m.recallMS)
		floors = append(floors, m.textFloor)
		inter += m.inter
		addr += m.addressable
		folded += m.foldedInter
		folds += m.folds
		pwTotal += m.pwBytes
		ourTotal += m.ourBytes
		rows = append(rows, row{p.Name, m, r})
	}
	fmt.Println("### Snapshot compaction (snapcompact)")
	fmt.Println()
	fmt.Printf("Playwright ai-mode snapshots of %d corpus pages (%d had an empty snapshot and are left out).\n\n", len(rows), empty)
	fmt.Println("| measure | value |")
	fmt.Println("|---|---|")
	fmt.Printf("| size ratio vs Playwright, median | %.1f%% |\n", 100*median(ratios))
	fmt.Printf("| size ratio, mean | %.1f%% |\n", 100*measure.Mean(ratios))
	fmt.Printf("| floor for any output that keeps all text: distinct names and text strings / Playwright bytes, median | %.1f%% |\n", 100*median(floors))
	fmt.Printf("| size ratio, p90 | %.1f%% |\n", 100*measure.Pct(ratios, 0.9))
	fmt.Printf("| total bytes, Playwright → ours | %d → %d (%.1f%%) |\n", pwTotal, ourTotal, 100*float64(ourTotal)/float64(max(pwTotal, 1)))
	fmt.Printf("| interactive elements addressable by ref | %d / %d (%.2f%%) |\n", addr, inter, 100*float64(addr)/float64(max(inter, 1)))
	fmt.Printf("| ... of which reached by unfolding a fold line | %d (%d fold lines) |\n", folded, folds)
	fmt.Printf("| text recall (distinct words), median / mean / min | %.4f / %.4f / %.4f |\n", median(recallS), measure.Mean(recallS), measure.Pct(recallS, 0))
	fmt.Printf("| text recall (word occurrences), median / mean / min | %.4f / %.4f / %.4f |\n", median(recallM), measure.Mean(recallM), measure.Pct(recallM, 0))
	fmt.Println()
	fmt.Println("Addressable: the element's ref is on a line with its role and accessible name, in the output or in the compaction of the scoped snapshot a fold line names (cut out of Playwright's snapshot; on 8 fold refs checked against Locator(aria-ref).AriaSnapshot the cut-out was byte-identical). Recall: words of names and text nodes (not URLs, not role words) of Playwright's snapshot found in ours.")
	fmt.Println()
	if verbose {
		sort.Slice(rows, func(i, j int) bool { return rows[i].ratio > rows[j].ratio })
		for _, r := range rows {
			fmt.Printf("- %s: %.1f%% of %d bytes, inter %d/%d, recall %.3f/%.3f %v\n", r.name, 100*r.ratio, r.m.pwBytes, r.m.addressable, r.m.inter, r.m.recallSet, r.m.recallMS, r.m.missing)
		}
		fmt.Println()
	}
}

// compactTimeRounds is how many times compactTimeSection compacts every
// snapshot; the median round counts.
const compactTimeRounds = 5

// compactTimeSection times the compactor through the sandbox (the host's
// hook call: request encoded, plugin run, answer decoded) over every
// snapshot of the render cache, the same inputs plugins/snapcompact's
// bench.rs compacts natively (make bench runs it after this, and the
// summary puts the two side by side).
func compactTimeSection(h *hooks, cache string) {
	snaps, err := snapcache.Snapshots(cache)
	if err != nil || len(snaps) == 0 {
		fmt.Printf("Compaction time: no snapshots in %s (%v).\n\n", cache, err)
		return
	}
	size := 0
	for _, s := range snaps {
		size += len(s)
	}
	var rounds []time.Duration
	for r := 0; r < compactTimeRounds; r++ {
		t0 := time.Now()
		for _, s := range snaps {
			if _, err := h.compactSnap(s, ""); err != nil {
				fmt.Printf("Compaction time: a call failed: %v.\n\n", err)
				return
			}
		}
		rounds = append(rounds, time.Since(t0))
	}
	med := float64(measure.Med(rounds).Microseconds()) / 1000
	fmt.Printf("Compaction time through the sandbox: every snapshot of %s (%d snapshots, %d KB) compacted once per round, median of %d rounds: **%.0f ms** (natively: plugins/snapcompact's bench.rs on the same snapshots; make bench's summary shows the ratio).\n\n",
		filepath.Base(cache), len(snaps), size/1024, compactTimeRounds, med)
	rows.Record("pipeline", "compaction of the corpus snapshots", rows.Wasmwright, med)
}
