//go:build unix

package privatedir

import (
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// closed refuses a folder another user owns (its owner can read and
// replace whatever is kept in it, whatever its mode) or one its group or
// other users may enter (Private) or write in (Unwritable).
func closed(dir string, st fs.FileInfo, l Level) error {
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		if me := os.Geteuid(); int(sys.Uid) != me {
			return fmt.Errorf("folder %s belongs to user id %d, not to you (%d): another user could read or replace what is kept there; use a folder of your own", dir, sys.Uid, me)
		}
	}
	perm := st.Mode().Perm()
	switch {
	case l == Private && perm&0o077 != 0:
		return fmt.Errorf("folder %s is open to other users (mode %#o): make it private with chmod 700 %s", dir, perm, dir)
	case l == Unwritable && perm&0o022 != 0:
		return fmt.Errorf("folder %s can be written by other users (mode %#o): they could replace what is kept there; make it yours alone with chmod go-w %s (or chmod 700)", dir, perm, dir)
	}
	return nil
}
