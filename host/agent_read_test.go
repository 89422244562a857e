package host

import (
	"strings"
	"testing"
)

// TestBrowserReadIsExternalText: browser_read through the host returns the
// page's main text whole (a large text travels as a blob), labelled
// external with the page as its source, and the call's max_bytes cuts it
// with a warning.
func TestBrowserReadIsExternalText(t *testing.T) {
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
