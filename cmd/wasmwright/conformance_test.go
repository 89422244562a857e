package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/internal/testenv"
	"github.com/wasmwright/wasmwright/internal/wasmbuild"
)

// `plugins verify FILE` is a conformance check: the example passes every
// check; a plugin whose manifest has an unknown key and an unknown
// capability fails those checks by name, and exits 1.
func TestVerifyFileConformance(t *testing.T) {
	testenv.Long(t, "plugins verify compiles each file over an empty cache of its own, by design")
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

// `plugins verify FILE` runs a hook's self-test as a swap would: a detector
// that panics fails verify; a sound one passes, and whether it catches the
// host's walls alone is said. An AssemblyScript module's load check does
// not speak of Go's -buildmode=c-shared.
func TestVerifyFileRunsSelfTest(t *testing.T) {
	testenv.Long(t, "plugins verify compiles three files, each over an empty cache of its own, by design")
	panics, err := wasmbuild.Build("host/testdata/testhooks", "-ldflags=-X main.broken=panic")
	if err != nil {
		t.Fatal(err)
	}
	code, out, _ := cli(t, "plugins", "verify", panics)
	if code != 1 || !strings.Contains(out, "FAIL self-test") || !strings.Contains(out, "crashed or answered nonsense") || strings.Contains(out, "conforms") {
		t.Fatalf("a detector that panics must fail verify: exit %d\n%s", code, out)
	}
	sound, err := wasmbuild.Build("host/testdata/humancheck")
	if err != nil {
		t.Fatal(err)
	}
	// Under a file name that is not its plugin name, the chain it suggests
	// names the plugin as a config does (its manifest's name).
	renamed := filepath.Join(t.TempDir(), "my-detector-v2.wasm")
	if b, err := os.ReadFile(sound); err != nil || os.WriteFile(renamed, b, 0o644) != nil {
		t.Fatal(err)
	}
	code, out, _ = cli(t, "plugins", "verify", renamed)
	if code != 0 || !strings.Contains(out, "ok   self-test") || !strings.Contains(out, "note alone it lets the host's wall through") ||
		!strings.Contains(out, "ok   load (exports, -buildmode=c-shared,") {
		t.Fatalf("a detector for one vendor passes verify, with a note: exit %d\n%s", code, out)
	}
	if !strings.Contains(out, `hooks.detect = ["blockdetect", "humancheck"]`) || strings.Contains(out, `"my-detector-v2"]`) ||
		!strings.Contains(out, `note its manifest names it "humancheck": install it as humancheck.wasm`) {
		t.Fatalf("verify must suggest the plugin's name, not the file's:\n%s", out)
	}
	as, err := wasmbuild.Build("examples/page_title")
	if err != nil {
		t.Fatal(err)
	}
	code, out, _ = cli(t, "plugins", "verify", as)
	if code != 0 || strings.Contains(out, "c-shared") || !strings.Contains(out, "ok   load (exports, ABI and protocol versions, imports)") {
		t.Fatalf("AssemblyScript module: exit %d\n%s", code, out)
	}
}
