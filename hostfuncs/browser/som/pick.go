// Package som is the set-of-marks logic of a marked screenshot: which
// boxes get a numbered mark (Pick, from the snapshot's candidates and the
// page's own regions), where each number's tag goes and how it is drawn
// on the decoded image (Draw). The browser takes the screenshot and the
// snapshot and reads the page; this package only reads what it is given
// (the page, through the evaluate function it is handed) and knows
// nothing of sessions.
package som

import (
	"cmp"
	"slices"

	"github.com/wasmwright/wasmwright/abi"
)

const (
	MinSide  = 4  // px: smaller boxes are not worth a mark
	RowSlack = 16 // px: tops this close read as one row
	// regionsJS reads at most this many elements and returns at most this
	// many regions: a page of a million nodes costs a bounded walk.
	scanMax   = 20000
	regionMax = 1000
)

// Rect is a box: x, y, width, height, in CSS pixels of the viewport.
type Rect struct{ X, Y, W, H int }

func (r Rect) contains(o Rect) bool {
	return o.X >= r.X && o.Y >= r.Y && o.X+o.W <= r.X+r.W && o.Y+o.H <= r.Y+r.H
}

// clip is the part of r inside c (zero-sized when none).
func (r Rect) clip(c Rect) Rect {
	x0, y0 := max(r.X, c.X), max(r.Y, c.Y)
	x1, y1 := min(r.X+r.W, c.X+c.W), min(r.Y+r.H, c.Y+c.H)
	return Rect{x0, y0, max(0, x1-x0), max(0, y1-y0)}
}

// Candidate is a possible mark; AnyRole marks a snapshot element kept only
// to name a region with the same box (it is no candidate of its own).
type Candidate struct {
	Box             Rect
	Ref, Role, Name string
	Region, AnyRole bool
	Limit           Rect // the iframe it shows in, else zero (the viewport)
	HasLimit        bool
}

// regionsJS returns the main frame's canvases and cursor:pointer regions
// that show in the viewport: [x, y, w, h, kind, label], boxes rounded as
// Playwright rounds [box=...]. A pointer region is the outermost element
// with the cursor (it is inherited: its children are the same target).
const regionsJS = `([scanMax, max]) => {
	const out = [], vw = innerWidth, vh = innerHeight;
	const root = document.body || document.documentElement;
	if (!root) return out;
	const tw = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
	const label = e => (e.getAttribute("aria-label") || e.getAttribute("title") || e.textContent || "").slice(0, 200).replace(/\s+/g, " ").trim();
	for (let e = root, n = 0; e && n < scanMax && out.length < max; e = tw.nextNode(), n++) {
		const r = e.getBoundingClientRect();
		if (r.width < 1 || r.height < 1 || r.right <= 0 || r.bottom <= 0 || r.x >= vw || r.y >= vh) continue;
		const canvas = e.tagName === "CANVAS";
		const st = getComputedStyle(e);
		if (st.visibility !== "visible") continue;
		if (!canvas && (st.cursor !== "pointer" || (e.parentElement && getComputedStyle(e.parentElement).cursor === "pointer"))) continue;
		out.push([...[r.x, r.y, r.width, r.height].map(Math.round), canvas ? "canvas" : "clickable", label(e)]);
	}
	return out;
}`

// Regions reads the main frame's regions without a ref (regionsJS)
// through eval, the page's evaluate; on a failure there are none.
func Regions(eval func(js string, arg ...any) (any, error)) []Candidate {
	v, _ := eval(regionsJS, []int{scanMax, regionMax})
	regions, _ := v.([]any)
	var out []Candidate
	for _, r := range regions {
		a, ok := r.([]any)
		if !ok || len(a) != 6 {
			continue
		}
		n := ints(a[:4])
		kind, _ := a[4].(string)
		name, _ := a[5].(string)
		out = append(out, Candidate{Box: Rect{n[0], n[1], n[2], n[3]}, Role: kind, Name: name, Region: true})
	}
	return out
}

// ints reads four numbers of an evaluate's answer (Playwright gives whole
// numbers as int, others as float64).
func ints(a []any) (v [4]int) {
	for i := range v {
		switch n := a[i].(type) {
		case int:
			v[i] = n
		case float64:
			v[i] = int(n)
		}
	}
	return v
}

// Pick clips the candidates to the viewport (w x h), drops what is
// tiny, duplicated or covered by another, and numbers the rest in reading
// order; total counts them before the cap. Names are left whole, for the
// caller to redact and shorten.
func Pick(cands []Candidate, w, h int) (marks []abi.ScreenMark, total int) {
	view := Rect{0, 0, w, h}
	var keep, named []Candidate
	for _, c := range cands {
		if c.HasLimit {
			c.Box = c.Box.clip(c.Limit)
		}
		c.Box = c.Box.clip(view)
		if c.Box.W < MinSide || c.Box.H < MinSide {
			continue
		}
		if c.AnyRole {
			named = append(named, c)
		} else if !c.Region {
			keep = append(keep, c)
		}
	}
	elements := len(keep)
	for _, c := range cands {
		if !c.Region {
			continue
		}
		c.Box = c.Box.clip(view)
		if c.Box.W < MinSide || c.Box.H < MinSide || covered(c.Box, keep[:elements]) {
			continue
		}
		// A region that is an element of the snapshot takes its ref.
		for _, n := range named {
			if n.Box == c.Box {
				c.Ref, c.Role, c.Name = n.Ref, n.Role, cmp.Or(n.Name, c.Name)
				break
			}
		}
		keep = append(keep, c)
	}
	readingOrder(keep)
	seen := map[Rect]bool{}
	for _, c := range keep {
		if seen[c.Box] {
			continue
		}
		seen[c.Box] = true
		total++
		if len(marks) < abi.MaxScreenMarks {
			marks = append(marks, abi.ScreenMark{Mark: len(marks) + 1, Ref: c.Ref, Role: c.Role, Name: c.Name, Box: [4]int{c.Box.X, c.Box.Y, c.Box.W, c.Box.H}})
		}
	}
	return marks, total
}

// readingOrder sorts boxes top to bottom, then by rows left to right: a
// box whose top is within RowSlack (at most half the height) of the first
// box of a row joins that row.
func readingOrder(c []Candidate) {
	slices.SortStableFunc(c, func(a, b Candidate) int { return cmp.Or(a.Box.Y-b.Box.Y, a.Box.X-b.Box.X) })
	for i := 0; i < len(c); {
		j := i + 1
		for j < len(c) && c[j].Box.Y < c[i].Box.Y+max(1, min(RowSlack, c[i].Box.H/2)) {
			j++
		}
		slices.SortStableFunc(c[i:j], func(a, b Candidate) int { return a.Box.X - b.Box.X })
		i = j
	}
}

// covered: r lies inside one of the elements, or wraps one that fills
// most of it (a clickable wrapper of a button is that button).
func covered(r Rect, elements []Candidate) bool {
	for _, e := range elements {
		if e.Box.contains(r) || r.contains(e.Box) && 4*e.Box.W*e.Box.H >= 3*r.W*r.H {
			return true
		}
	}
	return false
}
