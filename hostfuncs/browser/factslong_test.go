package browser

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
)

// shownRunes counts what blockdetect counts of a text: the code points
// other than space, tab, CR, LF, form feed and no-break space.
func shownRunes(s string) int {
	n := 0
	for _, r := range s {
		if !strings.ContainsRune(" \t\r\n\f\u00a0", r) {
			n++
		}
	}
	return n
}

// For a personality whose detectors take a long-text page for no wall
// (abi.FeatureLongTextPage), a page with more text than that is read
// without its HTML and with only the start of its text, still long
// enough for the detector to count past the limit; a short page, and a
// long one whose head is mostly blank, arrive whole, and without the
// feature every page does.
func TestLongTextPageLeavesTheHTMLUnread(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	mux := http.NewServeMux()
	page := htmlPages(mux)
	// About 34,000 characters of text, each paragraph with its marker.
	page("/long", `<title>Long</title><script>window._cf_chl_opt={}</script>`+strings.Repeat("<p>Plenty of words to read on this page, one after the other.</p>", 700))
	page("/short", `<title>Just a moment...</title><p>Checking your browser.</p><script>window._cf_chl_opt={}</script>`)
	// 40,000 characters of text, but the first 24,000 UTF-16 units hold
	// only 2,400 that count.
	page("/blank", `<title>Blank</title><pre>`+strings.Repeat("x         ", 4000)+`</pre>`)
	pages := httptest.NewServer(mux)
	defer pages.Close()

	info := callerInfo(t.Name())
	info.LongTextPage = true
	c := hostfuncs.NewCaller(info)
	r := navTo(t, c, pages.URL+"/long")
	if r.Page.HTML != "" {
		t.Fatalf("a long page's HTML was read for detectors that take it for no wall: %d bytes", len(r.Page.HTML))
	}
	if n := shownRunes(r.Page.Text); n <= abi.LongTextRunes || utf8.RuneCountInString(r.Page.Text) > longTextHead || r.Page.Title != "Long" || r.Page.Status != 200 {
		t.Fatalf("long page: %d counted characters of %d in the text (want more than %d, at most %d in all), title %q, status %d",
			n, utf8.RuneCountInString(r.Page.Text), abi.LongTextRunes, longTextHead, r.Page.Title, r.Page.Status)
	}
	if !strings.Contains(r.Snapshot, "Plenty of words") {
		t.Fatalf("the snapshot lost the page:\n%.300s", r.Snapshot)
	}
	for _, p := range []struct{ path, html, text string }{
		{"/short", "_cf_chl_opt", "Checking your browser."},
		{"/blank", "<pre>x", strings.Repeat("x         ", 3000)},
	} {
		r := navTo(t, c, pages.URL+p.path)
		if !strings.Contains(r.Page.HTML, p.html) || !strings.Contains(r.Page.Text, p.text) {
			t.Fatalf("%s was not read whole: html %.200q, text %d bytes", p.path, r.Page.HTML, len(r.Page.Text))
		}
	}

	info.LongTextPage = false
	r = navTo(t, hostfuncs.NewCaller(info), pages.URL+"/long")
	if !strings.Contains(r.Page.HTML, "_cf_chl_opt") || shownRunes(r.Page.Text) < 30000 {
		t.Fatalf("without the feature the long page was not read whole: html %d bytes, text %d bytes", len(r.Page.HTML), len(r.Page.Text))
	}
}
