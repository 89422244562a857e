package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/hostfuncs/browser"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

// A page as a navigation saw it: what the detector gets in Result.Page, and
// the ai-mode ARIA snapshot the compactor gets in Result.Snapshot.
type rendered struct {
	Name     string            `json:"name"`
	URL      string            `json:"url"`
	Status   int               `json:"status"`
	Headers  map[string]string `json:"headers"`
	Title    string            `json:"title"`
	Text     string            `json:"text"`
	HTML     string            `json:"html"`
	Snapshot string            `json:"snapshot"`
	Err      string            `json:"err,omitempty"`
	Millis   int64             `json:"ms"`
}

// Caps on what a navigation hands the detector, as a host would cap them.
const (
	textCap = browser.DefaultDetectMaxMB << 20
	htmlCap = browser.DefaultDetectMaxMB << 20
	// renderVersion changes the cache key when what we capture changes.
	renderVersion = "r2"
)

// doc is one corpus file to serve.
type doc struct {
	Name    string // file name without .html
	Path    string // file on disk
	Kind    string // "pages" or "walls"
	Status  int
	Headers map[string]string
	Vendor  string // walls: meta vendor
	WallKnd string // walls: meta kind
}

func (d doc) route() string { return "/" + d.Kind + "/" + d.Name + ".html" }

// server serves docs on loopback with their recorded status and headers.
type server struct {
	ln   net.Listener
	base string
	docs map[string]doc
}

func startServer(docs []doc) (*server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s := &server{ln: ln, base: "http://" + ln.Addr().String(), docs: map[string]doc{}}
	for _, d := range docs {
		s.docs[d.route()] = d
	}
	go http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, ok := s.docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		b, err := os.ReadFile(d.Path)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		for k, v := range d.Headers {
			w.Header().Set(k, v)
		}
		st := d.Status
		if st == 0 {
			st = 200
		}
		w.WriteHeader(st)
		w.Write(b)
	}))
	return s, nil
}

func (s *server) close() { s.ln.Close() }

// renderer drives Chromium through playwright-go.
type renderer struct {
	pw      *playwright.Playwright
	browser playwright.Browser
}

func newRenderer() (*renderer, error) {
	if os.Getenv("PLAYWRIGHT_CLI_PATH") == "" {
		cli := filepath.Join(wasmbuild.Root(), "build", "driver", "node_modules", "playwright-core", "cli.js")
		if _, err := os.Stat(cli); err != nil {
			return nil, fmt.Errorf("playwright driver not found at %s: npm install --no-audit --no-fund --prefix build/driver playwright-core@1.64.1", cli)
		}
		os.Setenv("PLAYWRIGHT_CLI_PATH", cli)
	}
	if os.Getenv("PLAYWRIGHT_NODEJS_PATH") == "" {
		node, err := exec.LookPath("node")
		if err != nil {
			return nil, errors.New("node not found on PATH")
		}
		os.Setenv("PLAYWRIGHT_NODEJS_PATH", node)
	}
	pw, err := playwright.Run()
	if err != nil {
		return nil, err
	}
	exe := "/usr/lib/chromium/chromium"
	if _, err := os.Stat(exe); err != nil {
		exe = "/usr/bin/chromium"
	}
	b, err := pw.Chromium.Launch(playwright.BrowserTypeLaunchOptions{
		ExecutablePath: playwright.String(exe),
		Headless:       playwright.Bool(true),
		Args: []string{"--no-sandbox", "--disable-gpu", "--disable-background-networking",
			"--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
			// Only loopback answers: every other host fails at once instead of
			// waiting on a closed network.
			"--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"},
	})
	if err != nil {
		pw.Stop()
		return nil, err
	}
	return &renderer{pw: pw, browser: b}, nil
}

func (r *renderer) close() {
	r.browser.Close()
	r.pw.Stop()
}

// render navigates a fresh page to url and captures what a navigation sees.
func (r *renderer) render(url string) (out rendered) {
	t0 := time.Now()
	defer func() { out.Millis = time.Since(t0).Milliseconds() }()
	ctx, err := r.browser.NewContext(playwright.BrowserNewContextOptions{JavaScriptEnabled: playwright.Bool(true)})
	if err != nil {
		out.Err = err.Error()
		return
	}
	defer ctx.Close()
	page, err := ctx.NewPage()
	if err != nil {
		out.Err = err.Error()
		return
	}
	page.SetDefaultTimeout(15000)
	resp, err := page.Goto(url, playwright.PageGotoOptions{WaitUntil: playwright.WaitUntilStateLoad, Timeout: playwright.Float(15000)})
	if err != nil {
		// A page whose subresources never settle: take what is there.
		out.Err = "goto: " + firstLine(err.Error())
	}
	out.URL = page.URL()
	if resp != nil {
		out.Status = resp.Status()
		if h, err := resp.AllHeaders(); err == nil {
			out.Headers = h
		}
		if b, err := resp.Body(); err == nil {
			out.HTML = capStr(string(b), htmlCap)
		}
	}
	out.Title, _ = page.Title()
	if v, err := page.Evaluate(`() => document.body ? document.body.innerText : ""`); err == nil {
		if s, ok := v.(string); ok {
			out.Text = capStr(s, textCap)
		}
	}
	snap, err := page.AriaSnapshot(playwright.PageAriaSnapshotOptions{Mode: playwright.AriaSnapshotModeAi, Timeout: playwright.Float(20000)})
	if err != nil {
		out.Err = strings.TrimSpace(out.Err + " snapshot: " + firstLine(err.Error()))
	}
	out.Snapshot = snap
	return
}

func capStr(s string, n int) string {
	if len(s) <= n {
		return s
	}
	s = s[:n]
	for len(s) > 0 && !utf8ValidTail(s) {
		s = s[:len(s)-1]
	}
	return s
}

func utf8ValidTail(s string) bool {
	// A cut inside a multi-byte rune leaves an invalid tail: trim it.
	r := []rune(s[max(0, len(s)-4):])
	return len(r) == 0 || r[len(r)-1] != '\uFFFD'
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// cacheKey names a doc's cached render: its content and how it was served.
func cacheKey(d doc) (string, error) {
	b, err := os.ReadFile(d.Path)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write(b)
	fmt.Fprintf(h, "|%s|%d|%v", renderVersion, d.Status, d.Headers)
	return d.Kind + "-" + d.Name + "-" + hex.EncodeToString(h.Sum(nil))[:12] + ".json", nil
}

// renderAll returns every doc rendered, from the cache where it can.
func renderAll(docs []doc, cacheDir string, logf func(string, ...any)) ([]rendered, error) {
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return nil, err
	}
	out := make([]rendered, len(docs))
	var todo []int
	for i, d := range docs {
		key, err := cacheKey(d)
		if err != nil {
			return nil, err
		}
		if b, err := os.ReadFile(filepath.Join(cacheDir, key)); err == nil && json.Unmarshal(b, &out[i]) == nil {
			continue
		}
		todo = append(todo, i)
	}
	if len(todo) == 0 {
		return out, nil
	}
	logf("rendering %d of %d pages with Chromium (cached in %s)", len(todo), len(docs), cacheDir)
	return out, withRenderer(docs, func(r *renderer, base string) error {
		for n, i := range todo {
			d := docs[i]
			out[i] = r.render(base + d.route())
			out[i].Name = d.Name
			// The loopback address changes per run; cache a stable one.
			out[i].URL = strings.Replace(out[i].URL, base, "http://corpus.test", 1)
			key, _ := cacheKey(d)
			b, _ := json.Marshal(out[i])
			if err := os.WriteFile(filepath.Join(cacheDir, key), b, 0o644); err != nil {
				return err
			}
			if (n+1)%20 == 0 {
				logf("  rendered %d/%d", n+1, len(todo))
			}
		}
		return nil
	})
}

// withRenderer serves docs on loopback and starts Chromium for run (base:
// the server's URL); both stop when run returns.
func withRenderer(docs []doc, run func(r *renderer, base string) error) error {
	srv, err := startServer(docs)
	if err != nil {
		return err
	}
	defer srv.close()
	r, err := newRenderer()
	if err != nil {
		return err
	}
	defer r.close()
	return run(r, srv.base)
}
