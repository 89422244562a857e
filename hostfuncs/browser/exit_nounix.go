//go:build !unix

package browser

// waitExit cannot watch a process here: a dead driver is then found only
// through the errors of the calls that reach it.
func waitExit(pid int) bool { return false }
