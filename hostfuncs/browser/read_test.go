package browser

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wasmwright/wasmwright/abi"
)

// TestReadGivesMainVisibleText: browser_read's primitive returns the main
// content's visible text, a block per line, without the page's header,
// navigation, aside, form or footer, nor hidden text; the article's own
// header stays, its footer (a byline, tags, share links) goes, as in
// Readability.
func TestReadGivesMainVisibleText(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	c := caller(t.Name())
	nav(t, c, "/article")
	r := must[abi.BrowserReadResponse](t, svc, c, abi.HostBrowserRead, abi.BrowserReadRequest{})
	want := "The headline\nFirst paragraph of the story.\none point\nanother point\nLast paragraph, with a link inside."
	if r.Text != want || r.Root != "article" || r.Truncated || r.Bytes != len(want) || r.State.Title != "Article" {
		t.Fatalf("read %+v\nwant text:\n%s", r, want)
	}
	for _, gone := range []string{"Section A", "Site name", "Related", "Hidden", "Invisible", "Subscribe", "Join", "Copyright", "By the author"} {
		if strings.Contains(r.Text, gone) {
			t.Errorf("the text holds %q", gone)
		}
	}
	// A page without main or article is read whole, still without its
	// navigation.
	nav(t, c, "/")
	if r := must[abi.BrowserReadResponse](t, svc, c, abi.HostBrowserRead, abi.BrowserReadRequest{}); r.Root != "body" || r.Text != "Welcome\nStart here.\nForm Other" {
		t.Errorf("read of a plain page: %+v", r)
	}
}

// TestReadCap: a call may lower the host's cap, never raise it; the cut
// falls on a character boundary and says so.
func TestReadCap(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	s := newService(t, func(c *Config) { c.ReadMaxBytes = 20 })
	c := caller(t.Name())
	must[abi.BrowserNavigateResponse](t, s, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL + "/article"})
	r := must[abi.BrowserReadResponse](t, s, c, abi.HostBrowserRead, abi.BrowserReadRequest{MaxBytes: 1 << 20})
	if len(r.Text) > 20 || !r.Truncated || r.Limit != 20 || r.Bytes <= 20 || !strings.HasPrefix(r.Text, "The headline") {
		t.Fatalf("a call raised the cap: %+v", r)
	}
	r = must[abi.BrowserReadResponse](t, s, c, abi.HostBrowserRead, abi.BrowserReadRequest{MaxBytes: 5})
	if r.Text != "The h" || r.Limit != 5 || !r.Truncated {
		t.Fatalf("max_bytes 5: %+v", r)
	}
	_, err := call[abi.BrowserReadResponse](t, s, c, abi.HostBrowserRead, abi.BrowserReadRequest{MaxBytes: -1})
	wantCode(t, err, abi.CodeInputInvalid, "positive")
	if got, cut := cutUTF8("héllo", 2); got != "h" || !cut || !utf8.ValidString(got) {
		t.Errorf("cutUTF8 split a character: %q", got)
	}
}

// newService starts a Service of its own with the test config changed by
// edit, closed when the test ends.
func newService(t *testing.T, edit func(*Config)) *Service {
	t.Helper()
	cfg := testConfig(t.TempDir())
	edit(&cfg)
	s, err := New(cfg, Options{Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close(context.Background()) })
	return s
}
