package grid

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
)

// fakeHub speaks the part of Selenium 4.48.0's hub the host's session
// requests use, as recorded from a real hub: POST /session waits in the
// queue (GET /se/grid/newsessionqueue/queue lists it with its
// capabilities) until POST .../session/ID/failure (with the registration
// secret header) answers it "session not created" with the given reason,
// or until its own timeout (hubTimeout) answers "New session request
// timed out".
type fakeHub struct {
	*httptest.Server
	hubTimeout time.Duration
	mu         sync.Mutex
	queued     map[string]queuedReq // by request id
	withdrawn  []string             // "id secret"
	// arrived and withdrawnCh say a request was queued, withdrawn.
	arrived, withdrawnCh chan struct{}
}

type queuedReq struct {
	caps map[string]any
	done chan string
}

func newFakeHub(t *testing.T, hubTimeout time.Duration) *fakeHub {
	h := &fakeHub{hubTimeout: hubTimeout, queued: map[string]queuedReq{}, arrived: make(chan struct{}, 8), withdrawnCh: make(chan struct{}, 8)}
	mux := http.NewServeMux()
	notCreated := func(w http.ResponseWriter, msg string) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.WriteHeader(500)
		json.NewEncoder(w).Encode(map[string]any{"value": map[string]any{"error": "session not created", "message": "Could not start a new session. " + msg + " \nHost info: host: 'vm'"}})
	}
	mux.HandleFunc("POST /session", func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Capabilities struct {
				AlwaysMatch map[string]any `json:"alwaysMatch"`
			} `json:"capabilities"`
		}
		json.NewDecoder(r.Body).Decode(&body)
		id := rand.Text()
		q := queuedReq{caps: body.Capabilities.AlwaysMatch, done: make(chan string, 1)}
		h.mu.Lock()
		h.queued[id] = q
		h.mu.Unlock()
		defer func() { h.mu.Lock(); delete(h.queued, id); h.mu.Unlock() }()
		h.arrived <- struct{}{}
		// A client that goes away leaves its request queued, as on the
		// real hub.
		select {
		case msg := <-q.done:
			notCreated(w, msg)
		case <-time.After(h.hubTimeout):
			notCreated(w, "New session request timed out "+id)
		}
	})
	mux.HandleFunc("GET /se/grid/newsessionqueue/queue", func(w http.ResponseWriter, r *http.Request) {
		h.mu.Lock()
		defer h.mu.Unlock()
		var v []map[string]any
		for id, q := range h.queued {
			v = append(v, map[string]any{"requestId": id, "capabilities": []any{q.caps}})
		}
		json.NewEncoder(w).Encode(map[string]any{"value": v})
	})
	mux.HandleFunc("POST /se/grid/newsessionqueue/session/{id}/failure", func(w http.ResponseWriter, r *http.Request) {
		var msg string
		json.NewDecoder(r.Body).Decode(&msg)
		h.mu.Lock()
		defer h.mu.Unlock()
		h.withdrawn = append(h.withdrawn, r.PathValue("id")+" "+r.Header.Get("X-REGISTRATION-SECRET"))
		if q, ok := h.queued[r.PathValue("id")]; ok {
			q.done <- msg
		}
		h.withdrawnCh <- struct{}{}
		io.WriteString(w, `{"value":null}`)
	})
	h.Server = httptest.NewServer(mux)
	t.Cleanup(h.Close)
	return h
}

// testHub is the hub at url as a host with a registration secret and
// queue as its queue timeout sees it.
func testHub(url string, queue time.Duration) Hub {
	return Hub{URL: url, QueueTimeout: queue, Secret: "s3", Log: slog.New(slog.NewTextHandler(io.Discard, nil)), Life: context.Background()}
}

// chrome is what a host asks the hub for.
var chrome = map[string]any{"browserName": "chrome"}

// A full grid answers resource_limit naming browser.grid_queue_timeout at
// that timeout, however long the hub itself would keep the request: the
// host withdraws its own request from the hub's queue (with the
// registration secret), so no session starts later for nobody. A hub
// whose own timeout comes first answers the same.
func TestGridFullAnswersAtTheQueueTimeout(t *testing.T) {
	t.Parallel() // its own session: overlaps the package's other tests' waits
	hub := newFakeHub(t, 10*time.Minute)
	go func() { <-hub.arrived }()
	l := testHub(hub.URL, 300*time.Millisecond)
	t0 := time.Now()
	_, err := l.NewSession(context.Background(), chrome)
	took := time.Since(t0)
	var ae *abi.Error
	if !errors.As(err, &ae) || ae.Code != abi.CodeResourceLimit || !strings.Contains(ae.Message, "browser.grid_queue_timeout (300ms)") {
		t.Fatalf("want resource_limit naming browser.grid_queue_timeout, got %v", err)
	}
	if took < 300*time.Millisecond || took > 30*time.Second {
		t.Errorf("answered after %s: want about grid_queue_timeout (300ms)", took)
	}
	hub.mu.Lock()
	if len(hub.withdrawn) != 1 || !strings.HasSuffix(hub.withdrawn[0], " s3") {
		t.Errorf("want the request withdrawn once with the secret, got %q", hub.withdrawn)
	}
	hub.mu.Unlock()

	short := newFakeHub(t, 100*time.Millisecond)
	_, err = testHub(short.URL, time.Minute).NewSession(context.Background(), chrome)
	if !errors.As(err, &ae) || ae.Code != abi.CodeResourceLimit || !strings.Contains(ae.Message, "browser.grid_queue_timeout") {
		t.Errorf("the hub's own timeout: want resource_limit naming browser.grid_queue_timeout, got %v", err)
	}

	// A caller that gives up withdraws its request too.
	<-hub.withdrawnCh
	ctx, cancel := context.WithCancel(context.Background())
	go func() { <-hub.arrived; cancel() }()
	if _, err := testHub(hub.URL, time.Minute).NewSession(ctx, chrome); !errors.Is(err, context.Canceled) {
		t.Errorf("a cancelled call: want context.Canceled, got %v", err)
	}
	select {
	case <-hub.withdrawnCh:
	case <-time.After(time.Minute):
		t.Error("a cancelled call's request was not withdrawn")
	}
}
