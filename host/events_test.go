package host

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/hostfuncs/vault"
)

// The tail keeps the latest events in order, however many came before.
func TestEventRing(t *testing.T) {
	var r eventRing
	if got := r.last(10); len(got) != 0 {
		t.Fatalf("empty ring: %v", got)
	}
	for i := 0; i < recentEvents+7; i++ {
		r.add(hostfuncs.Event{Kind: fmt.Sprint(i)})
	}
	got := r.last(3)
	if len(got) != 3 || got[0].Kind != fmt.Sprint(recentEvents+4) || got[2].Kind != fmt.Sprint(recentEvents+6) {
		t.Fatalf("last 3: %v", got)
	}
	if all := r.last(recentEvents * 2); len(all) != recentEvents || all[0].Kind != "7" {
		t.Fatalf("all: %d, first %v", len(all), all[0].Kind)
	}
}

// A made-up tool name reaches the log shortened.
func TestCapBytes(t *testing.T) {
	if got := capBytes(strings.Repeat("é", 100), 9); got != "éééé…" {
		t.Fatalf("%q", got)
	}
	if got := capBytes("browser_click", 128); got != "browser_click" {
		t.Fatalf("%q", got)
	}
}

// TestEventsAreMasked: the event log is read by people (the console's
// tail, the events file): an event holding a session's secret or a value
// the vault stores, raw or JSON-escaped, reaches the sink masked, and one
// a vault that cannot be read leaves masked for the session's secrets.
func TestEventsAreMasked(t *testing.T) {
	t.Parallel() // its own host: overlaps the other such tests' waits
	f := newFixture(t, map[string]string{})
	if err := vault.Open(vault.Options{File: filepath.Join(f.dir, "vault.age")}).Put(vault.Credential{Name: "site", Username: "ada", Password: `stored"Pw-77`,
		Policy: vault.Policy{Origins: []string{"https://example.com"}, Personalities: []string{"p"}}}); err != nil {
		t.Fatal(err)
	}
	sink := &hostfuncs.MemorySink{}
	h := f.host(t, "[vault]\nfile = \"vault.age\"\n[personalities.p]\n", sink)
	h.Secrets().Add("p", "s1", "typed-Secret-1")
	data, _ := json.Marshal(map[string]string{"reason": `use stored"Pw-77 and typed-Secret-1 as ada`})
	h.Emit(hostfuncs.Event{Kind: "x", Personality: "p", Session: "s1", Data: data})
	ev := sink.Snapshot()
	if len(ev) != 1 || string(ev[0].Data) != `{"reason":"use •••••• and •••••• as ada"}` {
		t.Fatalf("the event reached the sink as %s", ev[0].Data)
	}
	if got := h.RecentEvents(1); string(got[0].Data) != string(ev[0].Data) {
		t.Fatalf("the tail holds %s", got[0].Data)
	}
	// The vault unreadable: its values are unknown; the session's are
	// still masked.
	os.WriteFile(filepath.Join(f.dir, "vault.age"), []byte("not a vault"), 0o600)
	h.Emit(hostfuncs.Event{Kind: "x", Personality: "p", Session: "s1", Data: data})
	if ev = sink.Snapshot(); strings.Contains(string(ev[1].Data), "typed-Secret-1") {
		t.Fatalf("the session's secret passed: %s", ev[1].Data)
	}
}
