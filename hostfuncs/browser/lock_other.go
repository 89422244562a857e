//go:build !unix

package browser

import (
	"os"
	"path/filepath"
)

// lockProfile without flock: an exclusive create, removed on unlock. A
// crashed process leaves the file behind; delete it by hand.
func lockProfile(dir, name string) (*os.File, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	return os.OpenFile(filepath.Join(dir, name+".lock"), os.O_CREATE|os.O_EXCL|os.O_RDWR, 0o600)
}

func unlockProfile(f *os.File) {
	f.Close()
	os.Remove(f.Name())
}
