package vision

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/hostfuncs/network"
	"github.com/wasmwright/wasmwright/internal/visiontest"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// newModel is a Model on srv whose traffic goes through a real network
// service: allowed lists the hosts the personality "p" may reach.
func newModel(t *testing.T, srv *visiontest.Server, cfg Config, allowed ...string) *Model {
	t.Helper()
	nw, err := network.New(network.Options{Policies: map[string]network.Policy{"p": {AllowedHosts: allowed}}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { nw.Close(context.Background()) })
	cfg.Endpoint = srv.Endpoint()
	if cfg.Model == "" {
		cfg.Model = "test-vl"
	}
	m, err := New(cfg, nw.Client)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var legend = []abi.ScreenMark{
	{Mark: 1, Ref: "e3", Role: "button", Name: "Save", Box: [4]int{10, 20, 100, 40}},
	{Mark: 2, Role: "", Name: "", Box: [4]int{200, 100, 50, 50}},
}

func query() Query {
	return Query{Personality: "p", Image: []byte("\x89PNG fake image bytes"), Width: 800, Height: 600, Marks: legend, Description: "the Save button", Action: "click"}
}

// TestRequestGolden: the exact request the endpoint receives (the image
// replaced by its sha256 and length) is testdata/request.golden, and the
// key named by api_key_env goes as a Bearer token.
func TestRequestGolden(t *testing.T) {
	srv := visiontest.New(t)
	srv.Answer(`{"mark": 1}`)
	t.Setenv("WW_TEST_VISION_KEY", "k-123")
	m := newModel(t, srv, Config{APIKeyEnv: "WW_TEST_VISION_KEY"}, srv.HostPort())
	if _, err := m.Locate(context.Background(), query()); err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests", len(reqs))
	}
	if got := srv.Header(0).Get("Authorization"); got != "Bearer k-123" {
		t.Errorf("Authorization %q", got)
	}
	got := visiontest.Redact(reqs[0])
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
	srv := visiontest.New(t)
	m := newModel(t, srv, Config{}, srv.HostPort())
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
		srv.Answer(c.answer)
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
	srv := visiontest.New(t)
	m := newModel(t, srv, Config{Timeout: hostfuncs.Duration{Duration: 300 * time.Millisecond}}, srv.HostPort())
	srv.Reply(500, `{"error": "model not loaded"}`)
	if _, err := m.Locate(context.Background(), query()); abi.AsError(err).Code != abi.CodeExecutionFailed || !strings.Contains(err.Error(), "HTTP 500") {
		t.Errorf("HTTP 500: %v", err)
	}
	srv.Reply(200, `{"error": "no"}`)
	if _, err := m.Locate(context.Background(), query()); abi.AsError(err).Code != abi.CodeExecutionFailed || !strings.Contains(err.Error(), "not a chat-completions response") {
		t.Errorf("no choices: %v", err)
	}
	srv.Answer(`{"mark": 1}`)
	srv.Hold()
	if _, err := m.Locate(context.Background(), query()); abi.AsError(err).Code != abi.CodeTimeout || !strings.Contains(err.Error(), "[vision] timeout") {
		t.Errorf("slow model: %v", err)
	}
}

// TestEgressPolicy: an endpoint the personality's network policy does not
// allow (loopback, here) is refused before anything is sent, naming the
// setting to change.
func TestEgressPolicy(t *testing.T) {
	srv := visiontest.New(t)
	srv.Answer(`{"mark": 1}`)
	m := newModel(t, srv, Config{})
	_, err := m.Locate(context.Background(), query())
	e := abi.AsError(err)
	if err == nil || e.Code != abi.CodeRefused || !strings.Contains(e.Message, "personalities.p.network.allowed_hosts") || !strings.Contains(e.Message, srv.HostPort()) {
		t.Fatalf("want refused naming allowed_hosts, got %v", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the endpoint received %d requests", n)
	}
}

// TestLimits: a missing API key and an oversized image fail before any
// request.
func TestLimits(t *testing.T) {
	srv := visiontest.New(t)
	m := newModel(t, srv, Config{APIKeyEnv: "WW_TEST_VISION_UNSET"}, srv.HostPort())
	os.Unsetenv("WW_TEST_VISION_UNSET")
	if _, err := m.Locate(context.Background(), query()); abi.AsError(err).Code != abi.CodeNotAvailable || !strings.Contains(err.Error(), "WW_TEST_VISION_UNSET") {
		t.Errorf("missing key: %v", err)
	}
	m = newModel(t, srv, Config{MaxImageBytes: 4}, srv.HostPort())
	if _, err := m.Locate(context.Background(), query()); abi.AsError(err).Code != abi.CodeResourceLimit {
		t.Errorf("large image: %v", err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("the endpoint received %d requests", n)
	}
	for _, c := range []Config{{Endpoint: "ftp://x", Model: "m"}, {Endpoint: "http://u:p@x/v1", Model: "m"}, {Endpoint: "http://x/v1"}} {
		if c.Validate() == nil {
			t.Errorf("%+v validated", c)
		}
	}
}
