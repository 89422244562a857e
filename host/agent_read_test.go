package host

import (
	"bytes"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestBrowserReadIsExternalText: browser_read through the host returns the
// page's main text whole (a large text travels as a blob), labelled
// external with the page as its source, and the call's max_bytes cuts it
// with a warning.
func TestBrowserReadIsExternalText(t *testing.T) {
	t.Parallel() // its own host and browser: overlaps the other such tests' waits
	para := strings.Repeat("Readable words of the story. ", 40)
	site := serve(t, map[string]string{"/story": `<title>Story</title><nav><a href="/">Home</a></nav>
		<main><h1>A story</h1><p>` + para + `</p><form><button>Subscribe</button></form></main>`})
	a := newAgent(t, site, "")
	a.call("browser_navigate", map[string]any{"url": site.URL + "/story"})
	res := a.call("browser_read", map[string]any{})
	want := "A story\n" + strings.TrimSpace(para)
	if res.Text != want || !res.External || res.Source != site.URL+"/story" || res.Snapshot != "" {
		t.Fatalf("browser_read: text %q external %v source %q", res.Text, res.External, res.Source)
	}
	res = a.call("browser_read", map[string]any{"max_bytes": 7})
	if res.Text != "A story" || len(res.Warnings) == 0 || !strings.Contains(res.Warnings[0], "cut at 7 bytes") {
		t.Fatalf("browser_read max_bytes 7: %q %v", res.Text, res.Warnings)
	}
}

// TestScreenshotFormatThroughTool: browser_screenshot's format and quality
// reach the browser: a JPEG comes back as image content of that type, and
// its file, in the workspace, is the path the result names.
func TestScreenshotFormatThroughTool(t *testing.T) {
	t.Parallel() // its own host and browser: overlaps the other such tests' waits
	site := serve(t, map[string]string{"/": `<title>Pic</title><h1>Picture</h1>`})
	a := newAgent(t, site, "")
	a.call("browser_navigate", map[string]any{"url": site.URL + "/"})
	res := a.call("browser_screenshot", map[string]any{"format": "jpeg", "quality": 40, "name": "pic"})
	if len(res.Images) != 1 || res.Images[0].MIME != "image/jpeg" || len(res.Files) != 1 || filepath.Base(res.Files[0]) != "pic.jpg" || !strings.Contains(res.Text, res.Files[0]) {
		t.Fatalf("browser_screenshot jpeg: %q images %d files %v", res.Text, len(res.Images), res.Files)
	}
	b, err := os.ReadFile(res.Files[0])
	data, _ := base64.StdEncoding.DecodeString(res.Images[0].Data)
	if err != nil || !bytes.Equal(b, data) || len(b) < 3 || b[0] != 0xff || b[1] != 0xd8 {
		t.Errorf("the file is not the JPEG returned (%v)", err)
	}
}
