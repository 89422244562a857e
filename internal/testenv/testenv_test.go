package testenv

import "testing"

// Heavy skips only in the short tier: without -short (make test, CI) a
// heavy test runs, and so fails there if its part is missing.
func TestHeavySkipsOnlyUnderShort(t *testing.T) {
	ran := false
	sub := t.Run("heavy", func(t *testing.T) {
		Heavy(t, "a part")
		ran = true
	})
	if !sub {
		t.Fatal("the heavy subtest failed")
	}
	if ran == testing.Short() {
		t.Fatalf("-short=%v: the heavy test ran=%v, want it to run exactly when not -short", testing.Short(), ran)
	}
}

// Long, like Heavy, skips only in the short tier.
func TestLongSkipsOnlyUnderShort(t *testing.T) {
	ran := false
	if !t.Run("long", func(t *testing.T) { Long(t, "runs to a deadline"); ran = true }) {
		t.Fatal("the long subtest failed")
	}
	if ran == testing.Short() {
		t.Fatalf("-short=%v: the long test ran=%v, want it to run exactly when not -short", testing.Short(), ran)
	}
}
