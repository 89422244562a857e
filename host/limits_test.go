package host

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/abi"
)

// host.max_output_mb reaches the sandbox: a result over it is refused with
// resource_limit naming the key, and the host keeps serving.
func TestMaxOutputFromConfig(t *testing.T) {
	f := newFixture(t, map[string]string{"misbehave": "sandbox/testdata/misbehave"})
	h := f.host(t, "[plugins.misbehave]\n[personalities.p]\nplugins = [\"misbehave\"]\ntools = [\"*\"]\ngrants = [\"events\"]\n", nil, "max_output_mb = 1")
	ctx := context.Background()
	_, err := h.Call(ctx, Request{Personality: "p", Tool: "big", Args: json.RawMessage(`{"n":2000000}`)})
	if errCode(err) != abi.CodeResourceLimit || !strings.Contains(err.Error(), "host.max_output_mb") {
		t.Fatalf("want resource_limit naming host.max_output_mb, got %v", err)
	}
	if _, err := h.Call(ctx, Request{Personality: "p", Tool: "big", Args: json.RawMessage(`{"n":1000}`)}); err != nil {
		t.Fatalf("a small result after a refused one: %v", err)
	}
	for _, v := range []string{"-1", "4096"} {
		if _, err := ParseConfig("[host]\nmax_output_mb = "+v+"\n", "t.toml", t.TempDir()); err == nil || !strings.Contains(err.Error(), "max_output_mb") {
			t.Fatalf("max_output_mb = %s: want a refusal naming the key, got %v", v, err)
		}
	}
}

// host.max_plugin_memory_mb reaches the sandbox: with room for one
// instance, a second call while one runs waits, then fails resource_limit
// naming the key; it runs once the first gives its memory back. A budget
// that holds no instance is refused at load, naming both keys.
func TestPluginMemoryBudgetFromConfig(t *testing.T) {
	f := newFixture(t, map[string]string{"misbehave": "sandbox/testdata/misbehave"})
	h := f.host(t, "[plugins.misbehave]\n[personalities.p]\nplugins = [\"misbehave\"]\ntools = [\"*\"]\ngrants = [\"events\"]\n", nil, "memory_mb = 32", "max_plugin_memory_mb = 32")
	if u := h.eng.MemoryUse(); u.Budget != 32<<20 {
		t.Fatalf("budget %d MiB, want 32", u.Budget>>20)
	}
	napCtx, stopNap := context.WithCancel(context.Background())
	napped := make(chan error, 1)
	go func() {
		_, err := h.Call(napCtx, Request{Personality: "p", Tool: "nap", Args: json.RawMessage(`{"ms":60000}`)})
		napped <- err
	}()
	// A hang-catcher of minutes: the nap's first call compiles the
	// plugin, which passed a minute on a machine at load 50.
	deadline := time.Now().Add(5 * time.Minute)
	for u := h.eng.MemoryUse(); u.Used < u.Budget; u = h.eng.MemoryUse() {
		select {
		case err := <-napped:
			t.Fatalf("the nap call ended before taking its instance's charge: %v", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the nap call never took its instance's charge: %+v", u)
		}
		time.Sleep(5 * time.Millisecond)
	}
	short, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	_, err := h.Call(short, Request{Personality: "p", Tool: "echo", Args: json.RawMessage(`{}`)})
	cancel()
	if errCode(err) != abi.CodeResourceLimit || !strings.Contains(err.Error(), "host.max_plugin_memory_mb") {
		t.Fatalf("a call while the budget is taken: want resource_limit naming host.max_plugin_memory_mb, got %v", err)
	}
	stopNap()
	<-napped
	if _, err := h.Call(context.Background(), Request{Personality: "p", Tool: "echo", Args: json.RawMessage(`{}`)}); err != nil {
		t.Fatalf("a call after the first gave its memory back: %v", err)
	}
	for _, keys := range []string{"max_plugin_memory_mb = 64\nmemory_mb = 128", "max_plugin_memory_mb = 100", "max_plugin_memory_mb = -1"} {
		if _, err := ParseConfig("[host]\n"+keys+"\n", "t.toml", t.TempDir()); err == nil || !strings.Contains(err.Error(), "host.max_plugin_memory_mb") {
			t.Fatalf("%q: want a refusal naming host.max_plugin_memory_mb, got %v", keys, err)
		}
	}
	cfg, err := ParseConfig("[host]\n", "t.toml", t.TempDir())
	if err != nil || cfg.Host.MaxPluginMemoryMB != 0 {
		t.Fatalf("absent: %v, %d", err, cfg.Host.MaxPluginMemoryMB)
	}
}
