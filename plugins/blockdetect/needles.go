package main

import (
	"strings"
	"sync"
)

// Where a marker is looked for. A page's evidence comes in three kinds,
// and a rule says which kind it trusts:
//   - shown: the title and the visible text, what a person sees;
//   - built: the page's elements outside scripts (tag names and
//     attributes: a challenge form, a captcha frame, a wall's ids);
//   - script: inline scripts and the URLs of loaded scripts, which a
//     vendor's sensor puts on healthy pages too: supporting evidence only.
type place int

const (
	shown place = iota
	built
	script
	nPlaces
)

// needles is a list of markers of one place, in the order a rule prefers
// them. Shown markers are matched ignoring ASCII case (pages differ in
// case, not in wording); built and script ones exactly.
type needles struct {
	at   place
	list []string
}

// The registry of every marker any rule looks for, filled while the
// package's variables initialise (each list is declared with shownText,
// builtMarkup or scriptCode), so one pass per place finds them all.
var (
	registry   [nPlaces][]string
	scanOnce   sync.Once
	scanTables [nPlaces]*needleTable
)

func register(at place, list []string) needles {
	for i, n := range list {
		if at == shown {
			list[i] = asciiLower(n)
		}
		registry[at] = append(registry[at], list[i])
	}
	return needles{at: at, list: list}
}

func shownText(list ...string) needles   { return register(shown, list) }
func builtMarkup(list ...string) needles { return register(built, list) }
func scriptCode(list ...string) needles  { return register(script, list) }

// needleTable finds many needles in one pass: needles are grouped by their
// first two bytes (lower-cased for the fold table), looked up per position.
type needleTable struct {
	fold bool
	idx  []uint16   // by first two bytes: 0, or 1 + the group in grp
	grp  [][]string // needles sharing their first two bytes
}

func newNeedleTable(list []string, fold bool) *needleTable {
	t := &needleTable{fold: fold, idx: make([]uint16, 1<<16)}
	seen := map[string]bool{}
	for _, n := range list {
		if len(n) < 2 || seen[n] {
			continue
		}
		seen[n] = true
		k := uint16(n[0])<<8 | uint16(n[1])
		if t.idx[k] == 0 {
			t.grp = append(t.grp, nil)
			t.idx[k] = uint16(len(t.grp))
		}
		g := t.idx[k] - 1
		t.grp[g] = append(t.grp[g], n)
	}
	return t
}

func tables() *[nPlaces]*needleTable {
	scanOnce.Do(func() {
		for at := place(0); at < nPlaces; at++ {
			scanTables[at] = newNeedleTable(registry[at], at == shown)
		}
	})
	return &scanTables
}

// scan returns where each needle of t first occurs in h: one pass over h,
// whatever the number of needles; the cost per byte is a table look-up
// and, at the few positions whose two bytes start a needle, a compare.
func (t *needleTable) scan(h string) map[string]int {
	found := map[string]int{}
	if len(t.grp) == 0 {
		return found
	}
	idx := t.idx
	for i := 0; i+1 < len(h); i++ {
		a, b := h[i], h[i+1]
		if t.fold {
			a, b = lowerByte(a), lowerByte(b)
		}
		g := idx[uint16(a)<<8|uint16(b)]
		if g == 0 {
			continue
		}
		for _, n := range t.grp[g-1] {
			if t.fold && hasPrefixFold(h[i:], n) || !t.fold && strings.HasPrefix(h[i:], n) {
				if _, ok := found[n]; !ok {
					found[n] = i
				}
			}
		}
	}
	return found
}

// scanSpans is scan over the spans of doc: offsets are doc's; a needle is
// found only whole inside one span.
func (t *needleTable) scanSpans(doc string, spans []span) map[string]int {
	found := map[string]int{}
	if len(t.grp) == 0 {
		return found
	}
	idx := t.idx
	for _, s := range spans {
		h := doc[:s.hi]
		for i := s.lo; i+1 < s.hi; i++ {
			g := idx[uint16(h[i])<<8|uint16(h[i+1])]
			if g == 0 {
				continue
			}
			for _, n := range t.grp[g-1] {
				if strings.HasPrefix(h[i:], n) {
					if _, ok := found[n]; !ok {
						found[n] = i
					}
				}
			}
		}
	}
	return found
}

func lowerByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 32
	}
	return c
}

// hasPrefixFold reports whether s starts with lower (lower-case ASCII),
// ignoring ASCII case.
func hasPrefixFold(s, lower string) bool {
	if len(s) < len(lower) {
		return false
	}
	for i := 0; i < len(lower); i++ {
		if lowerByte(s[i]) != lower[i] {
			return false
		}
	}
	return true
}

// asciiLower lower-cases ASCII letters only, so offsets stay valid.
func asciiLower(s string) string {
	i := 0
	for i < len(s) && !(s[i] >= 'A' && s[i] <= 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if c := b[i]; c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}
