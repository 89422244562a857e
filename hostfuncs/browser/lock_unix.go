//go:build unix

package browser

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockProfile takes the cross-process lock of a personality's profile: an
// flock on <profiles_dir>/<name>.lock, released when the file is closed (or
// the process dies). A second holder, in this process or another, is
// refused at once rather than left to fail inside Chromium.
func lockProfile(dir, name string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(filepath.Join(dir, name+".lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errors.New("locked by another session or process")
		}
		return nil, fmt.Errorf("locking the profile: %w", err)
	}
	f.Truncate(0)
	fmt.Fprintf(f, "%d\n", os.Getpid())
	return f, nil
}

func unlockProfile(f *os.File) {
	syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
	f.Close()
}
