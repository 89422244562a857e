//go:build !unix

package pluginset

// Without flock no lock tells a live watcher from a crashed one: the host
// holds none, and `plugins swap` validates the file itself.
func holdWatchLock(string) (release func()) { return func() {} }

// Watched is false without flock (holdWatchLock).
func Watched(string) bool { return false }
