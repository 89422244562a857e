package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteReplacesWholeWithItsMode(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "f")
	if err := os.WriteFile(dst, []byte("old, longer than the new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(dst, []byte("new"), 0o600, ".w-*"); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(dst)
	fi, _ := os.Stat(dst)
	if err != nil || string(b) != "new" || fi.Mode().Perm() != 0o600 {
		t.Fatalf("got %q (%v), mode %v; want \"new\", 0600", b, err, fi.Mode().Perm())
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".w-*")); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

func TestWriteThatFailsLeavesNoTemporaryFile(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "sub")
	if err := os.Mkdir(dst, 0o755); err != nil { // a file cannot be renamed over a folder
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dst, "x"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Write(dst, []byte("new"), 0o600, ".w-*"); err == nil {
		t.Fatal("a rename over a non-empty folder succeeded")
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".w-*")); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
}
