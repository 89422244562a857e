package browser

import (
	"bytes"
	"cmp"
	"image"
	"image/draw"
	"image/jpeg"
	"image/png"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/browser/conceal"
)

// Set-of-marks: a viewport screenshot with numbered boxes drawn over the
// places an agent may want to click, and a legend saying what each number
// is. The boxes are drawn here, in Go, on the decoded image: nothing is
// added to the page, so a page can neither see the marks nor move or hide
// them (it can paint look-alikes of its own: the legend is what counts).
//
// Candidates come from one snapshot with boxes, the marks logic's evaluate
// (as any snapshot does) and one evaluate of our own:
//   - snapshot lines with a ref whose role takes input (somRoles), or that
//     the marks logic (marks.go) flags clickable, draggable, droppable
//     (drop targets) or hoverable, or that
//     Playwright marks [cursor=pointer]; elements in iframes are moved by
//     their iframe's box (a frame's boxes are in its own coordinates) and
//     clipped to it;
//   - regions without a ref, from the main frame: every <canvas>, and the
//     outermost element of each cursor:pointer run (regionsJS).
//
// Boxes are clipped to the viewport; those left under somMinSide pixels a
// side go, as do duplicates (same box) and regions inside a kept element
// or wrapping one almost exactly. Marks are numbered 1..N top to bottom,
// then left to right within a row (readingOrder), at most
// abi.MaxScreenMarks.

// somRoles are the ARIA roles that take input.
var somRoles = map[string]bool{
	"button": true, "link": true, "textbox": true, "checkbox": true, "radio": true,
	"combobox": true, "listbox": true, "menuitem": true, "menuitemcheckbox": true,
	"menuitemradio": true, "tab": true, "option": true, "slider": true, "switch": true,
	"searchbox": true, "spinbutton": true, "treeitem": true, "gridcell": true,
}

const (
	somMinSide = 4  // px: smaller boxes are not worth a mark
	rowSlack   = 16 // px: tops this close read as one row
	somNameMax = 60 // characters of a mark's name
	// regionsJS reads at most this many elements and returns at most this
	// many regions: a page of a million nodes costs a bounded walk.
	somScanMax   = 20000
	somRegionMax = 1000
)

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

// markedShot takes a marked screenshot of t, the current tab of ss: a PNG
// of the viewport at CSS scale (image pixels are CSS pixels, whatever the
// device scale factor) with the marks drawn, and its legend. The caller
// holds ss.mu, as for any call on the session (pageTab). The snapshot it
// takes becomes t's latest, so the legend's refs resolve. The session's
// secret values are hidden during the capture as for any screenshot
// (conceal.Capture), and a name that holds one is replaced by abi.RedactedValue.
func (s *inspector) markedShot(ss *session, t *tab) (png []byte, marks []abi.ScreenMark, err error) {
	png, marks, _, err = s.markedCapture(ss, t, format{ext: ".png", mime: "image/png"})
	return png, marks, err
}

// markedCapture is markedShot encoded as f (PNG or JPEG; not WebP); total
// counts the candidates before the cap.
func (s *inspector) markedCapture(ss *session, t *tab, f format) (img []byte, marks []abi.ScreenMark, total int, err error) {
	secrets := s.concealer.secretValues(ss.key.personality, ss.key.session)
	type shot struct {
		snap    string
		raw     string // the snapshot before the judge
		marksOf map[string][]string
		regions []any
		texts   []image.Rectangle // the page's text, which labels keep clear of
		pngData []byte
	}
	got, dialog, err := race(ss, func() (shot, error) {
		var sh shot
		wait := s.readBudget()
		found := findMarks(t.page)
		regions := findRegions(t.page)
		texts := findTextBoxes(t.page)
		snap, err := takeSnapshot(t, snapshotOptions(0, true, wait))
		if err != nil {
			return sh, err
		}
		ms := found(wait)
		if ms.changed { // inline elements got their lines (marks.go)
			if snap, err = takeSnapshot(t, snapshotOptions(0, true, wait)); err != nil {
				return sh, err
			}
		}
		// Marks go only to what a person can see: the judge takes hidden
		// controls' lines out (visibility.go).
		marksOf, raw := ms.of(snap), snap
		if snap, err = s.pages.seen(t, snap, wait, false); err != nil {
			return sh, err
		}
		sh.snap, sh.raw, sh.marksOf, sh.regions, sh.texts = snap, raw, marksOf, regions(wait), texts(wait)
		sh.pngData, err = conceal.Capture(t.page, secrets, "screenshot", func() ([]byte, error) {
			return t.page.Screenshot(pw.PageScreenshotOptions{Type: pw.ScreenshotTypePng, Scale: pw.ScreenshotScaleCss})
		})
		return sh, err
	})
	if dialog {
		return nil, nil, 0, errDialogOpen(openDialog(ss, t))
	}
	if err != nil {
		return nil, nil, 0, s.sessions.mapErrWithin(ss, err, "taking a marked screenshot", s.readBudget())
	}
	s.pages.keepRefs(t, got.snap)
	pic, err := png.Decode(bytes.NewReader(got.pngData))
	if err != nil {
		return nil, nil, 0, abi.Errorf(abi.CodeExecutionFailed, "decoding the screenshot to mark it: %v; take a plain screenshot instead", err)
	}
	cands := append(snapCandidates(got.snap, got.marksOf), unhidden(regionCandidates(got.regions), got.raw, got.snap)...)
	for i := range cands { // names are page text: one may show a secret
		for _, v := range secrets {
			if v != "" && strings.Contains(cands[i].name, v) {
				cands[i].name = abi.RedactedValue
			}
		}
	}
	marks, total = pickMarks(cands, pic.Bounds().Dx(), pic.Bounds().Dy())
	canvas := image.NewRGBA(pic.Bounds())
	draw.Draw(canvas, canvas.Bounds(), pic, pic.Bounds().Min, draw.Src)
	drawMarks(canvas, marks, placeLabels(marks, got.texts, canvas.Bounds()))
	var b bytes.Buffer
	if f.mime == "image/jpeg" {
		err = jpeg.Encode(&b, canvas, &jpeg.Options{Quality: *f.quality})
	} else {
		err = (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&b, canvas)
	}
	if err != nil {
		return nil, nil, 0, abi.Errorf(abi.CodeExecutionFailed, "encoding the marked screenshot: %v; take a plain screenshot instead", err)
	}
	return b.Bytes(), marks, total, nil
}

// findRegions starts regionsJS and returns a function that waits for its
// answer at most wait; on a failure or past wait there are none.
func findRegions(p pw.Page) func(wait time.Duration) []any {
	return background(func() []any {
		v, _ := p.Evaluate(regionsJS, []int{somScanMax, somRegionMax})
		a, _ := v.([]any)
		return a
	})
}

// background starts fn and returns a function that waits for its result
// at most wait, else gives the zero value (fn is left to finish).
func background[T any](fn func() T) func(wait time.Duration) T {
	ch := make(chan T, 1)
	go func() { ch <- fn() }()
	return func(wait time.Duration) (v T) {
		timer := time.NewTimer(wait)
		defer timer.Stop()
		select {
		case v = <-ch:
		case <-timer.C:
		}
		return v
	}
}

// rect is a box: x, y, width, height.
type rect struct{ x, y, w, h int }

func (r rect) contains(o rect) bool {
	return o.x >= r.x && o.y >= r.y && o.x+o.w <= r.x+r.w && o.y+o.h <= r.y+r.h
}

// clip is the part of r inside c (zero-sized when none).
func (r rect) clip(c rect) rect {
	x0, y0 := max(r.x, c.x), max(r.y, c.y)
	x1, y1 := min(r.x+r.w, c.x+c.w), min(r.y+r.h, c.y+c.h)
	return rect{x0, y0, max(0, x1-x0), max(0, y1-y0)}
}

// candidate is a possible mark; anyRole marks a snapshot element kept only
// to name a region with the same box (it is no candidate of its own).
type candidate struct {
	box             rect
	ref, role, name string
	region, anyRole bool
	limit           rect // the iframe it shows in, else zero (the viewport)
	hasLimit        bool
}

// snapCandidates reads the snapshot's lines with a ref and a box.
// Elements in an iframe are moved by the iframe's box and clipped to it.
func snapCandidates(snap string, marksOf map[string][]string) []candidate {
	type frame struct {
		indent int
		box    rect
	}
	var frames []frame // the iframes the current line is nested in
	var out []candidate
	for line := range strings.Lines(snap) {
		body := strings.TrimLeft(line, " ")
		indent := len(line) - len(body)
		for len(frames) > 0 && frames[len(frames)-1].indent >= indent {
			frames = frames[:len(frames)-1]
		}
		i, boxText, after := boxAttr(line)
		if i < 0 {
			continue
		}
		box, ok := parseBox(boxText)
		if !ok {
			continue
		}
		inFrame := len(frames) > 0
		var c candidate
		if inFrame {
			f := frames[len(frames)-1].box
			box.x, box.y = box.x+f.x, box.y+f.y
			c.limit, c.hasLimit = f, true
		}
		c.box = box
		head := strings.TrimPrefix(strings.TrimPrefix(line[indent:i], "- "), "'")
		c.role, c.name, c.ref = keyParts(head)
		if text, ok := strings.CutPrefix(strings.TrimRight(after, "\r\n"), ": "); ok && c.name == "" {
			c.name = inlineText(text) // a generic's text: "- generic [ref=e7] [box=...]: Card"
		}
		if c.role == "iframe" {
			frames = append(frames, frame{indent, box})
		}
		if c.ref == "" {
			continue
		}
		flagged := strings.Contains(head, " [cursor=pointer]")
		if !inFrame { // marksJS reads the main frame only
			for _, k := range marksOf[boxText] {
				flagged = flagged || k == "clickable" || k == "draggable" || k == "droppable" || k == "hoverable"
			}
		}
		c.anyRole = !somRoles[c.role] && !flagged
		out = append(out, c)
	}
	return out
}

// keyParts reads a snapshot key: `button "Sign in" [ref=e5] ...`.
func keyParts(key string) (role, name, ref string) {
	role, rest, _ := strings.Cut(key, " ")
	role = strings.TrimSuffix(role, ":")
	if strings.HasPrefix(rest, `"`) {
		q := strings.ReplaceAll(rest, `''`, `'`) // a single-quoted YAML key doubles quotes
		if qp, err := strconv.QuotedPrefix(q); err == nil {
			name, _ = strconv.Unquote(qp)
			rest = q[len(qp):]
		}
	}
	if m := refInSnap.FindStringSubmatch(rest); m != nil {
		ref = m[1]
	}
	return role, name, ref
}

// inlineText is a line's text after the key, unquoted when YAML quoted
// it.
func inlineText(s string) string {
	if u, err := strconv.Unquote(s); err == nil {
		return u
	}
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'")
	}
	return s
}

func parseBox(s string) (rect, bool) {
	var v [4]int
	for i, p := range strings.SplitN(s, ",", 4) {
		n, err := strconv.Atoi(p)
		if err != nil {
			return rect{}, false
		}
		v[i] = n
	}
	return rect{v[0], v[1], v[2], v[3]}, true
}

// regionCandidates reads regionsJS's answer.
func regionCandidates(regions []any) []candidate {
	var out []candidate
	for _, r := range regions {
		a, ok := r.([]any)
		if !ok || len(a) != 6 {
			continue
		}
		var v [4]int
		for i := range v {
			switch n := a[i].(type) { // Playwright gives whole numbers as int
			case int:
				v[i] = n
			case float64:
				v[i] = int(n)
			}
		}
		kind, _ := a[4].(string)
		name, _ := a[5].(string)
		out = append(out, candidate{box: rect{v[0], v[1], v[2], v[3]}, role: kind, name: name, region: true})
	}
	return out
}

// unhidden drops the regions (found by the page, not the snapshot) that
// lie within the box of an element the judge took out of the snapshot
// (raw, before it; snap, after): a link nobody can see is no region
// either.
func unhidden(regions []candidate, raw, snap string) []candidate {
	kept := map[string]bool{}
	snapRefs(snap, kept)
	var gone []rect
	for _, c := range snapCandidates(raw, nil) {
		if !kept[c.ref] {
			gone = append(gone, c.box)
		}
	}
	if len(gone) == 0 {
		return regions
	}
	return slices.DeleteFunc(regions, func(r candidate) bool {
		return slices.ContainsFunc(gone, func(g rect) bool {
			return r.box.x >= g.x-1 && r.box.y >= g.y-1 && r.box.x+r.box.w <= g.x+g.w+1 && r.box.y+r.box.h <= g.y+g.h+1
		})
	})
}

// pickMarks clips the candidates to the viewport (w x h), drops what is
// tiny, duplicated or covered by another, and numbers the rest in reading
// order; total counts them before the cap.
func pickMarks(cands []candidate, w, h int) (marks []abi.ScreenMark, total int) {
	view := rect{0, 0, w, h}
	var keep, named []candidate
	for _, c := range cands {
		if c.hasLimit {
			c.box = c.box.clip(c.limit)
		}
		c.box = c.box.clip(view)
		if c.box.w < somMinSide || c.box.h < somMinSide {
			continue
		}
		if c.anyRole {
			named = append(named, c)
		} else if !c.region {
			keep = append(keep, c)
		}
	}
	elements := len(keep)
	for _, c := range cands {
		if !c.region {
			continue
		}
		c.box = c.box.clip(view)
		if c.box.w < somMinSide || c.box.h < somMinSide || covered(c.box, keep[:elements]) {
			continue
		}
		// A region that is an element of the snapshot takes its ref.
		for _, n := range named {
			if n.box == c.box {
				c.ref, c.role, c.name = n.ref, n.role, cmpOr(n.name, c.name)
				break
			}
		}
		keep = append(keep, c)
	}
	readingOrder(keep)
	seen := map[rect]bool{}
	for _, c := range keep {
		if seen[c.box] {
			continue
		}
		seen[c.box] = true
		total++
		if len(marks) < abi.MaxScreenMarks {
			marks = append(marks, abi.ScreenMark{Mark: len(marks) + 1, Ref: c.ref, Role: c.role, Name: cut(c.name, somNameMax), Box: [4]int{c.box.x, c.box.y, c.box.w, c.box.h}})
		}
	}
	return marks, total
}

// readingOrder sorts boxes top to bottom, then by rows left to right: a
// box whose top is within rowSlack (at most half the height) of the first
// box of a row joins that row.
func readingOrder(c []candidate) {
	slices.SortStableFunc(c, func(a, b candidate) int { return cmp.Or(a.box.y-b.box.y, a.box.x-b.box.x) })
	for i := 0; i < len(c); {
		j := i + 1
		for j < len(c) && c[j].box.y < c[i].box.y+max(1, min(rowSlack, c[i].box.h/2)) {
			j++
		}
		slices.SortStableFunc(c[i:j], func(a, b candidate) int { return a.box.x - b.box.x })
		i = j
	}
}

// covered: r lies inside one of the elements, or wraps one that fills
// most of it (a clickable wrapper of a button is that button).
func covered(r rect, elements []candidate) bool {
	for _, e := range elements {
		if e.box.contains(r) || r.contains(e.box) && 4*e.box.w*e.box.h >= 3*r.w*r.h {
			return true
		}
	}
	return false
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// cut keeps the first n characters of s.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
