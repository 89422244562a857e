package browser

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/capability"
)

// fakeVision records the queries ww_vision_locate sends and answers a
// fixed point.
type fakeVision struct {
	mu      sync.Mutex
	queries []VisionQuery
}

func (f *fakeVision) locate(ctx context.Context, personality string, q VisionQuery) (abi.VisionLocateResponse, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.queries = append(f.queries, q)
	return abi.VisionLocateResponse{X: 5, Y: 6, Answer: `{"x": 5, "y": 6}`}, nil
}

func (f *fakeVision) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.queries)
}

// TestVisionLocateSendsTheViewport: ww_vision_locate sends the model the
// viewport as PNG (with its size), the legend the marks seam gives and the
// description, and returns the answer with the session's state; without a
// configured model it is not_available.
func TestVisionLocateSendsTheViewport(t *testing.T) {
	t.Parallel() // independent of the package's other tests: overlaps their waits
	_, err := call[abi.VisionLocateResponse](t, svc, caller(t.Name(), capability.Vision), abi.HostVisionLocate, abi.VisionLocateRequest{Description: "x"})
	wantCode(t, err, abi.CodeNotAvailable, "[vision] endpoint")

	fv := &fakeVision{}
	s, e := New(testConfig(t.TempDir()), Options{Logger: quietLogger(), Vision: fv.locate})
	if e != nil {
		t.Fatal(e)
	}
	defer s.Close(context.Background())
	marks := []abi.ScreenMark{{Mark: 1, Ref: "e2", Role: "heading", Name: "Welcome", Box: [4]int{1, 2, 3, 4}}}
	plain := s.inspector.markShot
	s.inspector.markShot = func(ss *session, t *tab) ([]byte, []abi.ScreenMark, error) {
		img, _, err := plain(ss, t)
		return img, marks, err
	}
	c := caller(t.Name(), capability.BrowserRead, capability.BrowserAct, capability.Vision)
	must[abi.BrowserNavigateResponse](t, s, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL + "/"})
	_, err = call[abi.VisionLocateResponse](t, s, c, abi.HostVisionLocate, abi.VisionLocateRequest{Description: "  "})
	wantCode(t, err, abi.CodeInputInvalid, "description")
	got := must[abi.VisionLocateResponse](t, s, c, abi.HostVisionLocate, abi.VisionLocateRequest{Description: "the heading", Action: "click"})
	if got.X != 5 || got.Y != 6 || got.State.Title != "Home" {
		t.Fatalf("answer %+v", got)
	}
	q := fv.queries[0]
	if w, h := imageSize(q.Image); w != q.Width || h != q.Height || w < 100 || h < 100 || string(q.Image[1:4]) != "PNG" {
		t.Errorf("image %dx%d (%d bytes), query says %dx%d", w, h, len(q.Image), q.Width, q.Height)
	}
	if q.Description != "the heading" || q.Action != "click" || len(q.Marks) != 1 || q.Marks[0] != marks[0] {
		t.Errorf("query %+v", q)
	}
	_, err = call[abi.VisionLocateResponse](t, s, caller(t.Name(), capability.BrowserRead), abi.HostVisionLocate, abi.VisionLocateRequest{Description: "x"})
	wantCode(t, err, abi.CodeRefused, "vision")
}

// TestVisionLocateKeepsSecrets: a page holding a filled password, or
// showing a secret value of the session, is not sent to the model unless
// the personality allows it.
func TestVisionLocateKeepsSecrets(t *testing.T) {
	t.Parallel() // independent of the package's other tests: overlaps their waits
	fv := &fakeVision{}
	var allow bool
	s, e := New(testConfig(t.TempDir()), Options{Logger: quietLogger(), Vision: fv.locate,
		SecretValues:  func(p, s string) []string { return []string{"Welcome"} },
		VisionSecrets: func(p string) bool { return allow }})
	if e != nil {
		t.Fatal(e)
	}
	defer s.Close(context.Background())
	c := caller(t.Name(), capability.BrowserRead, capability.BrowserAct, capability.Vision)
	loc := abi.VisionLocateRequest{Description: "the Send button"}
	for _, page := range []string{"/", "/form"} {
		snap := must[abi.BrowserNavigateResponse](t, s, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL + page}).Snapshot
		if page == "/form" {
			// The form shows no secret until its password field is filled.
			must[abi.VisionLocateResponse](t, s, c, abi.HostVisionLocate, loc)
			must[abi.BrowserActResponse](t, s, c, abi.HostBrowserAct, abi.BrowserActRequest{Action: abi.ActFill, Ref: refOf(t, snap, "Password"), Text: "pw-typed"})
		}
		before := fv.count()
		_, err := call[abi.VisionLocateResponse](t, s, c, abi.HostVisionLocate, loc)
		wantCode(t, err, abi.CodeRefused, "vision_allow_secrets")
		if fv.count() != before {
			t.Fatalf("%s: the model was asked", page)
		}
	}
	// A secret value a page shows inside a closed shadow root, which no
	// script of the page's or ours reads: the protocol does.
	must[abi.BrowserNavigateResponse](t, s, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: servePage(t,
		`<p>Plain words.</p><div id="h"></div><script>document.getElementById("h").attachShadow({mode: "closed"}).innerHTML = "<p>Welcome back</p>";</script>`)})
	before := fv.count()
	_, err := call[abi.VisionLocateResponse](t, s, c, abi.HostVisionLocate, loc)
	wantCode(t, err, abi.CodeRefused, "vision_allow_secrets")
	if fv.count() != before {
		t.Fatal("a closed shadow root's secret: the model was asked")
	}
	allow = true
	before = fv.count()
	must[abi.VisionLocateResponse](t, s, c, abi.HostVisionLocate, loc)
	if fv.count() != before+1 {
		t.Fatal("allowed, the model was not asked")
	}
}

// TestTypeAtPoint: type at a viewport point (what browser_vision_type does
// for a field without a ref) clicks there and replaces the focused field's
// text through the keyboard; into a password field, the value goes to the
// session's secrets like any typed password.
func TestTypeAtPoint(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c := caller(t.Name())
	nav(t, c, "/form")
	at := func(sel string) (*float64, *float64) {
		r := must[abi.BrowserEvaluateResponse](t, svc, c, abi.HostBrowserEvaluate, abi.BrowserEvaluateRequest{
			Expression: `() => { const r = document.querySelector("` + sel + `").getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2] }`})
		var p [2]float64
		if err := json.Unmarshal(r.Result, &p); err != nil {
			t.Fatal(err)
		}
		return &p[0], &p[1]
	}
	x, y := at(`input[name=name]`)
	act(t, c, abi.BrowserActRequest{Action: abi.ActFill, X: x, Y: y, Text: "first"})
	snap := act(t, c, abi.BrowserActRequest{Action: abi.ActFill, X: x, Y: y, Text: "Ada"}).Snapshot
	if !strings.Contains(snap, `textbox "Name"`) || !strings.Contains(snap, "Ada") || strings.Contains(snap, "first") {
		t.Fatalf("typed at the point:\n%s", snap)
	}
	x, y = at(`input[name=pw]`)
	act(t, c, abi.BrowserActRequest{Action: abi.ActFill, X: x, Y: y, Text: "pw-at-point"})
	if !slices.Contains(heldSecrets("tester", t.Name()), "pw-at-point") {
		t.Errorf("the password typed at a point is not a session secret: %v", heldSecrets("tester", t.Name()))
	}
	wantCode(t, actErr(t, c, abi.BrowserActRequest{Action: abi.ActFill, Text: "x"}), abi.CodeInputInvalid, "needs a ref")

	// A password field inside a frame: the page's focused element is the
	// iframe, yet the text typed there is a session secret too.
	nav(t, c, "/framed-login")
	fx, fy := at(`iframe`) // 400x120; the input fills its top-left 300x80
	*fx, *fy = *fx-200+100, *fy-60+40
	act(t, c, abi.BrowserActRequest{Action: abi.ActFill, X: fx, Y: fy, Text: "framed-pw"})
	if !slices.Contains(heldSecrets("tester", t.Name()), "framed-pw") {
		t.Errorf("the password typed at a point inside a frame is not a session secret: %v", heldSecrets("tester", t.Name()))
	}
}
