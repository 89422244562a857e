// Package reporoot finds the repository a command runs in: the doc
// generators (internal/configdoc, internal/tooldoc) write files there; and
// where a page they generate differs from the one checked in.
package reporoot

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
)

// Find is the folder holding go.mod, from the working directory up.
func Find() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", errors.New("no go.mod above the working directory: run it inside the repository")
		}
		dir = up
	}
}

// FirstDiff is the first line (from 1) where want and got differ, and
// that line of each ("" past its end); line is 0 when they are equal.
func FirstDiff(want, got string) (line int, w, g string) {
	ws, gs := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(ws) || i < len(gs); i++ {
		w, g = "", ""
		if i < len(ws) {
			w = ws[i]
		}
		if i < len(gs) {
			g = gs[i]
		}
		if w != g {
			return i + 1, w, g
		}
	}
	return 0, "", ""
}
