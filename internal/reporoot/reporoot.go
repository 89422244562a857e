// Package reporoot finds the repository a command runs in: the doc
// generators (internal/configdoc, internal/tooldoc) write files there.
package reporoot

import (
	"errors"
	"os"
	"path/filepath"
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
