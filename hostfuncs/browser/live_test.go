package browser

import (
	"bytes"
	"context"
	"image/jpeg"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
)

// The live view shows a page that painted before it started watching and
// stays still (as a tab the agent has just opened). Here Chromium's
// screencast sends a frame of it at its start; one that skipped it (frames
// unacknowledged) would draw no other, and the still taken after a quiet
// 1.5 s covers that.
func TestLiveViewShowsAStillPage(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<!doctype html><title>Still red</title><body style="margin:0;background:#e00"><p>still</p>`)
	}))
	defer srv.Close()
	c := caller(t.Name())
	navTo(t, c, srv.URL+"/")
	// Two animation frames: the page has painted and nothing is pending.
	if _, err := call[abi.BrowserEvaluateResponse](t, svc, c, abi.HostBrowserEvaluate, abi.BrowserEvaluateRequest{Expression: `() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(1))))`}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	got := make(chan Frame, 1)
	go svc.Screencast(ctx, "tester", t.Name(), 640, 480, func(f Frame) {
		select {
		case got <- f:
		default:
		}
	})
	select {
	case f := <-got:
		img, err := jpeg.Decode(bytes.NewReader(f.JPEG))
		if err != nil || f.Width <= 0 || f.Height <= 0 {
			t.Fatalf("frame %vx%v: %v", f.Width, f.Height, err)
		}
		b := img.Bounds()
		r, g, bl, _ := img.At(b.Max.X-5, b.Max.Y-5).RGBA()
		if r>>8 < 180 || g>>8 > 100 || bl>>8 > 100 {
			t.Fatalf("the frame is not the red page: %d,%d,%d", r>>8, g>>8, bl>>8)
		}
	case <-ctx.Done():
		t.Fatal("no frame of a still page within 20 s")
	}
}
