package main

import (
	"testing"
	"time"
)

// TestRateCountsAnsweredCalls: a side whose calls fail is not fast: its
// rate and CPU per call count only the calls answered without an error.
func TestRateCountsAnsweredCalls(t *testing.T) {
	all := &tally{calls: 100, failed: 100, window: 10 * time.Second, cpu: 50}
	if r := all.rate(); r != 0 {
		t.Fatalf("100 failed calls in 10 s: rate %v, want 0", r)
	}
	if c := all.cpuPerCall(); c != "-" {
		t.Fatalf("no answered call: CPU per call %q, want -", c)
	}
	half := &tally{calls: 40, failed: 20, window: 10 * time.Second, cpu: 100}
	if r := half.rate(); r != 2 {
		t.Fatalf("20 answered calls in 10 s: rate %v, want 2", r)
	}
	if c := half.cpuPerCall(); c != "50" {
		t.Fatalf("100 ticks (1000 ms) over 20 answered calls: CPU per call %q ms, want 50", c)
	}
}
