package browser

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/hostfuncs/browser/som"
)

// onSomPage is a caller of the test's own session, navigated by req to
// the set-of-marks page at req.URL (a path of somPages), and the answer.
func onSomPage(t *testing.T, req abi.BrowserNavigateRequest) (*hostfuncs.Caller, abi.BrowserNavigateResponse) {
	t.Helper()
	c := caller(t.Name())
	req.URL = somPages(t).URL + req.URL
	return c, must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, req)
}

// somPages serves the set-of-marks pages on loopback.
func somPages(t *testing.T) *httptest.Server {
	t.Helper()
	pages := map[string]string{
		// Controls of every kind, one off-screen to the left, one cut by
		// the left edge, one far below; a clickable <div> with no role,
		// and a clickable <span> inside a link (the link's mark covers it).
		"/controls": `<title>Controls</title><style>body{margin:0;font:16px sans-serif} .c{position:absolute}</style>
			<button class="c" style="left:20px;top:20px;width:120px;height:32px">Sign in</button>
			<a class="c" href="/x" style="left:200px;top:26px">Help <span style="cursor:pointer">centre</span></a>
			<input class="c" aria-label="Email" style="left:20px;top:80px;width:200px">
			<input class="c" type="checkbox" aria-label="Remember" style="left:260px;top:84px">
			<select class="c" aria-label="Plan" style="left:20px;top:130px"><option>Free</option><option>Pro</option></select>
			<input class="c" type="radio" name="r" aria-label="Monthly" style="left:200px;top:130px">
			<div class="c" style="left:20px;top:200px;width:150px;height:50px;cursor:pointer;background:#eee">Card</div>
			<button class="c" style="left:-500px;top:300px">Gone left</button>
			<button class="c" style="left:-20px;top:300px;width:100px;height:30px">Half in</button>
			<button class="c" style="left:20px;top:5000px">Far below</button>
			<iframe class="c" title="pane" style="left:400px;top:150px;width:300px;height:120px"
				srcdoc="<body style='margin:10px'><button>In frame</button></body>"></iframe>`,
		// A canvas-only page: it draws two buttons and records clicks by
		// coordinates.
		"/canvas": `<title>Canvas</title><style>body{margin:0}</style>
			<canvas id="c" width="400" height="300" style="position:absolute;left:40px;top:60px"></canvas>
			<p id="out" style="position:absolute;top:400px">none</p>
			<script>
			const c = document.getElementById("c"), g = c.getContext("2d");
			const buttons = [["OK", 20, 20, 120, 40], ["Cancel", 200, 20, 120, 40]];
			for (const [label, x, y, w, h] of buttons) { g.fillStyle = "#36c"; g.fillRect(x, y, w, h); g.fillStyle = "#fff"; g.fillText(label, x + 10, y + 25); }
			c.addEventListener("click", ev => {
				const r = c.getBoundingClientRect(), x = ev.clientX - r.left, y = ev.clientY - r.top;
				const hit = buttons.find(([, bx, by, bw, bh]) => x >= bx && x < bx + bw && y >= by && y < by + bh);
				document.getElementById("out").textContent = hit ? "clicked " + hit[0] : "missed";
			});
			</script>`,
		// A secret shown as text, black on white, beside a button.
		"/secret": `<title>Secret</title><style>body{margin:0;background:#fff}</style>
			<p style="position:absolute;left:20px;top:100px;margin:0;font:40px monospace;color:#000">TOPSECRET-1234</p>
			<button style="position:absolute;left:20px;top:20px">Go</button>
			<button style="position:absolute;left:100px;top:20px" aria-label="Pay as TOPSECRET-1234">Pay</button>`,
		// Issue 27: a link flush with the top-left corner (a tag above it
		// has no room), a button, and drop zones that take drops through
		// listeners only.
		"/labels": `<title>Labels</title><style>body{margin:0;font:16px sans-serif} .c{position:absolute} .z{width:220px;height:120px;border:1px dashed #888}</style>
			<a class="c" href="/" style="left:0;top:0;font-size:20px">Home</a>
			<button class="c" style="left:120px;top:0;height:28px">Write report</button>
			<div class="c z" id="todo" style="left:20px;top:80px">To do</div>
			<div class="c z" id="done" style="left:300px;top:80px">Done</div>
			<script>for (const z of [todo, done]) { z.addEventListener("dragover", e => e.preventDefault()); z.addEventListener("drop", e => e.preventDefault()); }</script>`,
		// A dense catalogue: cards packed tight, each a name, a price and
		// two buttons, and under it a form whose labels sit right above
		// their fields.
		"/catalogue": catalogue(),
		// A hostile crowd: 600 clickable spans, and one element with 5000
		// children.
		"/crowd": `<title>Crowd</title><style>body{margin:0} span{display:inline-block;width:12px;height:12px;margin:1px;cursor:pointer;background:#ccc}</style>
			<div id="crowd"></div><div id="big"></div>
			<script>
			document.getElementById("crowd").innerHTML = "<span></span>".repeat(600);
			document.getElementById("big").innerHTML = "<i></i>".repeat(5000);
			</script>`,
	}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, "<!doctype html>"+body)
	}))
	t.Cleanup(s.Close)
	return s
}

// catalogue is the /catalogue page of somPages.
func catalogue() string {
	var b strings.Builder
	b.WriteString(`<title>Catalogue</title><style>body{margin:0;font:14px sans-serif} .grid{display:grid;grid-template-columns:repeat(5,170px);gap:4px;padding:6px}
		.card{border:1px solid #ccc;padding:3px} .card p{margin:0} button{font:13px sans-serif;margin:1px 0}
		form{padding:6px;display:grid;grid-template-columns:repeat(3,230px);gap:2px 8px} label{display:block;font-size:13px} input{width:200px}</style><div class="grid">`)
	for i := range 30 {
		fmt.Fprintf(&b, `<div class="card"><p>Trail boot %d</p><p>€ %d9.95</p><button>Add to cart</button> <button>Save</button></div>`, i+1, 4+i%5)
	}
	b.WriteString(`</div><form>`)
	for _, f := range []string{"First name", "Last name", "Email", "Street", "Postcode", "City"} {
		fmt.Fprintf(&b, `<div><label>%s<br><input name=%q></label></div>`, f, f)
	}
	b.WriteString(`<button>Order</button></form>`)
	return b.String()
}

func shotWithMarks(t *testing.T, c *hostfuncs.Caller, req abi.BrowserScreenshotRequest) (abi.BrowserScreenshotResponse, image.Image) {
	t.Helper()
	req.Marks = true
	out := must[abi.BrowserScreenshotResponse](t, svc, c, abi.HostBrowserScreenshot, req)
	data, _ := base64.StdEncoding.DecodeString(out.Data)
	img, _, err := image.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("the marked screenshot does not decode: %v", err)
	}
	return out, img
}

func evalJSON[T any](t *testing.T, c *hostfuncs.Caller, expr string) T {
	t.Helper()
	r := must[abi.BrowserEvaluateResponse](t, svc, c, abi.HostBrowserEvaluate, abi.BrowserEvaluateRequest{Expression: expr})
	var v T
	if err := json.Unmarshal(r.Result, &v); err != nil {
		t.Fatalf("%s: %v (%s)", expr, err, r.Result)
	}
	return v
}

// checkLegend: marks numbered 1..N in reading order, each box inside the
// viewport and at least som.MinSide a side; the image is the viewport.
func checkLegend(t *testing.T, c *hostfuncs.Caller, out abi.BrowserScreenshotResponse, img image.Image) {
	t.Helper()
	vp := evalJSON[[2]int](t, c, `() => [innerWidth, innerHeight]`)
	if b := img.Bounds(); b.Dx() != vp[0] || b.Dy() != vp[1] || out.Width != vp[0] || out.Height != vp[1] {
		t.Fatalf("image %v (reported %dx%d), viewport %v", b, out.Width, out.Height, vp)
	}
	if len(out.Marks) == 0 || len(out.Marks) > abi.MaxScreenMarks || out.MarksTotal < len(out.Marks) {
		t.Fatalf("%d marks of %d", len(out.Marks), out.MarksTotal)
	}
	for i, m := range out.Marks {
		x, y, w, h := m.Box[0], m.Box[1], m.Box[2], m.Box[3]
		if m.Mark != i+1 || x < 0 || y < 0 || w < som.MinSide || h < som.MinSide || x+w > vp[0] || y+h > vp[1] {
			t.Errorf("mark %d: %+v outside the viewport %v or misnumbered", i+1, m, vp)
		}
		// Reading order: a mark left of the one before starts a new row,
		// lower down; one higher up is on the same row, to its right.
		if p := out.Marks[max(0, i-1)].Box; i > 0 && (x < p[0] && y <= p[1] || y < p[1]-som.RowSlack) {
			t.Errorf("mark %d %v comes before mark %d %v in reading order", i, p, i+1, m.Box)
		}
	}
}

func near(a, b [4]int) bool {
	for i := range a {
		if d := a[i] - b[i]; d < -2 || d > 2 {
			return false
		}
	}
	return true
}

// TestMarkedScreenshotControls: every control in the viewport, one in an
// iframe too, has a mark with its ref and its bounding box (clipped to the
// viewport, within 2 px: an iframe's border is not counted); the
// off-screen ones have none; the clickable div without a role has one,
// the clickable span inside the link has none of its own; each mark's
// border is drawn in its colour where the plain screenshot shows the
// page.
func TestMarkedScreenshotControls(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c, r := onSomPage(t, abi.BrowserNavigateRequest{URL: "/controls"})
	out, img := shotWithMarks(t, c, abi.BrowserScreenshotRequest{})
	checkLegend(t, c, out, img)
	if out.MIME != "image/png" || out.MarksTotal != len(out.Marks) {
		t.Errorf("mime %s, %d of %d marks", out.MIME, len(out.Marks), out.MarksTotal)
	}
	byRef := map[string]abi.ScreenMark{}
	for _, m := range out.Marks {
		byRef[m.Ref] = m
	}
	boxes := evalJSON[map[string][4]float64](t, c, `() => Object.fromEntries([...document.querySelectorAll("button, a, input, select")].map(e => {
		const r = e.getBoundingClientRect(); return [e.getAttribute("aria-label") || e.textContent.trim(), [r.x, r.y, r.width, r.height]]; }))`)
	inFrame := evalJSON[[4]float64](t, c, `() => { const f = document.querySelector("iframe"), o = f.getBoundingClientRect();
		const r = f.contentDocument.querySelector("button").getBoundingClientRect();
		return [o.x + f.clientLeft + r.x, o.y + f.clientTop + r.y, r.width, r.height]; }`)
	boxes["In frame"] = inFrame
	want := map[string]string{"In frame": `button "In frame"`, "Sign in": `button "Sign in"`, "Help centre": `link "Help centre"`, "Email": `textbox "Email"`,
		"Remember": `checkbox "Remember"`, "Plan": `combobox "Plan"`, "Monthly": `radio "Monthly"`}
	for label, line := range want {
		b := boxes[label]
		box := [4]int{int(b[0] + .5), int(b[1] + .5), int(b[2] + .5), int(b[3] + .5)}
		m, ok := byRef[refOf(t, r.Snapshot, line)]
		if !ok || !near(m.Box, box) || !strings.HasPrefix(line, m.Role+" ") {
			t.Errorf("%s: mark %+v, want box %v", line, m, box)
		}
	}
	half, ok := byRef[refOf(t, r.Snapshot, `button "Half in"`)]
	if !ok || half.Box != [4]int{0, 300, 80, 30} {
		t.Errorf("the button cut by the left edge: %+v, want its visible part 0,300,80,30", half)
	}
	for _, gone := range []string{`button "Gone left"`, `button "Far below"`} {
		if !strings.Contains(r.Snapshot, gone) {
			continue // not even in the snapshot: no one can scroll to it
		}
		if m, ok := byRef[refOf(t, r.Snapshot, gone)]; ok {
			t.Errorf("%s is outside the viewport but has mark %+v", gone, m)
		}
	}
	var card, spans int
	for _, m := range out.Marks {
		if m.Box == [4]int{20, 200, 150, 50} {
			card++
		}
		if m.Ref == "" && m.Name == "centre" {
			spans++
		}
	}
	if card != 1 || spans != 0 {
		t.Errorf("the clickable div has %d marks (want 1), the span inside the link %d (want 0): %+v", card, spans, out.Marks)
	}

	raw := plainShot(t, c, img.Bounds())
	for i, m := range out.Marks {
		// The middle of the bottom border: labels sit at the top.
		x, y := m.Box[0]+m.Box[2]/2, m.Box[1]+m.Box[3]-1
		want := som.Colour(i)
		r1, g1, b1, _ := img.At(x, y).RGBA()
		r0, g0, b0, _ := raw.At(x, y).RGBA()
		if uint8(r1>>8) != want.R || uint8(g1>>8) != want.G || uint8(b1>>8) != want.B || r0 == r1 && g0 == g1 && b0 == b1 {
			t.Errorf("mark %d: pixel %d,%d is %v (plain %v), want its colour %v", m.Mark, x, y, img.At(x, y), raw.At(x, y), want)
		}
	}
}

// plainShot is the page's screenshot without marks, decoded; it must be
// the size of the marked one (bounds).
func plainShot(t *testing.T, c *hostfuncs.Caller, bounds image.Rectangle) image.Image {
	t.Helper()
	plain := must[abi.BrowserScreenshotResponse](t, svc, c, abi.HostBrowserScreenshot, abi.BrowserScreenshotRequest{})
	data, _ := base64.StdEncoding.DecodeString(plain.Data)
	raw, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("plain screenshot: %v", err)
	}
	if raw.Bounds() != bounds {
		t.Fatalf("plain screenshot: %v, the marked one %v", raw.Bounds(), bounds)
	}
	return raw
}

// TestMarkLabelsBesideTheirBoxes (issue 27): every mark's number sits
// outside its element's box, so the picture inside each box (its text)
// is the plain screenshot's, for a link flush with the top-left corner
// too; drop zones, which take drops through listeners only, are marked.
func TestMarkLabelsBesideTheirBoxes(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c, _ := onSomPage(t, abi.BrowserNavigateRequest{URL: "/labels"})
	out, img := shotWithMarks(t, c, abi.BrowserScreenshotRequest{})
	raw := plainShot(t, c, img.Bounds())
	names := map[string]bool{}
	for _, m := range out.Marks {
		names[m.Name] = true
		inner := image.Rect(m.Box[0], m.Box[1], m.Box[0]+m.Box[2], m.Box[1]+m.Box[3]).Inset(som.Border)
		changed := 0
		for y := inner.Min.Y; y < inner.Max.Y; y++ {
			for x := inner.Min.X; x < inner.Max.X; x++ {
				r1, g1, b1, _ := img.At(x, y).RGBA()
				r0, g0, b0, _ := raw.At(x, y).RGBA()
				if r0 != r1 || g0 != g1 || b0 != b1 {
					changed++
				}
			}
		}
		if changed > 0 {
			t.Errorf("mark %d (%s %q, box %v): %d pixels inside its box differ from the page: a label covers the element", m.Mark, m.Role, m.Name, m.Box, changed)
		}
	}
	for _, want := range []string{"Home", "Write report", "To do", "Done"} {
		if !names[want] {
			t.Errorf("no mark for %q: %+v", want, out.Marks)
		}
	}
}

// TestMarkLabelsClearOfText: on a dense catalogue and a tight form, no
// mark's label covers the page's text (another card's price or name, a
// field's label, a button's own words): every pixel of every text box
// (read from the page) is the plain screenshot's, but for the marks'
// outlines. Computed again from the legend and the page's text, most
// marks get a tag, none on another mark's box.
func TestMarkLabelsClearOfText(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c, _ := onSomPage(t, abi.BrowserNavigateRequest{URL: "/catalogue"})
	out, img := shotWithMarks(t, c, abi.BrowserScreenshotRequest{})
	raw := plainShot(t, c, img.Bounds())
	texts := evalJSON[[][4]int](t, c, `() => { const out = [], r = document.createRange(), w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
		for (let n = w.nextNode(); n; n = w.nextNode()) { if (!n.data.trim()) continue; r.selectNodeContents(n);
			for (const b of r.getClientRects()) out.push([Math.floor(b.left), Math.floor(b.top), Math.ceil(b.right), Math.ceil(b.bottom)]); }
		return out }`)
	if len(out.Marks) < 60 || len(texts) < 60 {
		t.Fatalf("%d marks, %d text boxes: the catalogue did not render", len(out.Marks), len(texts))
	}
	outline := func(x, y int) bool {
		for _, m := range out.Marks {
			r := markBox(m)
			if (image.Point{x, y}).In(r) && !(image.Point{x, y}).In(r.Inset(som.Border)) {
				return true
			}
		}
		return false
	}
	for _, tb := range texts {
		covered := 0
		for y := max(tb[1], 0); y < min(tb[3], img.Bounds().Dy()); y++ {
			for x := max(tb[0], 0); x < min(tb[2], img.Bounds().Dx()); x++ {
				r1, g1, b1, _ := img.At(x, y).RGBA()
				r0, g0, b0, _ := raw.At(x, y).RGBA()
				if (r0 != r1 || g0 != g1 || b0 != b1) && !outline(x, y) {
					covered++
				}
			}
		}
		if covered > 0 {
			t.Errorf("text at %v: %d pixels covered by a label", tb, covered)
		}
	}
	var rects []image.Rectangle
	for _, tb := range texts {
		rects = append(rects, image.Rect(tb[0], tb[1], tb[2], tb[3]))
	}
	labels, tagged := som.Tags(out.Marks, rects, img.Bounds()), 0
	for i, l := range labels {
		if l.Empty() {
			continue
		}
		tagged++
		for j, m := range out.Marks {
			if j != i && l.Overlaps(markBox(m)) && !markBox(out.Marks[i]).In(markBox(m)) {
				t.Errorf("mark %d's tag %v covers mark %d's box %v", i+1, l, j+1, m.Box)
			}
		}
	}
	if tagged < len(labels)*3/4 {
		t.Errorf("only %d of %d marks have a tag", tagged, len(labels))
	}
	t.Logf("%d marks, %d tagged, %d text boxes", len(labels), tagged, len(texts))
}

// TestMarkedScreenshotCanvas: a canvas-only page gets a mark for the
// canvas, and a point inside that mark clicks what the canvas drew there.
func TestMarkedScreenshotCanvas(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c, _ := onSomPage(t, abi.BrowserNavigateRequest{URL: "/canvas"})
	out, img := shotWithMarks(t, c, abi.BrowserScreenshotRequest{Format: "jpeg", Quality: 70})
	checkLegend(t, c, out, img)
	if out.MIME != "image/jpeg" || len(out.Marks) != 1 || out.Marks[0].Box != [4]int{40, 60, 400, 300} || out.Marks[0].Role != "canvas" {
		t.Fatalf("%s, marks %+v: want one canvas mark at 40,60,400,300", out.MIME, out.Marks)
	}
	// "Cancel" is drawn at 200,20 (120x40) inside the canvas.
	b := out.Marks[0].Box
	x, y := float64(b[0]+200+60), float64(b[1]+20+20)
	act(t, c, abi.BrowserActRequest{Action: "click", X: &x, Y: &y})
	if got := evalJSON[string](t, c, `() => document.getElementById("out").textContent`); got != "clicked Cancel" {
		t.Errorf("clicking inside the canvas mark: %q", got)
	}
}

// TestMarkedScreenshotBounded: 600 clickable spans and an element with
// 5000 children give MaxScreenMarks marks, the total says how many were
// found (each span once, though both the snapshot and the region scan
// find it), and every box stays in the viewport.
func TestMarkedScreenshotBounded(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c, _ := onSomPage(t, abi.BrowserNavigateRequest{URL: "/crowd", NoSnapshot: true})
	out, img := shotWithMarks(t, c, abi.BrowserScreenshotRequest{NoInline: false})
	checkLegend(t, c, out, img)
	if len(out.Marks) != abi.MaxScreenMarks || out.MarksTotal != 600 {
		t.Errorf("%d marks of %d: want %d of 600 (one per span)", len(out.Marks), out.MarksTotal, abi.MaxScreenMarks)
	}
}

// TestMarkedScreenshotRefused: marks are for the viewport, as PNG or JPEG.
func TestMarkedScreenshotRefused(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c := caller(t.Name())
	r := nav(t, c, "/form")
	for _, bad := range []abi.BrowserScreenshotRequest{
		{Marks: true, Mode: "full"},
		{Marks: true, Ref: refOf(t, r.Snapshot, `button "Send"`)},
		{Marks: true, Format: "webp"},
	} {
		_, err := call[abi.BrowserScreenshotResponse](t, svc, c, abi.HostBrowserScreenshot, bad)
		wantCode(t, err, abi.CodeInputInvalid, "")
		if !strings.Contains(err.Message, ": ") {
			t.Errorf("%+v: no next step in %q", bad, err.Message)
		}
	}
}

// TestMarkedShotMethod: markedShot (what the vision tools call) returns a
// PNG of the viewport and the legend, and its refs resolve.
func TestMarkedShotMethod(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c := caller(t.Name())
	nav(t, c, "/form")
	ss, tb, err := svc.sessions.pageTab(hostfuncs.WithCaller(context.Background(), c), c)
	if err != nil {
		t.Fatal(err)
	}
	data, marks, err := svc.inspector.markedShot(ss, tb)
	ss.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(bytes.NewReader(data))
	if err != nil || cfg.Width == 0 || len(marks) < 5 {
		t.Fatalf("%v, %dx%d, marks %+v", err, cfg.Width, cfg.Height, marks)
	}
	for _, m := range marks {
		if m.Role == "button" && m.Name == "Send" {
			act(t, c, abi.BrowserActRequest{Action: "click", Ref: m.Ref})
			if title := evalJSON[string](t, c, `() => document.title`); title != "Thanks" {
				t.Errorf("clicking mark %+v landed on %q", m, title)
			}
			return
		}
	}
	t.Errorf("no mark for the Send button: %+v", marks)
}

// TestSnapCandidates: roles, names with quotes and refs in them, a
// generic's text as its name, flags
// from the marks logic and Playwright's cursor, iframe offsets.
func TestSnapCandidates(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	snap := `- generic [ref=e1] [box=0,0,800,600]:
  - button "Say \"[ref=e99]\"" [ref=e2] [box=10,10,80,20]
  - generic [ref=e3] [cursor=pointer] [box=10,40,80,20]: Card
  - generic [ref=e4] [box=10,70,80,20]: Drag me
  - paragraph [ref=e5] [box=10,100,80,20]: text
  - iframe [ref=e6] [box=100,200,300,200]:
    - link "In frame" [ref=f1e1] [box=5,5,50,10]:
      - /url: /x
  - 'button "a: b" [ref=e7] [box=10,130,80,20]'
  - generic [ref=e8] [cursor=pointer] [box=10,160,80,20]: "x: y"
`
	got := []string{}
	for _, c := range snapCandidates(snap, map[string][]string{"10,70,80,20": {"draggable"}}) {
		got = append(got, fmt.Sprintf("%s|%s|%s|%v|%v|%v", c.Ref, c.Role, c.Name, c.Box, c.AnyRole, c.Limit))
	}
	want := []string{
		"e1|generic||{0 0 800 600}|true|{0 0 0 0}", `e2|button|Say "[ref=e99]"|{10 10 80 20}|false|{0 0 0 0}`,
		"e3|generic|Card|{10 40 80 20}|false|{0 0 0 0}", "e4|generic|Drag me|{10 70 80 20}|false|{0 0 0 0}",
		"e5|paragraph|text|{10 100 80 20}|true|{0 0 0 0}", "e6|iframe||{100 200 300 200}|true|{0 0 0 0}",
		"f1e1|link|In frame|{105 205 50 10}|false|{100 200 300 200}", "e7|button|a: b|{10 130 80 20}|false|{0 0 0 0}",
		"e8|generic|x: y|{10 160 80 20}|false|{0 0 0 0}",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestMarkedScreenshotTool: browser_screenshot {marks:true} through the
// browser plugin returns the marked image as image content, and the legend
// as text, one line per mark; marks with mode full are refused.
func TestMarkedScreenshotTool(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c := caller(t.Name())
	r := nav(t, c, "/form")
	res := mustTool(t, c, "browser_screenshot", `{"marks":true,"format":"jpeg","quality":60}`)
	if len(res.Images) != 1 || res.Images[0].MIME != "image/jpeg" {
		t.Fatalf("images: %+v", res.Images)
	}
	send := fmt.Sprintf(`%s button "Send" box=`, refOf(t, r.Snapshot, `button "Send"`))
	lines := 0
	for _, l := range strings.Split(res.Text, "\n") {
		if strings.HasPrefix(l, "[") {
			lines++
			if !strings.HasPrefix(l, fmt.Sprintf("[%d] ", lines)) {
				t.Errorf("legend line %d: %q", lines, l)
			}
		}
	}
	if lines < 5 || !strings.Contains(res.Text, send) {
		t.Errorf("%d legend lines, want the Send button (%s):\n%s", lines, send, res.Text)
	}
	_, err := tool(t, c, "browser_screenshot", `{"marks":true,"mode":"full"}`)
	wantCode(t, err, abi.CodeInputInvalid, "viewport only")
}

// TestMarkedShotHidesSecrets: markedShot hides the session's secret
// values from the image as every screenshot does (the vision tools send it
// to a model): the text's place shows the page's white background, and a
// mark named with it is named abi.RedactedValue.
func TestMarkedShotHidesSecrets(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c, _ := onSomPage(t, abi.BrowserNavigateRequest{URL: "/secret"})
	dark := func(data []byte) int {
		img, err := png.Decode(bytes.NewReader(data))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for y := 100; y < 150; y++ {
			for x := 20; x < 400; x++ {
				if r, _, _, _ := img.At(x, y).RGBA(); r < 0x8000 {
					n++
				}
			}
		}
		return n
	}
	shot := func() ([]byte, string) {
		ss, tb, err := svc.sessions.pageTab(hostfuncs.WithCaller(context.Background(), c), c)
		if err != nil {
			t.Fatal(err)
		}
		defer ss.mu.Unlock()
		data, marks, err := svc.inspector.markedShot(ss, tb)
		if err != nil || len(marks) != 2 {
			t.Fatalf("%v, marks %+v", err, marks)
		}
		return data, marks[1].Name
	}
	data, name := shot()
	if n := dark(data); n < 100 || name != "Pay as TOPSECRET-1234" {
		t.Fatalf("before the secret is held the text shows %d dark pixels and the button is named %q: the check sees nothing", n, name)
	}
	holdSecret(c, "TOPSECRET-1234")
	data, name = shot()
	if n := dark(data); n != 0 || name != abi.RedactedValue {
		t.Errorf("the secret shows in the marked screenshot: %d dark pixels, the button named %q", n, name)
	}
}

// markBox is a mark's box as an image rectangle.
func markBox(m abi.ScreenMark) image.Rectangle {
	return image.Rect(m.Box[0], m.Box[1], m.Box[0]+m.Box[2], m.Box[1]+m.Box[3])
}
