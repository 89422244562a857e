package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// pattern names the tests' temporary files.
const pattern = ".w-*"

// noLeftovers fails t when a temporary file of Write stays in dir.
func noLeftovers(t *testing.T, dir string) {
	t.Helper()
	if m, _ := filepath.Glob(filepath.Join(dir, pattern)); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

func TestWriteReplacesWholeWithItsMode(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "f")
	if err := os.WriteFile(dst, []byte("old, longer than the new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(dst, []byte("new"), 0o600, pattern); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(dst)
	fi, _ := os.Stat(dst)
	if err != nil || string(b) != "new" || fi.Mode().Perm() != 0o600 {
		t.Fatalf("got %q (%v), mode %v; want \"new\", 0600", b, err, fi.Mode().Perm())
	}
	noLeftovers(t, filepath.Dir(dst))
}

func TestWriteThatFailsLeavesNoTemporaryFile(t *testing.T) {
	// A file cannot be renamed over a folder that holds something.
	dst := filepath.Join(t.TempDir(), "sub")
	if err := os.MkdirAll(filepath.Join(dst, "x"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := Write(dst, []byte("new"), 0o600, pattern); err == nil {
		t.Fatal("a rename over a non-empty folder succeeded")
	}
	noLeftovers(t, filepath.Dir(dst))
}
