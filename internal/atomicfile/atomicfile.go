// Package atomicfile writes a file whole or not at all: through a
// temporary file beside it, renamed into place, so a reader in this
// process or another never sees half of it.
package atomicfile

import (
	"io/fs"
	"os"
	"path/filepath"
)

// Write writes b to dst through a temporary file in dst's folder, named
// by pattern (as os.CreateTemp takes it), given mode before any byte is
// written and then renamed over dst. The temporary file is removed
// whatever fails.
func Write(dst string, b []byte, mode fs.FileMode, pattern string) error {
	f, err := os.CreateTemp(filepath.Dir(dst), pattern)
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	if err := f.Chmod(mode); err != nil {
		f.Close()
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), dst)
}
