// Command console measures the operator console's live view: how soon an
// operator sees a change of the agent's page (a click that recolours it,
// to the first frame of the new colour on the viewer's WebSocket), how many
// frames per second an animated page streams, and the CPU the host's
// process tree (this process, the Playwright driver, Chromium) spends with
// a session open and no viewer (no screencast runs) against one viewer.
// It prints a markdown section.
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"image/jpeg"
	"io"
	"log"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"golang.org/x/net/websocket"

	"github.com/wasmwright/wasmwright/frontend/console"
	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/hostfuncs/browser"
	"github.com/wasmwright/wasmwright/internal/bench/benchflag"
	"github.com/wasmwright/wasmwright/internal/bench/measure"
	"github.com/wasmwright/wasmwright/internal/bench/opclient"
	"github.com/wasmwright/wasmwright/internal/procfs"
)

const pages = `<!doctype html><style>html,body{margin:0;height:100%%}</style>%s`

func site() *httptest.Server {
	mux := http.NewServeMux()
	serve := func(path, body string) {
		mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, pages, body)
		})
	}
	serve("/still", `<body style="background:#0000ff"><h1>nothing moves</h1>`)
	serve("/toggle", `<body style="background:#0000ff" onclick="this.style.background = this.style.background.includes('255, 0, 0') ? '#0000ff' : '#ff0000'">`)
	serve("/anim", `<body><script>let h = 0; (function f() { document.body.style.background = "hsl(" + (h++ % 360) + ",80%,50%)"; requestAnimationFrame(f) })()</script>`)
	return httptest.NewServer(mux)
}

func main() {
	benchflag.Unused()
	window := flag.Duration("window", 5*time.Second, "how long each CPU and frame-rate window lasts")
	rounds := flag.Int("rounds", 20, "page changes timed for the latency")
	flag.Parse()
	plugins := benchflag.PluginsDir()
	if _, err := os.Stat(filepath.Join(plugins, "browser.wasm")); err != nil {
		fmt.Print("## Operator console live view\n\nSkipped: build/plugins/browser.wasm is missing (make plugins).\n\n")
		return
	}
	s := site()
	defer s.Close()
	token := console.NewToken()
	dir := measure.Must(os.MkdirTemp("", "ww-bench-console-"))
	defer os.RemoveAll(dir)
	cfg := measure.Must(host.ParseConfig(fmt.Sprintf(`[host]
plugins_dir = %q
default_personality = "default"
watch_plugins = false
[browser]
headed = "false"
[plugins.browser]
[personalities.default]
plugins = ["browser"]
tools = ["*"]
grants = ["browser.read", "browser.act"]
network = { allowed_hosts = [%q] }
[console]
enabled = true
[[console.operators]]
name = "bench"
sha256 = %q
`, plugins, strings.TrimPrefix(s.URL, "http://"), console.HashToken(token)), "bench.toml", dir))
	ctx := context.Background()
	h := measure.Must(host.New(ctx, cfg, host.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Operators: true}))
	defer h.Close(ctx)
	c := measure.Must(console.New(h, console.Options{Operators: cfg.Console.Operators}))
	srv := httptest.NewServer(c.Handler())
	defer srv.Close()
	cookie := measure.Must(opclient.Login(srv.URL, c.Path(), token)).Cookie()

	const sess = "bench"
	open := func(path string) {
		if _, err := h.Call(ctx, host.Request{Session: sess, Tool: "browser_navigate", Args: []byte(fmt.Sprintf(`{"url":%q}`, s.URL+path))}); err != nil {
			log.Fatal(err)
		}
	}
	watch := func() *websocket.Conn {
		wc := measure.Must(websocket.NewConfig(strings.Replace(srv.URL, "http", "ws", 1)+c.Path()+"/live?personality=default&session="+sess, srv.URL))
		wc.Header.Set("Cookie", cookie)
		return measure.Must(websocket.DialConfig(wc))
	}

	// CPU and frames of an animated page: nobody watching, then one viewer.
	open("/anim")
	time.Sleep(time.Second) // let the page and the browser settle before the windows
	idle := cpuOver(*window, func() {})
	ws := watch()
	var frames int
	viewed := cpuOver(*window, func() { frames = countFrames(ws, *window) })
	ws.Close()
	left := cpuOver(*window, func() {}) // the screencast stops with its last viewer
	open("/still")
	ws = watch()
	still := countFrames(ws, *window)
	ws.Close()

	// Latency: each click recolours the page; the time to the first frame
	// of the new colour.
	open("/toggle")
	ws = watch()
	defer ws.Close()
	var lat []time.Duration
	red := false
	for range *rounds + 1 {
		red = !red
		t0 := time.Now()
		if err := h.Browser().Input("default", sess, browser.OperatorInput{Kind: browser.InputClick, X: 100, Y: 100}); err != nil {
			log.Fatal(err)
		}
		for {
			f := nextFrame(ws)
			if isRed(f.JPEG) == red {
				break
			}
		}
		lat = append(lat, time.Since(t0))
	}
	lat = lat[1:] // the first round warms up
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })

	secs := window.Seconds()
	fmt.Printf(`## Operator console live view

A session of the host's headless Chromium watched through the console's live view (CDP screencast, JPEG, frames acknowledged as the viewer takes them), read by a WebSocket client logged in as an operator. CPU is the host's whole process tree (this process with the host, the Playwright driver, Chromium) over %.0f s windows, as a share of one core.

| measure | value |
|---|---|
| click to the first frame of the new colour on the viewer's socket, median of %d | %s |
| same, 90th percentile | %s |
| frames per second, animated page | %.1f |
| frames in %.0f s, still page (the screencast sends changes only) | %d |
| CPU, animated page, no viewer (no screencast) | %.0f %% |
| CPU, animated page, one viewer | %.0f %% |
| CPU, animated page, after the viewer left | %.0f %% |

`, secs, len(lat), measure.D(lat[len(lat)/2]), measure.D(lat[len(lat)*9/10]), float64(frames)/secs, secs, still, 100*idle/secs, 100*viewed/secs, 100*left/secs)
}

type frame struct {
	Type string `json:"type"`
	JPEG []byte `json:"jpeg"`
}

func nextFrame(ws *websocket.Conn) frame {
	for {
		var f frame
		ws.SetReadDeadline(time.Now().Add(30 * time.Second))
		if err := websocket.JSON.Receive(ws, &f); err != nil {
			log.Fatalf("live view: %v", err)
		}
		if f.Type == "frame" {
			return f
		}
	}
}

// countFrames counts the frames that arrive within d.
func countFrames(ws *websocket.Conn, d time.Duration) int {
	n := 0
	end := time.Now().Add(d)
	for {
		var f frame
		ws.SetReadDeadline(end)
		if websocket.JSON.Receive(ws, &f) != nil {
			return n
		}
		if f.Type == "frame" {
			n++
		}
	}
}

// isRed says whether the frame's centre is red (else it is blue).
func isRed(b []byte) bool {
	img, err := jpeg.Decode(bytes.NewReader(b))
	if err != nil {
		log.Fatal(err)
	}
	r, _, bl, _ := img.At(img.Bounds().Dx()/2, img.Bounds().Dy()/2).RGBA()
	return r > bl
}

// cpuOver runs fn (or waits d when fn returns at once) and returns the
// CPU seconds this process and its descendants spent meanwhile.
func cpuOver(d time.Duration, fn func()) float64 {
	before := treeCPU()
	end := time.Now().Add(d)
	fn()
	time.Sleep(time.Until(end))
	return treeCPU() - before
}

// treeCPU is the user+system CPU seconds of this process and every
// descendant, from /proc (clock ticks of 1/100 s).
func treeCPU() float64 {
	var ticks int64
	for _, s := range procfs.Tree(os.Getpid()) {
		ticks += s.UTime + s.STime
	}
	return float64(ticks) / 100
}
