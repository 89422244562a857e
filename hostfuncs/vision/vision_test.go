package vision

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/network"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// modelServer is a loopback chat-completions server whose answers are
// scripted per test: it records every request it receives.
type modelServer struct {
	*httptest.Server
	mu       sync.Mutex
	bodies   [][]byte
	headers  []http.Header
	status   int
	content  string
	rawReply string        // when set, sent as the whole response body
	hold     chan struct{} // when set, the answer waits for it (or the request's end)
}

func newModelServer(t *testing.T) *modelServer {
	m := &modelServer{status: 200}
	m.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		m.mu.Lock()
		m.bodies, m.headers = append(m.bodies, b), append(m.headers, r.Header.Clone())
		status, content, raw, hold := m.status, m.content, m.rawReply, m.hold
		m.mu.Unlock()
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		if hold != nil {
			select {
			case <-hold:
			case <-r.Context().Done():
				return
			}
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		if raw != "" {
			io.WriteString(w, raw)
			return
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}}}})
	}))
	t.Cleanup(m.Close)
	return m
}

func (m *modelServer) answer(content string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.content = content
}

func (m *modelServer) requests() [][]byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([][]byte(nil), m.bodies...)
}

// newModel is a Model on srv whose traffic goes through a real network
// service: allowed lists the hosts the personality "p" may reach.
func newModel(t *testing.T, srv *modelServer, cfg Config, allowed ...string) *Model {
	t.Helper()
	nw, err := network.New(network.Options{Policies: map[string]network.Policy{"p": {AllowedHosts: allowed}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nw.Close(context.Background()) })
	cfg.Endpoint = srv.URL + "/v1"
	if cfg.Model == "" {
		cfg.Model = "test-vl"
	}
	m, err := New(cfg, nw.Client)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func hostOf(srv *modelServer) string { return strings.TrimPrefix(srv.URL, "http://") }

var legend = []abi.ScreenMark{
	{Mark: 1, Ref: "e3", Role: "button", Name: "Save", Box: [4]int{10, 20, 100, 40}},
	{Mark: 2, Role: "", Name: "", Box: [4]int{200, 100, 50, 50}},
}

func query() Query {
	return Query{Personality: "p", Image: []byte("\x89PNG fake image bytes"), Width: 800, Height: 600, Marks: legend, Description: "the Save button", Action: "click"}
}

// redactImages replaces the base64 data of every data: URL in a request
// body, byte for byte otherwise, by its sha256 and length.
func redactImages(body []byte) []byte {
	return dataURL.ReplaceAllFunc(body, func(m []byte) []byte {
		sub := dataURL.FindSubmatch(m)
		raw, _ := base64.StdEncoding.DecodeString(string(sub[2]))
		sum := sha256.Sum256(raw)
		return fmt.Appendf(nil, "%ssha256=%s;bytes=%d", sub[1], hex.EncodeToString(sum[:]), len(raw))
	})
}

var dataURL = regexp.MustCompile(`(data:[a-z/]+;)base64,([A-Za-z0-9+/=]*)`)

// TestRequestGolden: the exact request the endpoint receives (the image
// replaced by its sha256 and length) is testdata/request.golden, and the
// key named by api_key_env goes as a Bearer token.
func TestRequestGolden(t *testing.T) {
	srv := newModelServer(t)
	srv.answer(`{"mark": 1}`)
	t.Setenv("WW_TEST_VISION_KEY", "k-123")
	m := newModel(t, srv, Config{APIKeyEnv: "WW_TEST_VISION_KEY"}, hostOf(srv))
	if _, err := m.Locate(context.Background(), query()); err != nil {
		t.Fatal(err)
	}
	reqs := srv.requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	if got := srv.headers[0].Get("Authorization"); got != "Bearer k-123" {
		t.Errorf("Authorization %q", got)
	}
	got := redactImages(reqs[0])
	sum := sha256.Sum256(query().Image)
	if !bytes.Contains(got, []byte(hex.EncodeToString(sum[:]))) {
		t.Fatalf("the request does not carry the image:\n%s", got)
	}
	golden := filepath.Join("testdata", "request.golden")
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("request differs from %s (go test -update after review):\n%s", golden, got)
	}
}

// TestAnswers: a mark in the legend gives its ref, box and centre; a point
// inside the viewport is taken as is; everything else is a coded error
// quoting the answer.
func TestAnswers(t *testing.T) {
	srv := newModelServer(t)
	m := newModel(t, srv, Config{}, hostOf(srv))
	box := [4]int{10, 20, 100, 40}
	for _, c := range []struct {
		answer string
		want   abi.VisionLocateResponse
		code   abi.Code
		why    string
	}{
		{answer: `{"mark": 1}`, want: abi.VisionLocateResponse{Mark: 1, Ref: "e3", Box: &box, X: 60, Y: 40}},
		{answer: "```json\n{\"mark\":1}\n```", want: abi.VisionLocateResponse{Mark: 1, Ref: "e3", Box: &box, X: 60, Y: 40}},
		{answer: ` {"x": 412, "y": 300.5} `, want: abi.VisionLocateResponse{X: 412, Y: 300.5}},
		{answer: `The Save button is mark 1.`, code: abi.CodeExecutionFailed, why: "not the JSON object"},
		{answer: `{"mark": 7}`, code: abi.CodeExecutionFailed, why: "mark 7 is not in the legend"},
		{answer: `{"mark": 1.5}`, code: abi.CodeExecutionFailed, why: "not a whole number"},
		{answer: `{"mark": "1"}`, code: abi.CodeExecutionFailed, why: "not a whole number"},
		{answer: `{"x": 800, "y": 10}`, code: abi.CodeExecutionFailed, why: "outside the 800x600 viewport"},
		{answer: `{"x": -1, "y": 10}`, code: abi.CodeExecutionFailed, why: "outside"},
		{answer: `{"x": 10}`, code: abi.CodeExecutionFailed, why: "not exactly one of"},
		{answer: `{"mark": 1, "x": 5, "y": 5}`, code: abi.CodeExecutionFailed, why: "not exactly one of"},
		{answer: `{"mark": 1, "confidence": 0.9}`, code: abi.CodeExecutionFailed, why: "not the JSON object"},
		{answer: `{"mark": 1} {"mark": 2}`, code: abi.CodeExecutionFailed, why: "more than one"},
		{answer: `{"none": "there is no Save button"}`, code: abi.CodeNotFound, why: "there is no Save button"},
	} {
		srv.answer(c.answer)
		got, err := m.Locate(context.Background(), query())
		if c.code != "" {
			e := abi.AsError(err)
			if err == nil || e.Code != c.code || !strings.Contains(e.Message, c.why) || !strings.Contains(e.Message, "nothing was clicked") {
				t.Errorf("answer %s: want %s (%s), got %v", c.answer, c.code, c.why, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("answer %s: %v", c.answer, err)
			continue
		}
		got.Answer, got.Model = "", ""
		if g, w := fmt.Sprintf("%d %q %v %v %v", got.Mark, got.Ref, got.Box, got.X, got.Y), fmt.Sprintf("%d %q %v %v %v", c.want.Mark, c.want.Ref, c.want.Box, c.want.X, c.want.Y); g != w {
			t.Errorf("answer %s: got %s, want %s", c.answer, g, w)
		}
	}
}

// TestEndpointFailures: an HTTP error, a response that is not
// chat-completions, and a model slower than [vision] timeout are coded
// errors.
func TestEndpointFailures(t *testing.T) {
	srv := newModelServer(t)
	m := newModel(t, srv, Config{Timeout: 300 * time.Millisecond}, hostOf(srv))
	srv.mu.Lock()
	srv.status = 500
	srv.mu.Unlock()
	if _, err := m.Locate(context.Background(), query()); abi.AsError(err).Code != abi.CodeExecutionFailed || !strings.Contains(err.Error(), "HTTP 500") {
		t.Errorf("HTTP 500: %v", err)
	}
	srv.mu.Lock()
	srv.status, srv.rawReply = 200, `{"error": "no"}`
	srv.mu.Unlock()
	if _, err := m.Locate(context.Background(), query()); abi.AsError(err).Code != abi.CodeExecutionFailed || !strings.Contains(err.Error(), "not a chat-completions response") {
		t.Errorf("no choices: %v", err)
	}
	srv.mu.Lock()
	srv.rawReply, srv.hold = "", make(chan struct{})
	srv.mu.Unlock()
	defer close(srv.hold)
	if _, err := m.Locate(context.Background(), query()); abi.AsError(err).Code != abi.CodeTimeout || !strings.Contains(err.Error(), "[vision] timeout") {
		t.Errorf("slow model: %v", err)
	}
}

// TestEgressPolicy: an endpoint the personality's network policy does not
// allow (loopback, here) is refused before anything is sent, naming the
// setting to change.
func TestEgressPolicy(t *testing.T) {
	srv := newModelServer(t)
	srv.answer(`{"mark": 1}`)
	m := newModel(t, srv, Config{})
	_, err := m.Locate(context.Background(), query())
	e := abi.AsError(err)
	if err == nil || e.Code != abi.CodeRefused || !strings.Contains(e.Message, "personalities.p.network.allowed_hosts") || !strings.Contains(e.Message, hostOf(srv)) {
		t.Fatalf("want refused naming allowed_hosts, got %v", err)
	}
	if n := len(srv.requests()); n != 0 {
		t.Errorf("the endpoint received %d requests", n)
	}
}

// TestLimits: a missing API key and an oversized image fail before any
// request.
func TestLimits(t *testing.T) {
	srv := newModelServer(t)
	m := newModel(t, srv, Config{APIKeyEnv: "WW_TEST_VISION_UNSET"}, hostOf(srv))
	os.Unsetenv("WW_TEST_VISION_UNSET")
	if _, err := m.Locate(context.Background(), query()); abi.AsError(err).Code != abi.CodeNotAvailable || !strings.Contains(err.Error(), "WW_TEST_VISION_UNSET") {
		t.Errorf("missing key: %v", err)
	}
	m = newModel(t, srv, Config{MaxImageBytes: 4}, hostOf(srv))
	if _, err := m.Locate(context.Background(), query()); abi.AsError(err).Code != abi.CodeResourceLimit {
		t.Errorf("large image: %v", err)
	}
	if n := len(srv.requests()); n != 0 {
		t.Errorf("the endpoint received %d requests", n)
	}
	for _, c := range []Config{{Endpoint: "ftp://x", Model: "m"}, {Endpoint: "http://u:p@x/v1", Model: "m"}, {Endpoint: "http://x/v1"}} {
		if c.Validate() == nil {
			t.Errorf("%+v validated", c)
		}
	}
}
