//go:build unix

package privatedir

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEnsure: a missing folder is made 0700 (parents too); an existing
// one is refused, with the fix, while the group or others can enter it,
// and accepted once it is private; a file is not a folder.
func TestEnsure(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "a", "b")
	if err := Ensure(dir, Private); err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{filepath.Join(base, "a"), dir} {
		if st, err := os.Stat(d); err != nil || st.Mode().Perm() != 0o700 {
			t.Fatalf("%s: %v %v, want mode 0700", d, st.Mode(), err)
		}
	}
	for _, mode := range []os.FileMode{0o755, 0o750, 0o701, 0o777} {
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
		err := Ensure(dir, Private)
		if err == nil || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "chmod 700 "+dir) {
			t.Errorf("mode %#o: %v, want a refusal naming the folder and chmod 700", mode, err)
		}
		if st, _ := os.Stat(dir); st.Mode().Perm() != mode {
			t.Errorf("mode %#o changed to %#o: the folder is the user's to fix", mode, st.Mode().Perm())
		}
	}
	os.Chmod(dir, 0o700)
	if err := Check(dir, Private); err != nil {
		t.Fatalf("a private folder: %v", err)
	}
	if err := Check(filepath.Join(base, "missing"), Private); err != nil {
		t.Fatalf("a missing folder: %v", err)
	}
	file := filepath.Join(base, "f")
	os.WriteFile(file, nil, 0o600)
	if err := Ensure(file, Unwritable); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Fatalf("a file: %v", err)
	}
}

// TestUnwritable: a folder others may list but not write in passes; one
// they may write in is refused with the fix.
func TestUnwritable(t *testing.T) {
	dir := t.TempDir()
	for mode, ok := range map[os.FileMode]bool{0o700: true, 0o755: true, 0o750: true, 0o775: false, 0o757: false, 0o777: false} {
		if err := os.Chmod(dir, mode); err != nil {
			t.Fatal(err)
		}
		err := Ensure(dir, Unwritable)
		if ok != (err == nil) || (err != nil && !strings.Contains(err.Error(), "chmod go-w "+dir)) {
			t.Errorf("mode %#o: %v", mode, err)
		}
	}
	os.Chmod(dir, 0o700)
	if err := Ensure(filepath.Join(dir, "new"), Unwritable); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(filepath.Join(dir, "new")); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("a new folder: %v %v, want 0700", st.Mode(), err)
	}
}

// TestOwner: a folder another user owns is refused, whatever its mode.
// Only root can make one, so the test runs only as root.
func TestOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making a folder owned by another user needs root")
	}
	dir := filepath.Join(t.TempDir(), "theirs")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(dir, 65534, 65534); err != nil {
		t.Skipf("chown: %v", err)
	}
	for _, l := range []Level{Private, Unwritable} {
		if err := Ensure(dir, l); err == nil || !strings.Contains(err.Error(), "belongs to user id 65534") {
			t.Fatalf("a folder of another user (level %d): %v", l, err)
		}
	}
}
