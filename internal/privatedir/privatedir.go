// Package privatedir keeps the folders of the host's secret state (the
// credential vault, the act grants) to the user running it.
//
// os.MkdirAll(dir, 0o700) secures only a folder it creates: a folder that
// already exists keeps its owner and mode, so one another user made first
// in a shared place (the system temp folder), or one left open to the
// group, would hold the secrets or let them be replaced.
package privatedir

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// Level is how closed an existing folder must be. Either way it must be
// owned by the current user.
type Level int

const (
	// Private: no group or other user may enter it (mode & 0o077 == 0).
	// For a folder that holds only the secret state (grants_dir, the
	// vault's default folder).
	Private Level = iota
	// Unwritable: no group or other user may write in it (mode & 0o022
	// == 0), so none can add, replace or remove a file there. For a
	// folder the operator chose that holds other files too (the config's
	// folder, named by [vault] file): what the store writes there is mode
	// 0600, so listing the folder shows names only.
	Unwritable
)

// Ensure makes dir a folder of this user: it creates it (and its missing
// parents) with mode 0700, or, when it exists, checks it as Check does.
func Ensure(dir string, l Level) error {
	if err := Check(dir, l); err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	// MkdirAll may have lost a race to someone else's mkdir: check what
	// is there now.
	return Check(dir, l)
}

// Check refuses a dir that exists but is not a folder of the current user
// closed as l says; the error names the folder and the fix. A dir that
// does not exist passes: there is nothing in it to read.
func Check(dir string, l Level) error {
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if !st.IsDir() {
		return fmt.Errorf("%s is not a folder", dir)
	}
	return closed(dir, st, l)
}
