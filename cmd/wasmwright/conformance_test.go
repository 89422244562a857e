package main

import (
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

// `plugins verify FILE` is a conformance check: the example passes every
// check; a plugin whose manifest has an unknown key and an unknown
// capability fails those checks by name, and exits 1.
func TestVerifyFileConformance(t *testing.T) {
	good, err := wasmbuild.Build("examples/extract_links")
	if err != nil {
		t.Fatal(err)
	}
	code, out, _ := cli(t, "plugins", "verify", good)
	if code != 0 || strings.Count(out, "ok   ") != 5 || !strings.Contains(out, "conforms to ABI 1.0") {
		t.Fatalf("example: exit %d\n%s", code, out)
	}
	bad, err := wasmbuild.Build("cmd/wasmwright/testdata/sloppy")
	if err != nil {
		t.Fatal(err)
	}
	code, out, _ = cli(t, "plugins", "verify", bad)
	for _, want := range []string{
		"ok   load",
		"FAIL manifest valid against abi/schema/manifest.schema.json",
		"FAIL declared capabilities known: unknown capability \"teleport\"",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("sloppy: missing %q in\n%s", want, out)
		}
	}
	if code != 1 || strings.Contains(out, "conforms") {
		t.Fatalf("sloppy: exit %d\n%s", code, out)
	}
}
