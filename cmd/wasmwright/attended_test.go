package main

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/hostfuncs/vault"
)

// Only a terminal on stdin makes a call attended: a reader, a pipe or a
// file never does.
func TestCallAttendedOnlyOnATerminal(t *testing.T) {
	ctx := context.Background()
	if vault.HumanPresent(attended(ctx, strings.NewReader(""))) {
		t.Error("a reader made the call attended")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if vault.HumanPresent(attended(ctx, r)) {
		t.Error("a pipe made the call attended")
	}
	f, err := os.CreateTemp(t.TempDir(), "stdin")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if vault.HumanPresent(attended(ctx, f)) {
		t.Error("a file made the call attended")
	}
}
