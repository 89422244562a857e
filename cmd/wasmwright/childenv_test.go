package main

import (
	"os"
	"slices"
	"testing"
)

// setLeanDriverEnv gives the driver's variables their lean values where
// the environment has none, and leaves an operator's own value alone
// (NODE_OPTIONS as a whole, even without a semi-space size).
func TestLeanDriverEnv(t *testing.T) {
	for _, v := range leanDriverEnv {
		t.Setenv(v.name, "") // restored after the test
		os.Unsetenv(v.name)
	}
	if got := setLeanDriverEnv(); len(got) != len(leanDriverEnv) {
		t.Fatalf("with none set, set %v, want all %d", got, len(leanDriverEnv))
	}
	want := map[string]string{"NODE_OPTIONS": "--max-semi-space-size=2", "MALLOC_TRIM_THRESHOLD_": "131072", "MALLOC_ARENA_MAX": "2"}
	for k, v := range want {
		if got := os.Getenv(k); got != v {
			t.Fatalf("%s = %q, want %q", k, got, v)
		}
	}

	os.Unsetenv("MALLOC_ARENA_MAX")
	os.Setenv("NODE_OPTIONS", "--max-old-space-size=512")
	os.Setenv("MALLOC_TRIM_THRESHOLD_", "0")
	if got := setLeanDriverEnv(); !slices.Equal(got, []string{"MALLOC_ARENA_MAX"}) {
		t.Fatalf("with two set by the operator, set %v, want only MALLOC_ARENA_MAX", got)
	}
	if os.Getenv("NODE_OPTIONS") != "--max-old-space-size=512" || os.Getenv("MALLOC_TRIM_THRESHOLD_") != "0" {
		t.Fatalf("the operator's values changed: NODE_OPTIONS=%q MALLOC_TRIM_THRESHOLD_=%q", os.Getenv("NODE_OPTIONS"), os.Getenv("MALLOC_TRIM_THRESHOLD_"))
	}
}
