//go:build !unix

package privatedir

import "io/fs"

// closed checks nothing where there are no Unix owners and modes: a
// Windows folder's access is its ACL, which Stat does not show.
func closed(string, fs.FileInfo, Level) error { return nil }
