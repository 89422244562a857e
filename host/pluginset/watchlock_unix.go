//go:build unix

package pluginset

import (
	"errors"
	"os"
	"syscall"
)

// holdWatchLock takes a shared flock on a plugin's watch lock file and
// keeps it until release (or the process ends: the kernel drops it), so
// `plugins swap` can tell a live server watches that plugin's file. Any
// number of servers may hold it together. A folder the host cannot write
// gets no lock: the command then validates the file itself.
func holdWatchLock(pluginFile string) (release func()) {
	f, err := openWatchLock(pluginFile, true)
	if err != nil {
		return func() {}
	}
	// Blocking: a command's probe holds it exclusively for a moment only.
	if syscall.Flock(int(f.Fd()), syscall.LOCK_SH) != nil {
		f.Close()
		return func() {}
	}
	return func() { f.Close() }
}

// Watched reports whether a live host watches pluginFile's folder with a
// slot for it (it holds the plugin's watch lock), so a file dropped there
// is judged and swapped in, or refused and set aside, by that host.
func Watched(pluginFile string) bool {
	f, err := openWatchLock(pluginFile, false)
	if err != nil {
		return false
	}
	defer f.Close()
	err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	return errors.Is(err, syscall.EWOULDBLOCK)
}

func openWatchLock(pluginFile string, create bool) (*os.File, error) {
	path := watchLockFile(pluginFile)
	if !create {
		return os.Open(path)
	}
	if err := os.MkdirAll(watchingDirOf(pluginFile), 0o755); err != nil {
		return nil, err
	}
	return os.OpenFile(path, os.O_CREATE|os.O_RDONLY, 0o644)
}
