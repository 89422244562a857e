package browser

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/atomicfile"
)

// personalityDir names a personality's workspace folder: its id when that
// is a safe folder name, else a hash of it.
func personalityDir(p string) string {
	if safeName.MatchString(p) {
		return p
	}
	sum := sha256.Sum256([]byte(p))
	return "p-" + hex.EncodeToString(sum[:6])
}

// Captures can show what a page showed the session (an account page, a
// masked login form): the files are the operator's alone.
const (
	workspaceDirMode  = 0o700
	workspaceFileMode = 0o600
)

// privateDir makes dir and its missing parents with workspaceDirMode, and
// tightens dir itself if it already existed looser.
func privateDir(dir string) error {
	if err := os.MkdirAll(dir, workspaceDirMode); err != nil {
		return err
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return err
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return os.Chmod(dir, workspaceDirMode)
	}
	return nil
}

// writePrivate writes a capture with workspaceFileMode, tightening a file
// of that name that was looser, through a temporary file renamed into
// place (never a half-written capture).
func writePrivate(path string, b []byte) error {
	return atomicfile.Write(path, b, workspaceFileMode, ".capture-*")
}

// workspaceFile returns where to write a screenshot or PDF: name inside the
// personality's workspace folder, with ext added when missing. Any name that
// would leave the folder (.., an absolute path, a symlink out) is refused
// with path_refused. The folders are made 0700.
func (s *pages) workspaceFile(personality, name, prefix, ext string) (string, error) {
	root := filepath.Join(s.cfg.WorkspaceDir, personalityDir(personality))
	if err := privateDir(root); err != nil {
		return "", abi.Errorf(abi.CodeExecutionFailed, "creating the workspace folder: %v", err)
	}
	if name == "" {
		// A tag after the time: two calls of the personality's sessions in
		// one millisecond wrote one file, and each answer named the other's
		// picture (the inline image and the file then differed).
		name = fmt.Sprintf("%s-%s-%s%s", prefix, time.Now().Format("20060102-150405.000"), randomTag()[:8], ext)
	}
	if !strings.HasSuffix(strings.ToLower(name), ext) {
		name += ext
	}
	if !filepath.IsLocal(name) {
		return "", abi.Errorf(abi.CodePathRefused, "%q leaves the workspace folder: give a plain file name such as %q", name, prefix+ext)
	}
	p := filepath.Join(root, name)
	if err := os.MkdirAll(filepath.Dir(p), workspaceDirMode); err != nil {
		return "", abi.Errorf(abi.CodeExecutionFailed, "creating %s: %v", filepath.Dir(p), err)
	}
	if err := within(root, filepath.Dir(p)); err != nil {
		return "", abi.Errorf(abi.CodePathRefused, "%q leaves the workspace folder through a link: give a plain file name", name)
	}
	if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		return "", abi.Errorf(abi.CodePathRefused, "%q is a link in the workspace folder: choose another name", name)
	}
	return p, nil
}

// uploadFile resolves a path the agent gave for an upload. Only files in
// Config.UploadDir may be uploaded.
func (s *pages) uploadFile(name string) (string, error) {
	if s.cfg.UploadDir == "" {
		return "", abi.Errorf(abi.CodePathRefused, "uploads are off on this host: the operator must set browser.upload_dir and put the files there")
	}
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(s.cfg.UploadDir, p)
	}
	if err := within(s.cfg.UploadDir, p); err != nil {
		return "", abi.Errorf(abi.CodePathRefused, "%q is outside the upload folder: only files in the host's upload folder can be uploaded; name them relative to it", name)
	}
	fi, err := os.Stat(p)
	if err != nil {
		return "", abi.Errorf(abi.CodeNotFound, "%q is not in the upload folder: list what is there or ask the operator to add it", name)
	}
	if !fi.Mode().IsRegular() {
		return "", abi.Errorf(abi.CodeInputInvalid, "%q is not a regular file", name)
	}
	return p, nil
}

// within checks that p, symlinks resolved, lies inside root (also resolved).
// A p that does not exist yet is checked by its lexical form.
func within(root, p string) error {
	r, err := filepath.EvalSymlinks(root)
	if err != nil {
		return err
	}
	q, err := filepath.EvalSymlinks(p)
	if err != nil {
		if !os.IsNotExist(err) {
			return err
		}
		q = filepath.Clean(p)
		r = filepath.Clean(root)
	}
	rel, err := filepath.Rel(r, q)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return fmt.Errorf("%s is outside %s", p, root)
	}
	return nil
}

// randomTag is 24 random hex digits.
func randomTag() string {
	b := make([]byte, 12)
	rand.Read(b)
	return hex.EncodeToString(b)
}
