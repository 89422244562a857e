package browser

import (
	"bytes"
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
	"github.com/wasmwright/wasmwright/hostfuncs/browser/som"
)

// Set-of-marks: a viewport screenshot with numbered boxes drawn over the
// places an agent may want to click, and a legend saying what each number
// is. The boxes are drawn in Go (the som room), on the decoded image: nothing is
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
//     outermost element of each cursor:pointer run (som.Regions).
//
// som.Pick clips boxes to the viewport; those left under som.MinSide
// pixels a side go, as do duplicates (same box) and regions inside a kept
// element or wrapping one almost exactly. Marks are numbered 1..N top to
// bottom, then left to right within a row, at most abi.MaxScreenMarks.

// somNameMax is the most characters of a mark's name.
const somNameMax = 60

// somRoles are the ARIA roles that take input.
var somRoles = map[string]bool{
	"button": true, "link": true, "textbox": true, "checkbox": true, "radio": true,
	"combobox": true, "listbox": true, "menuitem": true, "menuitemcheckbox": true,
	"menuitemradio": true, "tab": true, "option": true, "slider": true, "switch": true,
	"searchbox": true, "spinbutton": true, "treeitem": true, "gridcell": true,
}

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
		regions []som.Candidate
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
	// A region's name is the page's text under it, hidden text and all:
	// it goes out only as the judged snapshot holds it (seentext.go).
	regions := unhidden(got.regions, got.raw, got.snap)
	seen := seenIndex{text: foldSeen(got.snap), ok: true}
	for i := range regions {
		regions[i].Name = seen.shown(regions[i].Name)
	}
	cands := append(snapCandidates(got.snap, got.marksOf), regions...)
	marks, total = som.Pick(cands, pic.Bounds().Dx(), pic.Bounds().Dy())
	for i := range marks { // names are page text: one may show a secret
		for _, v := range secrets {
			if v != "" && strings.Contains(marks[i].Name, v) {
				marks[i].Name = abi.RedactedValue
			}
		}
		marks[i].Name = cut(marks[i].Name, somNameMax)
	}
	canvas := image.NewRGBA(pic.Bounds())
	draw.Draw(canvas, canvas.Bounds(), pic, pic.Bounds().Min, draw.Src)
	som.Draw(canvas, marks, got.texts)
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

// findRegions starts reading the page's regions without a ref
// (som.Regions) and returns a function that waits for them at most wait;
// on a failure or past wait there are none.
func findRegions(p pw.Page) func(wait time.Duration) []som.Candidate {
	return background(func() []som.Candidate { return som.Regions(p.Evaluate) })
}

// findTextBoxes starts reading the boxes of the page's text
// (som.TextBoxes), which tags keep clear of, and returns a function that
// waits for them at most wait; on a failure or past wait there are none.
func findTextBoxes(p pw.Page) func(wait time.Duration) []image.Rectangle {
	return background(func() []image.Rectangle { return som.TextBoxes(p.Evaluate) })
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

// snapCandidates reads the snapshot's lines with a ref and a box.
// Elements in an iframe are moved by the iframe's box and clipped to it.
func snapCandidates(snap string, marksOf map[string][]string) []som.Candidate {
	type frame struct {
		indent int
		box    som.Rect
	}
	var frames []frame // the iframes the current line is nested in
	var out []som.Candidate
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
		var c som.Candidate
		if inFrame {
			f := frames[len(frames)-1].box
			box.X, box.Y = box.X+f.X, box.Y+f.Y
			c.Limit, c.HasLimit = f, true
		}
		c.Box = box
		head := strings.TrimPrefix(strings.TrimPrefix(line[indent:i], "- "), "'")
		c.Role, c.Name, c.Ref = keyParts(head)
		if text, ok := strings.CutPrefix(strings.TrimRight(after, "\r\n"), ": "); ok && c.Name == "" {
			c.Name = inlineText(text) // a generic's text: "- generic [ref=e7] [box=...]: Card"
		}
		if c.Role == "iframe" {
			frames = append(frames, frame{indent, box})
		}
		if c.Ref == "" {
			continue
		}
		flagged := strings.Contains(head, " [cursor=pointer]")
		if !inFrame { // marksJS reads the main frame only
			for _, k := range marksOf[boxText] {
				flagged = flagged || k == "clickable" || k == "draggable" || k == "droppable" || k == "hoverable"
			}
		}
		c.AnyRole = !somRoles[c.Role] && !flagged
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

func parseBox(s string) (som.Rect, bool) {
	var v [4]int
	for i, p := range strings.SplitN(s, ",", 4) {
		n, err := strconv.Atoi(p)
		if err != nil {
			return som.Rect{}, false
		}
		v[i] = n
	}
	return som.Rect{X: v[0], Y: v[1], W: v[2], H: v[3]}, true
}

// unhidden drops the regions (found by the page, not the snapshot) that
// lie within the box of an element the judge took out of the snapshot
// (raw, before it; snap, after): a link nobody can see is no region
// either.
func unhidden(regions []som.Candidate, raw, snap string) []som.Candidate {
	kept := map[string]bool{}
	snapRefs(snap, kept)
	var gone []som.Rect
	for _, c := range snapCandidates(raw, nil) {
		if !kept[c.Ref] {
			gone = append(gone, c.Box)
		}
	}
	if len(gone) == 0 {
		return regions
	}
	return slices.DeleteFunc(regions, func(r som.Candidate) bool {
		return slices.ContainsFunc(gone, func(g som.Rect) bool {
			return r.Box.X >= g.X-1 && r.Box.Y >= g.Y-1 && r.Box.X+r.Box.W <= g.X+g.W+1 && r.Box.Y+r.Box.H <= g.Y+g.H+1
		})
	})
}

// cut keeps the first n characters of s.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}
