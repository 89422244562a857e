package browser

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
)

// answerPages serves the pages of the action-answer tests.
func answerPages(t *testing.T) *httptest.Server {
	mux := http.NewServeMux()
	mux.HandleFunc("/titled", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<!doctype html><title>First title</title><h1>Titled</h1>
		<label>Name <input name="name"></label> <button>Go</button>
		<script>
		document.addEventListener('keydown', e => { if (e.key === 'Control') document.title = 'Second title'; });
		</script>`)
	})
	page := htmlPages(mux)
	// Two links the snapshot does not show, each reached by a Tab
	// from the field; no focus style but the browser's own.
	page("/unseen", `<title>Unseen</title><style>a:hover { color: red }</style><label>Name <input name="name"></label>
		<a href="#main" style="position:absolute;left:-9999px">Skip to content</a>
		<a href="#more" style="position:absolute;left:-9999px">Skip to more</a>
		<h1 id="main">Main</h1><p>Text</p>`)
	// The same skip link, which a :focus rule brings on screen.
	page("/skip", `<title>Skip</title><style>.skip { position:absolute; left:-9999px } .skip:focus { left: 0; top: 0 }</style>
		<label>Name <input name="name"></label>
		<a class="skip" href="#main">Skip to content</a> <button>Go</button>
		<h1 id="main">Main</h1><p>Text</p>`)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

// An action's answer takes the page's title from the watcher's check,
// which its snapshot makes anyway: no round trip of its own, on an
// unchanged page, a focus move or a typed value alike. A key that changes
// the title is answered with the new one.
func TestActionAnswerTitleFromCheck(t *testing.T) {
	srv := answerPages(t)
	c := caller(t.Name())
	r := navTo(t, c, srv.URL+"/titled")
	name := refOf(t, r.Snapshot, `textbox "Name"`)
	for _, req := range []abi.BrowserActRequest{
		{Action: abi.ActPress, Key: "Shift"},
		{Action: abi.ActType, Ref: name, Text: "Ada"},
		{Action: abi.ActPress, Key: "Tab"},
	} {
		reads := titleReads.Load()
		a := act(t, c, req)
		if n := titleReads.Load() - reads; n != 0 {
			t.Errorf("%s %s%s: %d title round trips, want 0 (the check's)", req.Action, req.Key, req.Text, n)
		}
		if a.State.Title != "First title" || a.Snapshot == "" {
			t.Errorf("%s %s%s: title %q, snapshot %q", req.Action, req.Key, req.Text, a.State.Title, a.Snapshot)
		}
	}
	a := act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: "Control"})
	if a.State.Title != "Second title" {
		t.Fatalf("a key that changed the title answered title %q, want %q", a.State.Title, "Second title")
	}
	if !strings.Contains(a.Snapshot, "button \"Go\"") {
		t.Fatalf("the answer after the title changed has no snapshot of the page:\n%s", a.Snapshot)
	}
}

// A Tab to an element the snapshot does not show (a skip link off the
// screen, which the visibility judge leaves out) with no focus style on
// it or what holds it is answered from the kept snapshot, its [active]
// mark taken off: no new snapshot, and the answer equals a new one. Where a :focus rule
// matches the element (a skip link that a focus brings on screen), the
// page is snapshot, and the answer shows the link.
func TestFocusToUnseenElement(t *testing.T) {
	srv := answerPages(t)
	n := countSnapshots(t)
	// On /skip, the first Tab focuses the skip link (on screen: shown),
	// the second leaves it (off again: not shown).
	skip := `link "Skip to content"`
	for _, tc := range []struct {
		path  string
		kept  bool
		shows [2]bool
	}{
		{"/unseen", true, [2]bool{false, false}},
		{"/skip", false, [2]bool{true, false}},
	} {
		c := caller(t.Name() + tc.path)
		r := navTo(t, c, srv.URL+tc.path)
		act(t, c, abi.BrowserActRequest{Action: abi.ActType, Ref: refOf(t, r.Snapshot, `textbox "Name"`), Text: "x"})
		for i := 0; i < 2; i++ {
			taken := *n
			a := act(t, c, abi.BrowserActRequest{Action: abi.ActPress, Key: "Tab"})
			if tc.kept && *n != taken {
				t.Errorf("%s Tab %d: took %d snapshots, want 0; fallbacks %v", tc.path, i, *n-taken, watchFallbacks.counts())
			}
			if !tc.kept && *n == taken {
				t.Errorf("%s Tab %d: answered from the kept snapshot, want a new one", tc.path, i)
			}
			if strings.Contains(a.Snapshot, skip) != tc.shows[i] {
				t.Errorf("%s Tab %d: the answer shows the skip link: %v, want %v:\n%s", tc.path, i, !tc.shows[i], tc.shows[i], a.Snapshot)
			}
			if strings.Contains(a.Snapshot, "[active]") && tc.kept {
				t.Errorf("%s Tab %d: a line still has [active]:\n%s", tc.path, i, a.Snapshot)
			}
			sameAsFresh(t, c, fmt.Sprintf("%s Tab %d: the answer", tc.path, i))
		}
	}
}
