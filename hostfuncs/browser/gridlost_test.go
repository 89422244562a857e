package browser

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
)

// The probe of a grid session reads the hub's answers as Selenium 4.48.0
// gives them (recorded from a hub whose node was killed, host/gridtest):
// a live node's timeouts, the hub failing to reach the node, the session
// dropped with the node, and an answer the host does not know.
func TestGridProbeReadsTheHubsAnswers(t *testing.T) {
	answers := map[string]struct {
		status int
		body   string
		want   probeAnswer
	}{
		"live":        {200, `{"value":{"implicit":0,"pageLoad":300000,"script":30000}}`, nodeAnswers},
		"unreachable": {500, `{"value":{"error":"unknown error","message":"Unable to execute request for an existing session: Connection error (GET http://10.230.2.2:5555/session/2c33/timeouts)","stacktrace":""}}`, nodeGone},
		"removed":     {404, `{"value":{"error":"invalid session id","message":"Unable to find session with ID: 2c33. Session was removed at 2026-12-01T18:44:20Z (3 seconds ago), reason: node was removed from the grid, node: http://10.230.2.2:5555","stacktrace":""}}`, nodeGone},
		"other":       {500, `{"value":{"error":"unknown error","message":"something else"}}`, nodeUnknown},
	}
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		a, ok := answers[r.URL.Path[len("/session/"):len(r.URL.Path)-len("/timeouts")]]
		if !ok || r.Method != http.MethodGet {
			t.Errorf("unexpected probe %s %s", r.Method, r.URL.Path)
			return
		}
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(a.status)
		io.WriteString(w, a.body)
	}))
	defer hub.Close()
	for id, a := range answers {
		g := &gridLink{hub: hub.URL + "/", node: "http://10.230.2.2:5555", id: id, life: context.Background()}
		if got := g.probe(context.Background()); got != a.want {
			t.Errorf("%s: probe %d, want %d", id, got, a.want)
		}
	}
	down := &gridLink{hub: "http://127.0.0.1:1", id: "live"}
	if got := down.probe(context.Background()); got != nodeUnknown {
		t.Errorf("a hub that does not answer: probe %d, want unknown (%d)", got, nodeUnknown)
	}
}
