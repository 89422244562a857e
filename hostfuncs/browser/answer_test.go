package browser

import (
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
