package host

import (
	"fmt"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/hostfuncs"
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
