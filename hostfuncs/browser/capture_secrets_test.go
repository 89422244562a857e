package browser

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/png"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/internal/testkit"
)

// heldSecrets is the test service's Options.SecretValues: the values
// OnSecret recorded for the session, and those holdSecret added.
func heldSecrets(personality, session string) []string {
	secretsMu.Lock()
	defer secretsMu.Unlock()
	prefix := personality + "/" + session + "="
	var out []string
	for _, e := range secrets {
		if v, ok := strings.CutPrefix(e, prefix); ok {
			out = append(out, v)
		}
	}
	return out
}

// holdSecret makes v one of c's session's secrets, as a vault fill does.
func holdSecret(c *hostfuncs.Caller, v string) {
	secretsMu.Lock()
	secrets = append(secrets, c.Personality()+"/"+key(c.Personality(), c.Session()).session+"="+v)
	secretsMu.Unlock()
}

var (
	capOnce sync.Once
	capSrv  *httptest.Server
)

const (
	capUser = "ada@example.com"
	capPass = "Pässw0rd-Zq"
	capCode = "493817"
)

// capturePages serves a login page showing the credential's values in
// every way a benign page does: in fields (the password after the page's
// own "show password" toggle), as text split over elements, in an open
// shadow root, in an iframe of the same origin and one of another, as the chosen option of a select, and far
// below the fold; and text that is no secret, as the control.
func capturePages() *httptest.Server {
	capOnce.Do(func() {
		mux := http.NewServeMux()
		page := func(path, body string) {
			mux.HandleFunc(path, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/html; charset=utf-8")
				io.WriteString(w, `<!doctype html><meta charset=utf-8><meta name="viewport" content="width=device-width, initial-scale=1">`+body)
			})
		}
		page("/cap", `<title>Capture</title><style>
			body { margin: 0; background: #fff; color: #000; font: 28px/36px monospace; height: 2000px }
			.at { position: absolute; left: 8px; width: 560px; height: 36px; margin: 0; padding: 0; border: 0;
				background: #fff; color: #000; font: 28px/36px monospace; outline: none; appearance: none }
			#echo { transition: all 2s }
			</style>
			<input class="at" id="user" aria-label="User" style="top: 8px">
			<input class="at" id="pw" type="password" aria-label="Password" style="top: 52px">
			<button id="toggle" style="position: absolute; left: 600px; top: 52px; font: 20px monospace"
				onclick="pw.type = pw.type === 'password' ? 'text' : 'password'">Show password</button>
			<input class="at" id="otp" aria-label="Code" style="top: 96px">
			<p class="at" id="echo" style="top: 140px">Hi <b>ada</b>@example.com</p>
			<div class="at" id="plain" style="top: 184px">CONTROL 12345</div>
			<div class="at" id="host" style="top: 228px"></div>
			<iframe id="fr" title="inner" src="/cap-inner" style="position: absolute; left: 8px; top: 272px; width: 560px; height: 40px; border: 0"></iframe>
			<iframe id="fr2" title="other origin" style="position: absolute; left: 8px; top: 364px; width: 560px; height: 40px; border: 0"></iframe>
			<script>document.getElementById("fr2").src = "http://localhost:" + location.port + "/cap-inner"</script>
			<select class="at" id="sel" aria-label="Account" style="top: 320px"><option>other</option><option selected>ada@example.com</option></select>
			<div class="at" id="far" style="top: 1500px">`+capPass+`</div>
			<div class="at" id="farplain" style="top: 1560px">CONTROL 67890</div>
			<script>document.getElementById("host").attachShadow({mode: "open"}).innerHTML =
				'<span style="font: 28px/36px monospace">code `+capCode+`</span>';</script>`)
		page("/cap-inner", `<body style="margin: 0; background: #fff; color: #000; font: 28px/36px monospace"><p style="margin: 0">pw `+capPass+`</p>`)
		// A page that undoes any style change to its secret at once.
		page("/undo", `<title>Undo</title><p id="s" style="font: 28px monospace">`+capPass+`</p>
			<script>new MutationObserver(() => { const s = document.getElementById("s"); if (s.getAttribute("style") !== "font: 28px monospace") s.setAttribute("style", "font: 28px monospace"); })
				.observe(document.getElementById("s"), {attributes: true});</script>`)
		capSrv = httptest.NewServer(mux)
	})
	return capSrv
}

// box is an element's box in CSS pixels, in page coordinates.
type box struct{ X, Y, W, H float64 }

const boxesJS = `(ids) => {
	const out = {dpr: devicePixelRatio, boxes: {}};
	for (const id of ids) {
		const r = document.getElementById(id).getBoundingClientRect();
		out.boxes[id] = {X: r.x + scrollX, Y: r.y + scrollY, W: r.width, H: r.height};
	}
	return out;
}`

func boxesOf(t *testing.T, c *hostfuncs.Caller, ids ...string) (float64, map[string]box) {
	t.Helper()
	// The page's load event first: it waits for the frames, one of which
	// a script gives its src (at load 40 a shot taken before found it
	// blank).
	must[abi.BrowserEvaluateResponse](t, svc, c, abi.HostBrowserEvaluate, abi.BrowserEvaluateRequest{Expression: `() => document.readyState === "complete" || new Promise(r => addEventListener("load", () => r(true)))`})
	arg, _ := json.Marshal(ids)
	ev := must[abi.BrowserEvaluateResponse](t, svc, c, abi.HostBrowserEvaluate, abi.BrowserEvaluateRequest{Expression: "() => (" + boxesJS + ")(" + string(arg) + ")"})
	var res struct {
		DPR   float64        `json:"dpr"`
		Boxes map[string]box `json:"boxes"`
	}
	if err := json.Unmarshal(ev.Result, &res); err != nil {
		t.Fatal(err)
	}
	return res.DPR, res.Boxes
}

// ink counts the dark pixels of img inside b (CSS pixels, relative to the
// capture's origin), scaled by dpr and shrunk by 3 pixels on each side.
func ink(img image.Image, b box, dpr float64) int {
	x0, y0 := int((b.X)*dpr)+3, int((b.Y)*dpr)+3
	x1, y1 := int((b.X+b.W)*dpr)-3, int((b.Y+b.H)*dpr)-3
	return testkit.DarkPixels(img, image.Rect(x0, y0, x1, y1))
}

func shot(t *testing.T, c *hostfuncs.Caller, req abi.BrowserScreenshotRequest) image.Image {
	t.Helper()
	r := must[abi.BrowserScreenshotResponse](t, svc, c, abi.HostBrowserScreenshot, req)
	b, _ := base64.StdEncoding.DecodeString(r.Data)
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("decoding the screenshot: %v", err)
	}
	return img
}

func wantInk(t *testing.T, what string, img image.Image, boxes map[string]box, dpr float64, inked bool, ids ...string) {
	t.Helper()
	for _, id := range ids {
		n := ink(img, boxes[id], dpr)
		if inked && n < 20 {
			t.Errorf("%s: #%s shows nothing (%d dark pixels), but it holds no secret", what, id, n)
		}
		if !inked && n > 0 {
			t.Errorf("%s: #%s shows a secret (%d dark pixels)", what, id, n)
		}
	}
}

// TestScreenshotHidesHeldSecrets: viewport, full-page and element
// screenshots of a session holding a username, password and TOTP code
// show none of them, wherever the page shows them, and still show the
// rest; the page is left as it was.
func TestScreenshotHidesHeldSecrets(t *testing.T) {
	srv := capturePages()
	c := caller(t.Name())
	r := must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL + "/cap"})
	secretIDs := []string{"user", "pw", "otp", "echo", "host", "fr", "fr2", "sel"}
	ids := append([]string{"plain", "toggle", "far", "farplain"}, secretIDs...)

	// Before the session holds anything, the page shows its text: the
	// check below can see text where it is.
	act(t, c, abi.BrowserActRequest{Action: abi.ActFill, Ref: refOf(t, r.Snapshot, `textbox "User"`), Text: capUser})
	act(t, c, abi.BrowserActRequest{Action: abi.ActFill, Ref: refOf(t, r.Snapshot, `textbox "Code"`), Text: capCode})
	dpr, boxes := boxesOf(t, c, ids...)
	before := shot(t, c, abi.BrowserScreenshotRequest{Mode: "full"})
	wantInk(t, "no secrets held", before, boxes, dpr, true, "plain", "user", "otp", "echo", "host", "fr", "fr2", "sel", "far", "farplain")

	// The vault fills the password and records all three values.
	act(t, c, abi.BrowserActRequest{Action: abi.ActFill, Ref: refOf(t, r.Snapshot, `textbox "Password"`), Text: capPass})
	holdSecret(c, capUser)
	holdSecret(c, capCode)
	act(t, c, abi.BrowserActRequest{Action: abi.ActClick, Ref: refOf(t, r.Snapshot, `button "Show password"`)})
	styles := func() string {
		ev := must[abi.BrowserEvaluateResponse](t, svc, c, abi.HostBrowserEvaluate, abi.BrowserEvaluateRequest{
			Expression: `() => [...document.querySelectorAll("*")].map(e => e.id + ":" + e.getAttribute("style") + ":" + getComputedStyle(e).visibility).join("\n")`})
		return string(ev.Result)
	}
	was := styles()
	if !strings.Contains(was, "pw:") {
		t.Fatal("no styles read")
	}

	vp := shot(t, c, abi.BrowserScreenshotRequest{})
	wantInk(t, "viewport", vp, boxes, dpr, false, secretIDs...)
	wantInk(t, "viewport", vp, boxes, dpr, true, "plain", "toggle")

	full := shot(t, c, abi.BrowserScreenshotRequest{Mode: "full"})
	wantInk(t, "full page", full, boxes, dpr, false, append(secretIDs, "far")...)
	wantInk(t, "full page", full, boxes, dpr, true, "plain", "toggle", "farplain")

	// Element captures: the password field itself, and the paragraph
	// echoing the username.
	for _, want := range []string{`textbox "Password"`, `paragraph`} {
		snap := must[abi.BrowserSnapshotResponse](t, svc, c, abi.HostBrowserSnapshot, abi.BrowserSnapshotRequest{}).Snapshot
		el := shot(t, c, abi.BrowserScreenshotRequest{Ref: refOf(t, snap, want)})
		b := el.Bounds()
		if n := ink(el, box{0, 0, float64(b.Dx()), float64(b.Dy())}, 1); n > 0 || b.Dx() < 100 {
			t.Errorf("element screenshot of %s: %dx%d, %d dark pixels", want, b.Dx(), b.Dy(), n)
		}
	}
	snap := must[abi.BrowserSnapshotResponse](t, svc, c, abi.HostBrowserSnapshot, abi.BrowserSnapshotRequest{}).Snapshot
	el := shot(t, c, abi.BrowserScreenshotRequest{Ref: refOf(t, snap, `button "Show password"`)})
	if n := ink(el, box{0, 0, float64(el.Bounds().Dx()), float64(el.Bounds().Dy())}, 1); n < 20 {
		t.Errorf("element screenshot of a button shows nothing (%d dark pixels)", n)
	}

	if now := styles(); now != was {
		t.Errorf("the page was not restored after the captures:\nbefore %s\nafter  %s", was, now)
	}
}

// TestScreenshotHidesSecretsAtDeviceScale: with a device scale factor
// above 1 (a phone), the boxes in device pixels are hidden too.
func TestScreenshotHidesSecretsAtDeviceScale(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	srv := capturePages()
	c := caller(t.Name())
	must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL + "/cap"})
	must[abi.BrowserEmulateResponse](t, svc, c, abi.HostBrowserEmulate, abi.BrowserEmulateRequest{Device: "Pixel 7"})
	holdSecret(c, capUser)
	holdSecret(c, capPass)
	holdSecret(c, capCode)
	dpr, boxes := boxesOf(t, c, "plain", "echo", "host", "fr", "sel")
	if dpr <= 1 {
		t.Fatalf("device scale factor %v: the device did not apply", dpr)
	}
	vp := shot(t, c, abi.BrowserScreenshotRequest{})
	if b := vp.Bounds(); float64(b.Dy()) < 360*dpr {
		t.Fatalf("capture %dx%d at scale %v", b.Dx(), b.Dy(), dpr)
	}
	wantInk(t, "scaled viewport", vp, boxes, dpr, false, "echo", "host", "fr", "sel")
	wantInk(t, "scaled viewport", vp, boxes, dpr, true, "plain")
}

// TestPDFHidesHeldSecrets: a PDF of a page showing held values carries
// none of their text, and still carries the rest.
func TestPDFHidesHeldSecrets(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	srv := capturePages()
	c := caller(t.Name())
	r := must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL + "/cap"})
	act(t, c, abi.BrowserActRequest{Action: abi.ActFill, Ref: refOf(t, r.Snapshot, `textbox "User"`), Text: capUser})
	pdfText := func() string {
		pr := must[abi.BrowserPDFResponse](t, svc, c, abi.HostBrowserPDF, abi.BrowserPDFRequest{})
		b, err := os.ReadFile(pr.Path)
		if err != nil {
			t.Fatal(err)
		}
		return pdfShownText(t, b)
	}
	before := pdfText()
	for _, w := range []string{"CONTROL 12345", "ada@example.com", "code " + capCode, "pw " + capPass} {
		if !strings.Contains(before, w) {
			t.Fatalf("the PDF text reader misses %q before any secret is held: %q", w, before)
		}
	}
	holdSecret(c, capUser)
	holdSecret(c, capPass)
	holdSecret(c, capCode)
	after := pdfText()
	for _, w := range []string{"ada", capCode, "Pässw0rd", "example.com"} {
		if strings.Contains(after, w) {
			t.Errorf("the PDF shows %q: %q", w, after)
		}
	}
	if !strings.Contains(after, "CONTROL 12345") || !strings.Contains(after, "CONTROL 67890") {
		t.Errorf("the PDF lost the text that is no secret: %q", after)
	}
}

// TestCaptureFilesArePrivate: screenshots and PDFs are written 0600 in a
// 0700 folder, also over a looser file and folder left from before.
func TestCaptureFilesArePrivate(t *testing.T) {
	c := caller(t.Name())
	nav(t, c, "/")
	dir := filepath.Join(svc.cfg.WorkspaceDir, personalityDir(c.Personality()))
	os.MkdirAll(dir, 0o755)
	os.Chmod(dir, 0o755)
	os.WriteFile(filepath.Join(dir, "loose.png"), []byte("old"), 0o644)
	sr := must[abi.BrowserScreenshotResponse](t, svc, c, abi.HostBrowserScreenshot, abi.BrowserScreenshotRequest{Name: "loose", NoInline: true})
	pr := must[abi.BrowserPDFResponse](t, svc, c, abi.HostBrowserPDF, abi.BrowserPDFRequest{Name: "sub/page"})
	for _, p := range []string{sr.Path, pr.Path} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", p, fi.Mode().Perm())
		}
		d, _ := os.Stat(filepath.Dir(p))
		if d.Mode().Perm() != 0o700 {
			t.Errorf("%s has mode %v, want 0700", filepath.Dir(p), d.Mode().Perm())
		}
	}
	if b, _ := os.ReadFile(sr.Path); !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Error("the screenshot did not replace the old file")
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".capture-*")); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

// pdfShownText reads the text a Chromium (Skia) PDF shows: each page's
// content streams, their Tj/TJ strings decoded through the ToUnicode map
// of the font in use. Enough for the PDFs Chromium writes, not a general
// PDF reader.
func pdfShownText(t *testing.T, doc []byte) string {
	t.Helper()
	objRe := regexp.MustCompile(`(?s)(\d+) 0 obj(.*?)endobj`)
	objs := map[string][]byte{}
	streams := map[string][]byte{}
	for _, m := range objRe.FindAllSubmatch(doc, -1) {
		id, body := string(m[1]), m[2]
		objs[id] = body
		if i := bytes.Index(body, []byte("stream")); i >= 0 && bytes.Contains(body[:i], []byte("/FlateDecode")) {
			data := body[i+len("stream"):]
			data = bytes.TrimLeft(data, "\r\n")
			if j := bytes.LastIndex(data, []byte("endstream")); j >= 0 {
				data = data[:j]
			}
			zr, err := zlib.NewReader(bytes.NewReader(data))
			if err != nil {
				continue
			}
			out, _ := io.ReadAll(zr)
			streams[id] = out
		}
	}
	ref := func(body []byte, key string) string {
		m := regexp.MustCompile(key + `\s+(\d+) 0 R`).FindSubmatch(body)
		if m == nil {
			return ""
		}
		return string(m[1])
	}
	cmaps := map[string]map[uint16]string{} // font object -> code -> text
	hexRe := regexp.MustCompile(`<([0-9A-Fa-f]+)>`)
	for id, body := range objs {
		if !bytes.Contains(body, []byte("/Type /Font")) {
			continue
		}
		tu := ref(body, "/ToUnicode")
		cm := map[uint16]string{}
		src := streams[tu]
		for _, sec := range regexp.MustCompile(`(?s)beginbf(char|range)(.*?)endbf`).FindAllSubmatch(src, -1) {
			for _, line := range strings.Split(string(sec[2]), "\n") {
				hs := hexRe.FindAllStringSubmatch(line, -1)
				dec := func(h string) []rune {
					var rs []rune
					for i := 0; i+4 <= len(h); i += 4 {
						v, _ := strconv.ParseUint(h[i:i+4], 16, 16)
						rs = append(rs, rune(v))
					}
					return rs
				}
				if string(sec[1]) == "char" && len(hs) == 2 {
					c, _ := strconv.ParseUint(hs[0][1], 16, 16)
					cm[uint16(c)] = string(dec(hs[1][1]))
				}
				if string(sec[1]) == "range" && len(hs) == 3 {
					lo, _ := strconv.ParseUint(hs[0][1], 16, 16)
					hi, _ := strconv.ParseUint(hs[1][1], 16, 16)
					base := dec(hs[2][1])
					for c := lo; c <= hi && len(base) == 1; c++ {
						cm[uint16(c)] = string(base[0] + rune(c-lo))
					}
				}
			}
		}
		cmaps[id] = cm
	}
	var text strings.Builder
	tokRe := regexp.MustCompile(`/(\w+) [\d.]+ Tf|<([0-9A-Fa-f]*)>|\bET\b`)
	for _, body := range objs {
		if !bytes.Contains(body, []byte("/Type /Page\n")) && !bytes.Contains(body, []byte("/Type /Page\r")) {
			continue
		}
		fonts := map[string]string{}
		if m := regexp.MustCompile(`(?s)/Font\s*<<(.*?)>>`).FindSubmatch(body); m != nil {
			for _, f := range regexp.MustCompile(`/(\w+)\s+(\d+) 0 R`).FindAllSubmatch(m[1], -1) {
				fonts[string(f[1])] = string(f[2])
			}
		}
		content := streams[ref(body, "/Contents")]
		var cm map[uint16]string
		for _, tok := range tokRe.FindAllSubmatch(content, -1) {
			switch {
			case len(tok[1]) > 0:
				cm = cmaps[fonts[string(tok[1])]]
			case bytes.Equal(tok[0], []byte("ET")):
				text.WriteString("\n")
			default:
				h := string(tok[2])
				for i := 0; i+4 <= len(h); i += 4 {
					v, _ := strconv.ParseUint(h[i:i+4], 16, 16)
					text.WriteString(cm[uint16(v)])
				}
			}
		}
	}
	return text.String()
}

// TestScreenshotHidesClosedRootSecrets: a held value a page shows inside
// a closed shadow root (which no script reads), in the page or in a frame
// of another site (another process), and a closed root holding a field
// (whose value the protocol's tree does not carry), are hidden in the
// capture; a closed root showing other text is not; the hosts' styles
// come back as they were.
func TestScreenshotHidesClosedRootSecrets(t *testing.T) {
	t.Parallel() // its own session and page
	_, srv, page, other := twoSites(t)
	root := func(id, mode, html string) string {
		return `<div id="` + id + `" style="position:absolute; left:10px; top:` + map[string]string{"plain": "10", "openecho": "50", "closedecho": "90", "closedfield": "130", "closedother": "170"}[id] + `px; font:20px/24px sans-serif"></div>` +
			`<script>(window.roots ??= {})["` + id + `"] = document.getElementById("` + id + `").attachShadow({mode: "` + mode + `"}); roots["` + id + `"].innerHTML = ` + strconv.Quote(html) + `;</script>`
	}
	page("/closedsecrets", `<body style="margin:0"><p id="plain" style="position:absolute; left:10px; top:10px; margin:0; font:20px/24px sans-serif">plain words here</p>`+
		root("openecho", "open", "<span>"+capPass+"</span>")+
		root("closedecho", "closed", "<span>Your password: <b>"+capPass+"</b></span>")+
		root("closedfield", "closed", "<input size=20>")+
		`<script>roots.closedfield.querySelector("input").value = `+strconv.Quote(capPass)+`;</script>`+
		root("closedother", "closed", "<span>nothing secret here</span>")+
		`<iframe id="fr" src="`+other+`/closedframe" style="position:absolute; left:10px; top:220px; width:400px; height:60px; border:0"></iframe></body>`)
	page("/closedframe", `<body style="margin:0"><div id="h" style="font:20px/24px sans-serif"></div><script>document.getElementById("h").attachShadow({mode: "closed"}).innerHTML = "<span>`+capPass+`</span>";</script></body>`)
	c := caller(t.Name())
	must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL + "/closedsecrets"})
	ids := []string{"plain", "openecho", "closedecho", "closedfield", "closedother", "fr"}
	dpr, boxes := boxesOf(t, c, ids...)
	before := shot(t, c, abi.BrowserScreenshotRequest{})
	wantInk(t, "no secrets held", before, boxes, dpr, true, ids...)
	holdSecret(c, capPass)
	styles := func() string {
		ev := must[abi.BrowserEvaluateResponse](t, svc, c, abi.HostBrowserEvaluate, abi.BrowserEvaluateRequest{
			Expression: `() => [...document.querySelectorAll("div")].map(e => e.id + ":" + e.getAttribute("style")).join("\n")`})
		return string(ev.Result)
	}
	was := styles()
	img := shot(t, c, abi.BrowserScreenshotRequest{})
	wantInk(t, "secret held", img, boxes, dpr, false, "openecho", "closedecho", "closedfield", "fr")
	wantInk(t, "secret held", img, boxes, dpr, true, "plain", "closedother")
	if now := styles(); now != was {
		t.Errorf("the page was not restored after the capture:\nbefore %s\nafter  %s", was, now)
	}
	// Again, on the protocol sessions the first capture kept (one a
	// process, for the page's life).
	img = shot(t, c, abi.BrowserScreenshotRequest{})
	wantInk(t, "secret held, a second capture", img, boxes, dpr, false, "openecho", "closedecho", "closedfield", "fr")
	wantInk(t, "secret held, a second capture", img, boxes, dpr, true, "plain", "closedother")
	if now := styles(); now != was {
		t.Errorf("the page was not restored after the second capture:\nbefore %s\nafter  %s", was, now)
	}
}
