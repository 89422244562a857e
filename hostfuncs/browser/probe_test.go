package browser

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
)

// The element probe runs out of the page's reach (Playwright's isolated
// world, where the snapshot's refs live): a page whose own scripts make
// every element read as zero-sized and invisible cannot make its visible
// field fail as not interactable, and the type goes through. (Asked in the
// page's own world, the probe believed the page, and readying that world
// cost the first act on each document.)
func TestProbeOutOfPageReach(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		io.WriteString(w, `<!doctype html><title>Lying</title><label>Name <input name="name"></label>
		<script>
		Element.prototype.getBoundingClientRect = () => new DOMRect(0, 0, 0, 0);
		const real = window.getComputedStyle;
		window.getComputedStyle = (e, p) => { const s = real(e, p); return new Proxy(s, { get: (o, k) => k === "visibility" ? "hidden" : o[k] }); };
		</script>`)
	}))
	defer srv.Close()
	c := caller(t.Name())
	r := navTo(t, c, srv.URL+"/")
	name := refOf(t, r.Snapshot, `textbox "Name"`)
	unanswered := probesUnanswered.Load()
	a := act(t, c, abi.BrowserActRequest{Action: abi.ActType, Ref: name, Text: "Ada"})
	if probesUnanswered.Load() != unanswered {
		t.Fatalf("the probe did not answer (it is to answer, from the isolated world)")
	}
	if a.Snapshot == "" || !strings.Contains(a.Snapshot, `textbox "Name" [active] [ref=`+name+`]: Ada`) {
		t.Fatalf("the typed value is not in the answer:\n%s", a.Snapshot)
	}
}
