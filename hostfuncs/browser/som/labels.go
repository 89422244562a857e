package som

import (
	"image"
	"image/color"
	"image/draw"
	"slices"
	"strconv"

	"github.com/wasmwright/wasmwright/abi"
)

// Mark labels. Each mark's number goes on a tag where it hides nothing a
// reader needs: no other marked element's box, no text of the page (a
// price beside a button, a form's label), no tag already placed. On a
// dense list every spot beside a box may be taken, so the search widens:
// the full-size tag at the box's corners outside it, then a smaller one
// there, then a small badge a little away with a leader line to the box,
// and last the outline alone (the legend still names the mark by its
// box). A tag never covers its own element either: what the element shows
// is the plain screenshot's.
// The page's text comes from textBoxesJS, read with the snapshot.

// Colour is the colour of the i-th mark (from 0): its outline and tag.
func Colour(i int) color.RGBA { return markColours[i%len(markColours)] }

// markColours are dark enough for white digits and tell neighbours apart.
var markColours = []color.RGBA{
	{230, 25, 75, 255}, {0, 90, 200, 255}, {0, 140, 60, 255}, {200, 90, 0, 255},
	{145, 30, 180, 255}, {190, 0, 130, 255}, {0, 120, 130, 255}, {110, 70, 0, 255},
}

// digits is a 5x7 bitmap font, one row per string, drawn at digitScale.
// golang.org/x/image/font/basicfont is not in this module's graph; ten
// glyphs do not warrant a dependency.
var digits = [10][7]string{
	{".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."},
	{"..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."},
	{".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"},
	{"#####", "...#.", "..#..", "...#.", "....#", "#...#", ".###."},
	{"...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."},
	{"#####", "#....", "####.", "....#", "....#", "#...#", ".###."},
	{"..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."},
	{"#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."},
	{".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."},
	{".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."},
}

const (
	digitScale = 3 // 21 px digits: legible to a model reading a scaled picture
	smallScale = 2 // 14 px digits: a tag shrunk to fit a crowded spot
	Border     = 2 // px: a mark's outline, inside its box
	labelPad   = 2 // px around the digits
	labelRim   = 1 // px of white around the tag, for contrast on any background
	// labelReach is how far from its box a badge may sit, and leadStep
	// the grid it is looked for on.
	labelReach = 120 // px
	leadStep   = 6   // px
	// textScanMax and textBoxMax bound textBoxesJS: a page of a million
	// text nodes costs a bounded walk.
	textScanMax = 20000
	textBoxMax  = 4000
)

// textBoxesJS returns the boxes of the main frame's visible text in the
// viewport, one per line of each text node, [x, y, w, h] rounded outwards.
const textBoxesJS = `([scanMax, max]) => {
	const out = [], vw = innerWidth, vh = innerHeight;
	const root = document.body || document.documentElement;
	if (!root) return out;
	const tw = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
	const range = document.createRange();
	for (let n = tw.nextNode(), i = 0; n && i < scanMax && out.length < max; n = tw.nextNode(), i++) {
		if (!n.data.trim() || !n.parentElement || getComputedStyle(n.parentElement).visibility !== "visible") continue;
		range.selectNodeContents(n);
		for (const r of range.getClientRects()) {
			if (r.width < 1 || r.height < 1 || r.right <= 0 || r.bottom <= 0 || r.x >= vw || r.y >= vh) continue;
			const x = Math.floor(r.x), y = Math.floor(r.y);
			out.push([x, y, Math.ceil(r.right) - x, Math.ceil(r.bottom) - y]);
		}
	}
	return out;
}`

// TextBoxes reads the boxes of the page's text (textBoxesJS) through
// eval, the page's evaluate; on a failure there are none (tags then avoid
// only the marks).
func TextBoxes(eval func(js string, arg ...any) (any, error)) []image.Rectangle {
	v, _ := eval(textBoxesJS, []int{textScanMax, textBoxMax})
	list, _ := v.([]any)
	out := make([]image.Rectangle, 0, len(list))
	for _, e := range list {
		a, ok := e.([]any)
		if !ok || len(a) != 4 {
			continue
		}
		n := ints(a)
		out = append(out, image.Rect(n[0], n[1], n[0]+n[2], n[1]+n[3]))
	}
	return out
}

// Draw draws the marks on img, each number's tag kept clear of the
// other marks and of text, the page's text boxes (TextBoxes).
func Draw(img *image.RGBA, marks []abi.ScreenMark, text []image.Rectangle) {
	drawMarks(img, marks, placeLabels(marks, text, img.Bounds()))
}

// Tags are the tags Draw would place for the marks in a picture of
// bounds, one a mark, empty where a mark has only its outline.
func Tags(marks []abi.ScreenMark, text []image.Rectangle, bounds image.Rectangle) []image.Rectangle {
	labels := placeLabels(marks, text, bounds)
	out := make([]image.Rectangle, len(labels))
	for i, l := range labels {
		out[i] = l.tag
	}
	return out
}

// label is where a mark's number is drawn: its tag at its digits' scale,
// and a leader line from the tag to the box when the tag sits away from
// it. A zero tag: the outline alone.
type label struct {
	tag     image.Rectangle
	scale   int
	lead    [2]image.Point
	hasLead bool
}

// labelSize is the size of the tag that shows text at a digit scale.
func labelSize(text string, scale int) image.Point {
	return image.Pt(len(text)*(5+1)*scale-scale+2*(labelPad+labelRim), 7*scale+2*(labelPad+labelRim))
}

func boxRect(m abi.ScreenMark) image.Rectangle {
	return image.Rect(m.Box[0], m.Box[1], m.Box[0]+m.Box[2], m.Box[1]+m.Box[3])
}

// placeLabels finds each mark's label in order (placeLabel), each one
// kept clear of the tags and leader lines placed before it.
func placeLabels(marks []abi.ScreenMark, text []image.Rectangle, bounds image.Rectangle) []label {
	boxes := make([]image.Rectangle, len(marks))
	for i, m := range marks {
		boxes[i] = boxRect(m)
	}
	var placed []image.Rectangle
	out := make([]label, len(marks))
	for i, m := range marks {
		r := boxes[i]
		// What a tag of this mark must not cover, near enough to matter:
		// the other marks' boxes, the page's text (its own too: a tag
		// inside its box keeps clear of it) and the tags placed.
		area := r.Inset(-labelReach - 40)
		var avoid []image.Rectangle
		for j, b := range boxes {
			// A box that holds this one (a clickable card around its
			// button) is no obstacle: its text is.
			if j != i && b.Overlaps(area) && !r.In(b) {
				avoid = append(avoid, b)
			}
		}
		for _, t := range text {
			if t.Overlaps(area) {
				avoid = append(avoid, t)
			}
		}
		for _, p := range placed {
			if p.Overlaps(area) {
				avoid = append(avoid, p)
			}
		}
		l := placeLabel(r, strconv.Itoa(m.Mark), bounds, avoid)
		out[i] = l
		if !l.tag.Empty() {
			placed = append(placed, l.tag)
		}
		if l.hasLead {
			placed = append(placed, leadRects(l.lead)...)
		}
	}
	return out
}

// placeLabel is one mark's label (see the top of this file): the first
// spot, in the order of the search, that is inside the picture and
// covers nothing in avoid.
func placeLabel(r image.Rectangle, text string, bounds image.Rectangle, avoid []image.Rectangle) label {
	free := func(tag image.Rectangle) bool {
		if !tag.In(bounds) {
			return false
		}
		for _, a := range avoid {
			if tag.Overlaps(a) {
				return false
			}
		}
		return true
	}
	for _, scale := range []int{digitScale, smallScale} {
		sz := labelSize(text, scale)
		for _, at := range outsideSpots(r, sz) {
			if tag := (image.Rectangle{at, at.Add(sz)}); !tag.Overlaps(r) && free(tag) {
				return label{tag: tag, scale: scale}
			}
		}
	}
	if l, ok := badge(r, labelSize(text, smallScale), free, avoid); ok {
		return l
	}
	return label{}
}

// outsideSpots are the corners of r, outside it, where a tag of size sz
// reads as r's: above (left- then right-aligned), left, below, right.
func outsideSpots(r image.Rectangle, sz image.Point) []image.Point {
	return []image.Point{
		{r.Min.X, r.Min.Y - sz.Y}, {r.Max.X - sz.X, r.Min.Y - sz.Y},
		{r.Min.X - sz.X, r.Min.Y}, {r.Min.X - sz.X, r.Max.Y - sz.Y},
		{r.Min.X, r.Max.Y}, {r.Max.X - sz.X, r.Max.Y},
		{r.Max.X, r.Min.Y}, {r.Max.X, r.Max.Y - sz.Y},
	}
}

// badge is a small tag as near r as a free spot is (within labelReach),
// joined to r by a leader line that crosses nothing in avoid.
func badge(r image.Rectangle, sz image.Point, free func(image.Rectangle) bool, avoid []image.Rectangle) (label, bool) {
	type spot struct {
		tag  image.Rectangle
		dist int
	}
	var spots []spot
	for y := r.Min.Y - labelReach; y <= r.Max.Y+labelReach; y += leadStep {
		for x := r.Min.X - labelReach; x <= r.Max.X+labelReach; x += leadStep {
			tag := image.Rect(x, y, x+sz.X, y+sz.Y)
			if tag.Overlaps(r) {
				continue
			}
			a, b := nearestPoints(tag, r)
			d := b.Sub(a)
			spots = append(spots, spot{tag, d.X*d.X + d.Y*d.Y})
		}
	}
	slices.SortStableFunc(spots, func(a, b spot) int { return a.dist - b.dist })
	for _, s := range spots {
		if !free(s.tag) {
			continue
		}
		from, to := nearestPoints(s.tag, r)
		if leadClear(from, to, avoid) {
			return label{tag: s.tag, scale: smallScale, lead: [2]image.Point{from, to}, hasLead: true}, true
		}
	}
	return label{}, false
}

// nearestPoints are the points of a and b closest to each other (a and b
// apart): where a leader line from a tag to its box starts and ends.
func nearestPoints(a, b image.Rectangle) (image.Point, image.Point) {
	clampTo := func(v, lo, hi int) int { return max(lo, min(v, hi)) }
	// The middle of the span the two share on an axis, else the facing
	// edges.
	pick := func(a0, a1, b0, b1 int) (int, int) {
		lo, hi := max(a0, b0), min(a1, b1)-1
		if lo <= hi {
			m := (lo + hi) / 2
			return m, m
		}
		if a1 <= b0 {
			return a1 - 1, b0
		}
		return a0, b1 - 1
	}
	ax, bx := pick(a.Min.X, a.Max.X, b.Min.X, b.Max.X)
	ay, by := pick(a.Min.Y, a.Max.Y, b.Min.Y, b.Max.Y)
	return image.Pt(clampTo(ax, a.Min.X, a.Max.X-1), clampTo(ay, a.Min.Y, a.Max.Y-1)), image.Pt(clampTo(bx, b.Min.X, b.Max.X-1), clampTo(by, b.Min.Y, b.Max.Y-1))
}

// leadRects are the squares a leader line from a to b covers: two pixels
// wide, to be seen on a busy page.
func leadRects(seg [2]image.Point) []image.Rectangle {
	a, b := seg[0], seg[1]
	n := max(abs(b.X-a.X), abs(b.Y-a.Y))
	out := make([]image.Rectangle, 0, n+1)
	for i := 0; i <= n; i++ {
		x, y := a.X, a.Y
		if n > 0 {
			x, y = a.X+(b.X-a.X)*i/n, a.Y+(b.Y-a.Y)*i/n
		}
		out = append(out, image.Rect(x, y, x+2, y+2))
	}
	return out
}

// leadClear: the line from a to b crosses nothing in avoid.
func leadClear(a, b image.Point, avoid []image.Rectangle) bool {
	for _, p := range leadRects([2]image.Point{a, b}) {
		for _, o := range avoid {
			if p.Overlaps(o) {
				return false
			}
		}
	}
	return true
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// drawMarks draws each mark's box outline (inside the box) and its label
// (placeLabels): its number on a filled tag with a white rim, with its
// leader line when the tag sits away from the box.
func drawMarks(img *image.RGBA, marks []abi.ScreenMark, labels []label) {
	for i, m := range marks {
		col := image.NewUniform(Colour(i))
		r := boxRect(m)
		for _, edge := range []image.Rectangle{
			image.Rect(r.Min.X, r.Min.Y, r.Max.X, r.Min.Y+Border), image.Rect(r.Min.X, r.Max.Y-Border, r.Max.X, r.Max.Y),
			image.Rect(r.Min.X, r.Min.Y, r.Min.X+Border, r.Max.Y), image.Rect(r.Max.X-Border, r.Min.Y, r.Max.X, r.Max.Y),
		} {
			draw.Draw(img, edge, col, image.Point{}, draw.Src)
		}
		l := labels[i]
		if l.tag.Empty() {
			continue
		}
		if l.hasLead {
			for _, p := range leadRects(l.lead) {
				draw.Draw(img, p, col, image.Point{}, draw.Src)
			}
		}
		drawTag(img, l, strconv.Itoa(m.Mark), col)
	}
}

// drawTag draws text in white on a tag of colour col with a white rim.
func drawTag(img *image.RGBA, l label, text string, col *image.Uniform) {
	tag, s := l.tag, l.scale
	draw.Draw(img, tag, image.White, image.Point{}, draw.Src)
	draw.Draw(img, tag.Inset(labelRim), col, image.Point{}, draw.Src)
	x := tag.Min.X + labelRim + labelPad
	for _, d := range text {
		for row, bits := range digits[d-'0'] {
			for c, bit := range bits {
				if bit == '#' {
					px := image.Rect(x+c*s, tag.Min.Y+labelRim+labelPad+row*s, x+(c+1)*s, tag.Min.Y+labelRim+labelPad+(row+1)*s)
					draw.Draw(img, px, image.White, image.Point{}, draw.Src)
				}
			}
		}
		x += 6 * s
	}
}
