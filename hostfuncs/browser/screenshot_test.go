package browser

import (
	"bytes"
	"encoding/base64"
	"image/jpeg"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
)

// TestScreenshotFormats: JPEG at two qualities (the lower one smaller,
// both decodable), WebP of the viewport, the full page and an element,
// each written to the workspace with its extension and returned inline
// with its MIME type and size; a full-page capture is taller than the
// viewport; bad formats and qualities are refused.
func TestScreenshotFormats(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c := caller(t.Name())
	r := nav(t, c, "/long")
	shot := func(req abi.BrowserScreenshotRequest) abi.BrowserScreenshotResponse {
		t.Helper()
		out := must[abi.BrowserScreenshotResponse](t, svc, c, abi.HostBrowserScreenshot, req)
		img, _ := base64.StdEncoding.DecodeString(out.Data)
		disk, _ := os.ReadFile(out.Path)
		if len(img) == 0 || !bytes.Equal(img, disk) || out.Bytes != len(img) || out.Width == 0 || out.Height == 0 {
			t.Fatalf("%+v: inline image and file differ or are empty (%d, %d bytes), size %dx%d", req, len(img), len(disk), out.Width, out.Height)
		}
		return out
	}
	hi := shot(abi.BrowserScreenshotRequest{Format: "jpeg", Quality: 95, Name: "hi"})
	lo := shot(abi.BrowserScreenshotRequest{Format: "jpeg", Quality: 10, Name: "lo"})
	if hi.MIME != "image/jpeg" || filepath.Base(hi.Path) != "hi.jpg" || lo.Bytes >= hi.Bytes {
		t.Errorf("jpeg: %s %s, quality 10 %d bytes vs 95 %d bytes", hi.MIME, hi.Path, lo.Bytes, hi.Bytes)
	}
	b, _ := os.ReadFile(lo.Path)
	if img, err := jpeg.Decode(bytes.NewReader(b)); err != nil || img.Bounds().Dx() != lo.Width {
		t.Errorf("the JPEG does not decode to its size: %v", err)
	}
	vp := shot(abi.BrowserScreenshotRequest{Format: "webp"})
	full := shot(abi.BrowserScreenshotRequest{Format: "webp", Mode: "full", Quality: 50})
	el := shot(abi.BrowserScreenshotRequest{Format: "webp", Ref: refOf(t, r.Snapshot, `button "Bottom"`)})
	data, _ := base64.StdEncoding.DecodeString(vp.Data)
	if vp.MIME != "image/webp" || !strings.HasSuffix(vp.Path, ".webp") || string(data[:4]) != "RIFF" || string(data[8:12]) != "WEBP" {
		t.Errorf("webp: %s %s %q", vp.MIME, vp.Path, data[:12])
	}
	if full.Height < 5000 || full.Height <= vp.Height || el.Width >= vp.Width || el.Height >= 100 {
		t.Errorf("webp sizes: viewport %dx%d, full %dx%d, element %dx%d", vp.Width, vp.Height, full.Width, full.Height, el.Width, el.Height)
	}
	if fp := shot(abi.BrowserScreenshotRequest{Format: "png", Mode: "full"}); fp.Height < 5000 {
		t.Errorf("a full-page PNG is %dx%d", fp.Width, fp.Height)
	}
	for _, bad := range []abi.BrowserScreenshotRequest{{Format: "gif"}, {Format: "jpeg", Quality: 101}, {Quality: 50}} {
		_, err := call[abi.BrowserScreenshotResponse](t, svc, c, abi.HostBrowserScreenshot, bad)
		wantCode(t, err, abi.CodeInputInvalid, "")
	}
}
