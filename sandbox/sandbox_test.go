package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/testenv"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

func build(t testing.TB, dir string, extra ...string) []byte {
	t.Helper()
	b, err := wasmbuild.Bytes(dir, extra...)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// cacheDir is the compilation cache the package's tests share, its compiled
// code kept across runs (wasmbuild.TestCacheDir): a Go plugin compiles in
// seconds without it.
var cacheDir = wasmbuild.TestCacheDir("sandbox")

func engine(t testing.TB, cfg Config) *Engine {
	t.Helper()
	if cfg.CacheDir == "" {
		cfg.CacheDir = cacheDir
	}
	have := map[string]bool{}
	for _, f := range cfg.HostFuncs {
		have[f.Name] = true
	}
	for _, n := range []string{abi.HostInfo, abi.HostEventsEmit, abi.HostSecretsMaskValues, abi.HostNetworkFetch} {
		if !have[n] {
			cfg.HostFuncs = append(cfg.HostFuncs, HostFunc{Name: n, Fn: func(context.Context, string, []byte) ([]byte, error) { return []byte(`{}`), nil }})
		}
	}
	e, err := NewEngine(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func load(t testing.TB, e *Engine, dir string) *Plugin {
	t.Helper()
	p, err := e.Load(context.Background(), dir, build(t, dir), "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Retire(context.Background()) })
	return p
}

func callTool(t testing.TB, p *Plugin, tool string, args string) ([]byte, error) {
	t.Helper()
	in, err := abi.Frame(abi.CallHeader{Tool: tool, Session: "s1"}, []byte(args))
	if err != nil {
		t.Fatal(err)
	}
	return p.Call(context.Background(), abi.OpCall, in)
}

func code(err error) abi.Code {
	var e *abi.Error
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

func TestExampleRunsOnFastPath(t *testing.T) {
	p := load(t, engine(t, Config{}), "examples/extract_links")
	if !p.Fast {
		t.Fatal("an SDK plugin must use the fast path")
	}
	if p.Manifest().Name != "extract_links" || len(p.Manifest().Tools) != 1 || p.Manifest().ABI != abi.Version() ||
		p.Manifest().Protocols[abi.ProtocolBrowser] != abi.Protocols()[abi.ProtocolBrowser] {
		t.Fatalf("manifest: %+v", p.Manifest())
	}
	out, err := callTool(t, p, "extract_links", `{"html":"<a href=\"/x\">X <i>y</i></a>","base":"http://h.test/"}`)
	if err != nil {
		t.Fatal(err)
	}
	var r abi.Result
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(r.Data), `"href":"http://h.test/x"`) || !strings.Contains(r.Text, "X y -> http://h.test/x") {
		t.Fatalf("result: %s", out)
	}
	// A coded error from the plugin keeps its code.
	_, err = callTool(t, p, "extract_links", `{"html":"  "}`)
	if code(err) != abi.CodeInputInvalid {
		t.Fatalf("want input_invalid, got %v", err)
	}
}

func TestPlainExtismPlugin(t *testing.T) {
	p := load(t, engine(t, Config{}), "sandbox/testdata/plainextism")
	if p.Fast {
		t.Fatal("a plain Extism plugin has no fast path")
	}
	out, err := callTool(t, p, "upper", `"abc"`)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `{"text":"ABC"}` {
		t.Fatalf("got %s", out)
	}
}

func TestLoadRefusals(t *testing.T) {
	e := engine(t, Config{})
	ctx := context.Background()
	good := build(t, "examples/extract_links")
	cases := []struct {
		name string
		wasm []byte
		pin  string
		code abi.Code
		msg  string
	}{
		{"malformed", []byte("this is not wasm"), "", abi.CodeInputInvalid, "malformed wasm"},
		{"truncated", good[:len(good)/2], "", abi.CodeInputInvalid, "malformed wasm"},
		{"wrong sha256", good, strings.Repeat("ab", 32), abi.CodeRefused, "update the pin"},
		{"missing export", []byte("\x00asm\x01\x00\x00\x00"), "", abi.CodeInputInvalid, `missing export "describe"`},
		{"future abi", build(t, "sandbox/testdata/plainextism", "-ldflags=-X main.abiMinor=9"), "", abi.CodeABIMismatch, "upgrade wasmwright, or rebuild the plugin against plugin-sdk v1.0"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, err := e.Load(ctx, "x", c.wasm, c.pin)
			if err == nil {
				p.Retire(ctx)
				t.Fatal("loaded")
			}
			if code(err) != c.code || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("want %s containing %q, got %v", c.code, c.msg, err)
			}
		})
	}
}

// announced returns a ww_info stub that reports each call on a channel:
// misbehave's loop with announce calls it just before it spins.
func announced() (HostFunc, chan struct{}) {
	ch := make(chan struct{}, 8)
	return HostFunc{Name: abi.HostInfo, Fn: func(context.Context, string, []byte) ([]byte, error) {
		select {
		case ch <- struct{}{}:
		default:
		}
		return []byte(`{}`), nil
	}}, ch
}

func TestMisbehaviour(t *testing.T) {
	info, spinning := announced()
	// A generous deadline: on a busy machine growing to the memory limit
	// (oom) takes seconds, and must still end in resource_limit, not
	// timeout. The loop below gets a deadline of its own.
	e := engine(t, Config{Timeout: time.Minute, MemoryPages: 1024, HostFuncs: []HostFunc{info}})
	p := load(t, e, "sandbox/testdata/misbehave")

	t.Run("panic", func(t *testing.T) {
		// The caller is told the code and the plugin's name; the panic's
		// words are the Crash's Detail, for the event log only.
		_, err := callTool(t, p, "panic", `{}`)
		var c *Crash
		if code(err) != abi.CodePluginFailed || !errors.As(err, &c) || !strings.Contains(c.Detail, "deliberate panic in misbehave") {
			t.Fatalf("got %v", err)
		}
		if msg := abi.AsError(err).Message; strings.Contains(err.Error(), "deliberate") || strings.Contains(msg, "deliberate") || !strings.Contains(msg, "sandbox/testdata/misbehave") {
			t.Fatalf("the caller's error holds the plugin's panic text or lacks its name: %v", err)
		}
	})
	t.Run("invalid json output", func(t *testing.T) {
		// The sandbox hands bytes back; the host's dispatch validates them
		// (host tests cover that). Here: the bytes are what the plugin sent.
		out, err := callTool(t, p, "badjson", `{}`)
		if err != nil || json.Valid(out) {
			t.Fatalf("got %s, %v", out, err)
		}
	})
	t.Run("coded error", func(t *testing.T) {
		_, err := callTool(t, p, "coded", `{}`)
		if code(err) != abi.CodeNotFound || !strings.Contains(err.Error(), "nothing here") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("oom", func(t *testing.T) {
		_, err := callTool(t, p, "oom", `{}`)
		if code(err) != abi.CodeResourceLimit || !strings.Contains(err.Error(), "out of memory") {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("oversized input", func(t *testing.T) {
		small := engine(t, Config{MaxInput: 1 << 10})
		q := load(t, small, "sandbox/testdata/misbehave")
		_, err := callTool(t, q, "echo", `{"x":"`+strings.Repeat("a", 2<<10)+`"}`)
		if code(err) != abi.CodeResourceLimit {
			t.Fatalf("got %v", err)
		}
	})
	t.Run("loop is stopped while others are served and GC runs", func(t *testing.T) {
		testenv.Long(t, "a loop run to its 8 s deadline")
		// The loop spins until its deadline: GC and another call must
		// complete before then, that is while it spins (no wall-clock
		// bound of their own, so a busy machine only makes them slower).
		const loopDeadline = 8 * time.Second
		var loopErr error
		loopDone := make(chan struct{})
		start := time.Now()
		go func() {
			defer close(loopDone)
			_, loopErr = p.Call(WithTimeout(context.Background(), loopDeadline), abi.OpCall, frameArgs(t, "loop", `{"announce":true}`))
		}()
		select {
		case <-spinning:
		case <-time.After(60 * time.Second):
			t.Fatal("the loop never started")
		}
		// While the loop spins: a GC completes and another call is served.
		gcDone := make(chan time.Duration, 1)
		go func() { t0 := time.Now(); runtime.GC(); gcDone <- time.Since(t0) }()
		if _, err := callTool(t, p, "echo", `{"a":1}`); err != nil {
			t.Fatalf("echo during loop: %v", err)
		}
		select {
		case <-loopDone:
			t.Fatalf("the echo took until the loop's deadline (%v): it waited for the loop", time.Since(start))
		default:
		}
		select {
		case d := <-gcDone:
			select {
			case <-loopDone:
				t.Fatalf("GC took %v, until the loop's deadline: it waited for the loop", d)
			default:
			}
		case <-loopDone:
			t.Fatal("GC did not complete while the plugin looped")
		}
		<-loopDone
		if code(loopErr) != abi.CodeTimeout {
			t.Fatalf("loop: got %v", loopErr)
		}
		// Stopped at its deadline, not long after (a hang-catcher: 10 s of
		// slack against a few ms on a quiet machine).
		if el := time.Since(start); el > loopDeadline+10*time.Second {
			t.Fatalf("loop stopped after %v, deadline %v", el, loopDeadline)
		}
	})
	t.Run("instances are discarded after a trap", func(t *testing.T) {
		// An echo leaves an idle instance, which the panic call then takes:
		// the trap must discard it, so one instance fewer is alive (a
		// count that merely did not grow would pass without a discard).
		if _, err := callTool(t, p, "echo", `{}`); err != nil {
			t.Fatal(err)
		}
		before := p.Instances()
		if _, err := callTool(t, p, "panic", `{}`); code(err) != abi.CodePluginFailed {
			t.Fatalf("panic: got %v", err)
		}
		if after := p.Instances(); after != before-1 {
			t.Fatalf("instances %d -> %d after a trap, want %d", before, after, before-1)
		}
		if _, err := callTool(t, p, "echo", `{}`); err != nil {
			t.Fatalf("the next call must get a fresh instance: %v", err)
		}
	})
}

func TestRealClockAndSleep(t *testing.T) {
	p := load(t, engine(t, Config{}), "sandbox/testdata/misbehave")
	out, err := callTool(t, p, "sleep", `{"ms":50}`)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Data struct {
			Now     int64 `json:"now"`
			SleptMS int64 `json:"slept_ms"`
		} `json:"data"`
	}
	json.Unmarshal(out, &r)
	if d := time.Now().Unix() - r.Data.Now; d < -5 || d > 5 {
		t.Fatalf("plugin clock is %d s off", d)
	}
	if r.Data.SleptMS < 45 {
		t.Fatalf("sleep returned after %d ms", r.Data.SleptMS)
	}
}

// Extism links http_request into every plugin; ours must never let it out.
func TestExtismHTTPClosed(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	p := load(t, engine(t, Config{}), "sandbox/testdata/misbehave")
	_, err := callTool(t, p, "http", `{"url":"`+srv.URL+`"}`)
	if err == nil {
		t.Fatal("http_request succeeded")
	}
	if hits.Load() != 0 {
		t.Fatalf("the test server saw %d requests", hits.Load())
	}
}

func TestHostFunctionsAndLogs(t *testing.T) {
	var logs strings.Builder
	var mu sync.Mutex
	lg := slog.New(slog.NewTextHandler(writerFunc(func(b []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return logs.Write(b)
	}), nil))
	var got string
	e := engine(t, Config{Logger: lg, HostFuncs: []HostFunc{
		{Name: abi.HostEventsEmit, Fn: func(ctx context.Context, plugin string, req []byte) ([]byte, error) {
			got = plugin + " " + string(req)
			return []byte(`{}`), nil
		}},
		{Name: abi.HostInfo, Fn: func(ctx context.Context, plugin string, req []byte) ([]byte, error) {
			return nil, abi.Errorf(abi.CodeRefused, "no info for you")
		}},
	}})
	p := load(t, e, "sandbox/testdata/misbehave")
	if _, err := callTool(t, p, "emit", `{}`); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(got, `misbehave {"kind":"misbehave.emit","data":{"session":"s1"}}`) {
		t.Fatalf("host function saw %q", got)
	}
	_, err := callTool(t, p, "info", `{}`)
	if code(err) != abi.CodeRefused || !strings.Contains(err.Error(), "no info for you") {
		t.Fatalf("a host function's error must reach the caller with its code: %v", err)
	}
	if _, err := callTool(t, p, "log", `{"msg":"hello from the plugin"}`); err != nil {
		t.Fatal(err)
	}
	callTool(t, p, "panic", `{}`)
	mu.Lock()
	out := logs.String()
	mu.Unlock()
	if !strings.Contains(out, `level=WARN msg="hello from the plugin" plugin=sandbox/testdata/misbehave`) {
		t.Fatalf("plugin log line not in the host log:\n%s", out)
	}
	if !strings.Contains(out, "deliberate panic in misbehave") {
		t.Fatalf("a crash's stderr must reach the host log:\n%s", out)
	}
}

func TestNoFilesystemRealRandomness(t *testing.T) {
	e := engine(t, Config{PoolSize: 1})
	p := load(t, e, "sandbox/testdata/misbehave")
	_, err := callTool(t, p, "readfile", `{"path":"/etc/hostname"}`)
	if code(err) != abi.CodeNotAvailable || !strings.Contains(err.Error(), "read failed") {
		t.Fatalf("a plugin read a host file: %v", err)
	}
	q := load(t, e, "sandbox/testdata/misbehave")
	a, err1 := callTool(t, p, "random", `{}`)
	b, err2 := callTool(t, q, "random", `{}`)
	if err1 != nil || err2 != nil || string(a) == string(b) {
		t.Fatalf("two fresh instances drew the same random bytes: %s %s (%v %v)", a, b, err1, err2)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(b []byte) (int, error) { return f(b) }

// WithTimeout replaces the engine's deadline for one call: a sleep longer
// than the engine's Timeout finishes under a longer one, and the same
// sleep without it is stopped.
func TestWithTimeoutExtendsOneCall(t *testing.T) {
	p := load(t, engine(t, Config{Timeout: 200 * time.Millisecond}), "sandbox/testdata/misbehave")
	if _, err := callTool(t, p, "sleep", `{"ms":400}`); code(err) != abi.CodeTimeout {
		t.Fatalf("a 400 ms sleep under a 200 ms deadline: want timeout, got %v", err)
	}
	out, err := p.Call(WithTimeout(context.Background(), 5*time.Second), abi.OpCall, frameArgs(t, "sleep", `{"ms":400}`))
	if err != nil {
		t.Fatalf("a 400 ms sleep under a 5 s deadline: %v", err)
	}
	if !strings.Contains(string(out), "slept_ms") {
		t.Fatalf("unexpected output %s", out)
	}
}
