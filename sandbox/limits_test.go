package sandbox

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/logrec"
)

// A flood of calls cannot take the host's memory: one plugin runs at most
// MaxCalls calls (instances) at once; the next waits until its deadline and
// is refused naming the setting, and runs once a call finishes.
func TestMaxCallsBoundsInstances(t *testing.T) {
	started := make(chan struct{}, 8)
	e := engine(t, Config{MaxCalls: 2, MaxCallsKey: "host.max_calls", HostFuncs: []HostFunc{{Name: abi.HostInfo, Fn: func(context.Context, string, []byte) ([]byte, error) {
		started <- struct{}{}
		return []byte(`{}`), nil
	}}}})
	p := load(t, e, "sandbox/testdata/misbehave")
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			in, _ := abi.Frame(abi.CallHeader{Tool: "nap", Session: "s1"}, []byte(`{"ms":60000}`))
			p.Call(ctx, abi.OpCall, in)
		}()
	}
	<-started
	<-started
	short, cancelShort := context.WithTimeout(context.Background(), 200e6)
	defer cancelShort()
	in, _ := abi.Frame(abi.CallHeader{Tool: "echo", Session: "s1"}, []byte(`{"n":1}`))
	_, err := p.Call(short, abi.OpCall, in)
	if code(err) != abi.CodeResourceLimit || !strings.Contains(err.Error(), "already runs 2 calls at once (host.max_calls)") {
		t.Fatalf("third call while two run: want resource_limit naming host.max_calls, got %v", err)
	}
	if n := p.Instances(); n > 2 {
		t.Fatalf("%d instances alive, cap 2", n)
	}
	cancel()
	wg.Wait()
	if _, err := p.Call(context.Background(), abi.OpCall, in); err != nil {
		t.Fatalf("after the running calls ended: %v", err)
	}
}

// A quiet call (the masker's) is not heard: its log lines and a crash's
// stderr stay out of the host's log and out of the error.
func TestQuietCallsAreNotHeard(t *testing.T) {
	var buf logrec.Buffer
	e := engine(t, Config{Logger: newTestLogger(&buf)})
	p := load(t, e, "sandbox/testdata/misbehave")
	in, _ := abi.Frame(abi.CallHeader{Tool: "panic", Session: "s1"}, []byte(`{}`))
	_, err := p.Call(WithQuiet(context.Background()), abi.OpCall, in)
	if code(err) != abi.CodePluginFailed || strings.Contains(err.Error(), "deliberate") {
		t.Fatalf("quiet panic: %v", err)
	}
	if strings.Contains(buf.String(), "deliberate") {
		t.Fatalf("a quiet plugin's stderr reached the log: %s", buf.String())
	}
	// The same call, not quiet, is heard: the check above can fail.
	_, err = p.Call(context.Background(), abi.OpCall, in)
	if !strings.Contains(err.Error()+buf.String(), "deliberate") {
		t.Fatalf("a loud panic left no trace: %v / %s", err, buf.String())
	}
}

func newTestLogger(w *logrec.Buffer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// What linking decides on cannot be edited after load: Manifest and
// Imports hand out copies.
func TestManifestAndImportsAreCopies(t *testing.T) {
	p := load(t, engine(t, Config{}), "sandbox/testdata/misbehave")
	m := p.Manifest()
	if len(m.Capabilities) == 0 || len(m.Tools) == 0 || len(p.Imports()) == 0 {
		t.Fatalf("misbehave should declare capabilities, tools and imports: %+v %v", m, p.Imports())
	}
	want := fmt.Sprint(p.Manifest(), p.Imports())
	m.Capabilities[0] = "secrets.mask"
	m.Tools[0].Name = "renamed"
	m.Tools[0].InputSchema[0] = '!'
	m.Hooks = append(m.Hooks, abi.HookMask)
	imp := p.Imports()
	imp[0] = "ww_vault_fill"
	if got := fmt.Sprint(p.Manifest(), p.Imports()); got != want {
		t.Fatalf("editing the copies changed the plugin:\n%s\nwas\n%s", got, want)
	}
}

// A plugin cannot flood the host's log: a call's lines past MaxLogLines are
// dropped, with one line saying so; the next call may log again.
func TestLogLinesCappedPerCall(t *testing.T) {
	var buf logrec.Buffer
	p := load(t, engine(t, Config{Logger: newTestLogger(&buf)}), "sandbox/testdata/misbehave")
	if _, err := callTool(t, p, "log", `{"msg":"flood-line","n":1000}`); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "flood-line"); n != MaxLogLines {
		t.Fatalf("%d lines logged, want %d", n, MaxLogLines)
	}
	if n := strings.Count(buf.String(), "further lines of this call are dropped"); n != 1 {
		t.Fatalf("the drop was said %d times, want once", n)
	}
	if _, err := callTool(t, p, "log", `{"msg":"next-call"}`); err != nil || !strings.Contains(buf.String(), "next-call") {
		t.Fatalf("the next call could not log: %v", err)
	}
}
