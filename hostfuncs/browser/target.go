package browser

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"strings"
	"time"

	pw "github.com/mxschmitt/playwright-go"
)

// TargetInfo is what an approval shows of the element a call will act
// on: its role and name as the snapshot reads them, its page, and a
// picture of the viewport with the element boxed. Never a value typed or
// filled: the name is the accessible name, the picture the page as an
// operator's live view shows it (password fields dotted).
type TargetInfo struct {
	Ref, Role, Name string
	// Text is the element's visible text (its rendered innerText), which
	// a page can make differ from its accessible name: an approval shows
	// both. Empty for an element without text (an input: never a value).
	Text       string
	Title, URL string
	PNG        []byte
	// Part says what the element is to the call ("drop target", "field
	// 2"), Origin the origin of the frame that holds it (Bind).
	Part, Origin string
	// Secret: a password field (Bind): what is typed into it is shown
	// masked.
	Secret bool
	// Box is where the element was in the picture (CSS pixels of the
	// viewport), nil when it was not boxed: the console draws it again
	// over the live view.
	Box *Rect
}

// Rect is a box in CSS pixels of the viewport.
type Rect struct{ X, Y, Width, Height float64 }

// targetWait bounds describing a target: an approval must not wait on a
// stuck page to be asked.
const targetWait = 3 * time.Second

// DescribeTarget describes ref (from the latest snapshot of the session's
// current tab; "" for the page alone) for an approval. What cannot be read
// in time is left empty. picture: also take the boxed screenshot. It never
// waits for an agent's call: a session busy with one is described by its
// page only.
func (s *Service) DescribeTarget(personality, session, ref string, picture bool) TargetInfo {
	info := TargetInfo{}
	s.sessions.mu.Lock()
	ss := s.sessions.byKey[key(personality, session)]
	s.sessions.mu.Unlock()
	if ss == nil {
		return info
	}
	if !ss.mu.TryLock() {
		return info
	}
	defer ss.mu.Unlock()
	ss.evMu.Lock()
	var t *tab
	if ss.cur >= 0 && ss.cur < len(ss.tabs) {
		t = ss.tabs[ss.cur]
	}
	ss.evMu.Unlock()
	if t == nil {
		return info
	}
	info.URL = t.page.URL()
	if !t.document().clean() {
		// An unjudged or withheld page's words may reach the agent's own
		// client (an approval asked there): only where it is (gate.go).
		info.URL = originOf(info.URL)
		return info
	}
	bounded(targetWait, func() (err error) { info.Title, err = t.page.Title(); return err })
	var loc pw.Locator
	if r, err := normRef(ref); err == nil && t.refs[r] {
		info.Ref, loc = r, t.page.GetByRef(r)
		info.Role, info.Name = roleAndName(t.refLines[r])
		info.Text = visibleText(loc)
	}
	if picture {
		info.PNG, info.Box = boxedShot(t.page, loc)
	}
	return info
}

// visibleText is what a sighted person reads on the element: its
// innerText (laid-out text only, display:none left out), "" for a form
// field, whose innerText is empty and whose value is never shown, or when
// the page does not answer in time.
func visibleText(loc pw.Locator) string {
	var text string
	bounded(targetWait, func() (err error) {
		text, err = loc.InnerText(pw.LocatorInnerTextOptions{Timeout: pw.Float(float64(targetWait.Milliseconds()))})
		return err
	})
	return cut(strings.Join(strings.Fields(text), " "), somNameMax)
}

// roleAndName reads the first line of an aria snapshot: `- button "Go"`.
func roleAndName(snap string) (role, name string) {
	line, _, _ := strings.Cut(strings.TrimSpace(snap), "\n")
	line = strings.TrimPrefix(strings.TrimSpace(line), "- ")
	role, rest, _ := strings.Cut(line, " ")
	role = strings.TrimSuffix(role, ":")
	if i := strings.Index(rest, `"`); i >= 0 {
		if j := strings.Index(rest[i+1:], `"`); j >= 0 {
			name = rest[i+1 : i+1+j]
		}
	}
	return cut(role, 40), cut(name, somNameMax)
}

// boxedShot is a viewport screenshot with loc's box drawn on it (a red
// frame three pixels wide), drawn here in Go as the marks are: nothing is
// added to the page, and the box drawn (nil when none was). nil when the
// page does not answer in time.
func boxedShot(p pw.Page, loc pw.Locator) ([]byte, *Rect) {
	var shot []byte
	if bounded(targetWait, func() (err error) {
		shot, err = p.Screenshot(pw.PageScreenshotOptions{Timeout: pw.Float(float64(targetWait.Milliseconds()))})
		return err
	}) != nil {
		return nil, nil
	}
	if loc == nil {
		return shot, nil
	}
	var box *pw.Rect
	if bounded(targetWait, func() (err error) {
		box, err = loc.BoundingBox(pw.LocatorBoundingBoxOptions{Timeout: pw.Float(float64(targetWait.Milliseconds()))})
		return err
	}) != nil || box == nil {
		return shot, nil
	}
	src, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		return shot, nil
	}
	img := image.NewRGBA(src.Bounds())
	draw.Draw(img, img.Bounds(), src, image.Point{}, draw.Src)
	red := image.NewUniform(color.RGBA{R: 220, G: 30, B: 30, A: 255})
	x0, y0, x1, y1 := int(box.X), int(box.Y), int(box.X+box.Width), int(box.Y+box.Height)
	for w := range 3 {
		for _, r := range []image.Rectangle{
			image.Rect(x0-w-1, y0-w-1, x1+w+1, y0-w), image.Rect(x0-w-1, y1+w, x1+w+1, y1+w+1),
			image.Rect(x0-w-1, y0-w-1, x0-w, y1+w+1), image.Rect(x1+w, y0-w-1, x1+w+1, y1+w+1),
		} {
			draw.Draw(img, r.Intersect(img.Bounds()), red, image.Point{}, draw.Src)
		}
	}
	var out bytes.Buffer
	if png.Encode(&out, img) != nil {
		return shot, nil
	}
	return out.Bytes(), &Rect{X: box.X, Y: box.Y, Width: box.Width, Height: box.Height}
}
