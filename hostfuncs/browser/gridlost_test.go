package browser

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
)

// The probe of a grid session reads the hub's answers as Selenium 4.48.0
// gives them (recorded from a hub whose node was killed, host/gridtest):
// a live node's timeouts, the hub failing to reach the node, the session
// dropped with the node, and an answer the host does not know.
func TestGridProbeReadsTheHubsAnswers(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
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

// A lost grid browser is blamed on what lost it: a hub that does not
// answer, a hub that answers but no longer knows the session its node
// still runs (it restarted), or the node. A session the hub does not end
// (gone, or restarted and not knowing it) is ended at its node.
func TestGridLossCauseAndEnd(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	var mu sync.Mutex
	var deleted []string
	nodeHolds := true
	node := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/status":
			id := "other"
			if nodeHolds {
				id = "s1"
			}
			io.WriteString(w, `{"value":{"ready":false,"node":{"slots":[{"session":{"sessionId":"`+id+`"}}]}}}`)
		case r.Method == http.MethodDelete:
			deleted = append(deleted, "node "+r.URL.Path)
			io.WriteString(w, `{"value":null}`)
		}
	}))
	defer node.Close()
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodGet: // /status
			io.WriteString(w, `{"value":{"ready":true,"nodes":[]}}`)
		case http.MethodDelete: // a restarted hub does not know the session
			mu.Lock()
			deleted = append(deleted, "hub "+r.URL.Path)
			mu.Unlock()
			w.WriteHeader(404)
			io.WriteString(w, `{"value":{"error":"invalid session id","message":"Unable to find session with ID: s1"}}`)
		}
	}))
	defer hub.Close()

	restarted := &gridLink{hub: hub.URL, node: node.URL, id: "s1"}
	if why, byHub := restarted.lossCause(nil); !byHub || !strings.Contains(why, "hub at "+hub.URL+" restarted") || strings.Contains(why, "was lost") {
		t.Errorf("a restarted hub: got %q (hub %v)", why, byHub)
	}
	restarted.end()
	mu.Lock()
	if strings.Join(deleted, ", ") != "hub /session/s1, node /session/s1" {
		t.Errorf("want the session ended at the hub, then at its node: %v", deleted)
	}
	nodeHolds, deleted = false, nil
	mu.Unlock()
	if why, byHub := restarted.lossCause(nil); byHub || why != "the grid node "+node.URL+" was lost" {
		t.Errorf("a node that no longer holds the session: got %q (hub %v)", why, byHub)
	}
	down := &gridLink{hub: "http://127.0.0.1:1", node: node.URL, id: "s1"}
	if why, byHub := down.lossCause(nil); !byHub || !strings.Contains(why, "does not answer") || !strings.Contains(why, "not a fault of the node") {
		t.Errorf("a hub that does not answer: got %q (hub %v)", why, byHub)
	}
	down.end()
	mu.Lock()
	if strings.Join(deleted, ", ") != "node /session/s1" {
		t.Errorf("a hub that does not answer: want the session ended at its node, got %v", deleted)
	}
	mu.Unlock()
}

// A grid session left with no tab whose hub does not answer is a crash
// named after the hub, and the node-loss report says the hub caused it
// (the metric's cause label), the hub's /status read once for both the
// question and the naming. A node that went away is reported as the
// node's loss.
func TestGridLossReadsTheHubOnceAndReportsItsCause(t *testing.T) {
	var mu sync.Mutex
	reads := 0
	hubUp := false
	hub := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.Method == http.MethodGet && r.URL.Path == "/status" {
			reads++
			if hubUp {
				io.WriteString(w, `{"value":{"ready":true,"nodes":[]}}`)
				return
			}
			w.WriteHeader(http.StatusBadGateway) // a proxy in front of a hub that is down
			io.WriteString(w, "bad gateway")
			return
		}
		io.WriteString(w, `{"value":null}`) // the DELETE that ends the session
	}))
	defer hub.Close()
	node := httptest.NewServer(http.NotFoundHandler()) // a node that holds nothing
	defer node.Close()

	reports := make(chan GridReport, 4)
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	newSession := func(id string) (*sessions, *session) {
		e := &env{opts: Options{OnGrid: func(r GridReport) { reports <- r }}, log: quiet, life: context.Background()}
		s := &sessions{env: e, byKey: map[sessKey]*session{}, crashed: map[sessKey]string{}, lostNode: map[sessKey]string{}}
		s.closer = &closer{env: e, reg: s, concealer: &concealer{env: e, typing: map[sessKey]*operatorTyping{}}}
		ss := &session{key: sessKey{"p", id}, gone: make(chan struct{}),
			grid: &gridLink{hub: hub.URL, node: node.URL, id: id, life: context.Background(), log: quiet, gone: make(chan struct{})}}
		s.byKey[ss.key] = ss
		s.reportGrid(ss, 0, nil)
		if r := <-reports; r.NodeLost != "" {
			t.Fatalf("the start's report names a lost node: %+v", r)
		}
		return s, ss
	}

	s, ss := newSession("s1")
	err := s.lostWithNoTab(context.Background(), ss)
	var ae *abi.Error
	if !errors.As(err, &ae) || ae.Code != abi.CodeBrowserCrashed || !strings.Contains(ae.Message, "hub at "+hub.URL+" does not answer") {
		t.Fatalf("want browser_crashed naming the hub, got %v", err)
	}
	if r := <-reports; r.NodeLost != node.URL || r.LostCause != "hub" {
		t.Errorf("a hub that does not answer: report %+v, want cause hub", r)
	}
	mu.Lock()
	if reads != 1 {
		t.Errorf("the hub's /status was read %d times to find and name one loss, want 1", reads)
	}
	hubUp = true
	mu.Unlock()

	// The hub answers and the node no longer holds the session: the node's loss.
	_, lost := newSession("s2")
	lost.markNodeLost()
	if r := <-reports; r.LostCause != "node" || !strings.Contains(lost.crashReason(), "the grid node "+node.URL+" was lost") {
		t.Errorf("a lost node: report %+v, reason %q; want cause node", r, lost.crashReason())
	}
}
