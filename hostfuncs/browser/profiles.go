package browser

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf16"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/hostfuncs/browser/conceal"
)

// The profiles family: the named profiles touch no tab and return no page
// content (gateNone).
func profileFuncs(s *Service) []hostFunc {
	return []hostFunc{{hostfuncs.JSON(abi.HostBrowserProfile, s.profiles.profileCall), gateNone}}
}

// Named profiles: folders of cookies and storage a personality creates,
// lists and deletes (browser_profile), and opens a session on
// (browser_navigate profile). They live in the personality's profile root,
// <profiles_dir>/<personality>.profiles: a personality id has no dot, so
// the root is never another personality's folder or persistent profile,
// and no call names another's root. Each is locked while a session has it
// open, so two sessions never share one.

// profiles is ww_browser_profile: creating, listing and deleting the
// named profiles of a personality.
type profiles struct {
	*env
	// sessions say which profile each open session runs on.
	sessions *sessions
}

type profileKey struct{}

// withProfile asks that a session created under ctx open the named
// profile.
func withProfile(ctx context.Context, name string) context.Context {
	if name == "" {
		return ctx
	}
	return context.WithValue(ctx, profileKey{}, name)
}

func profileFrom(ctx context.Context) string {
	n, _ := ctx.Value(profileKey{}).(string)
	return n
}

// profileRoot is the personality's profile root, after checking name
// (when given) and that profiles are configured.
func (s *env) profileRoot(personality, name string) (string, error) {
	if s.cfg.ProfilesDir == "" {
		return "", abi.Errorf(abi.CodeNotAvailable, "browser profiles are off on this host: the operator must set browser.profiles_dir")
	}
	if !safeName.MatchString(personality) {
		return "", abi.Errorf(abi.CodeRefused, "personality %q cannot have profiles: its id is not [A-Za-z0-9_-]+", personality)
	}
	if name != "" && !safeName.MatchString(name) {
		return "", abi.Errorf(abi.CodeInputInvalid, "profile name %q: use letters, digits, _ and - only", name)
	}
	return filepath.Join(s.cfg.ProfilesDir, personality+".profiles"), nil
}

// profileCall is ww_browser_profile.
func (s *profiles) profileCall(ctx context.Context, c *hostfuncs.Caller, req abi.BrowserProfileRequest) (abi.BrowserProfileResponse, error) {
	var out abi.BrowserProfileResponse
	if req.Action != "list" && req.Name == "" {
		return out, abi.Errorf(abi.CodeInputInvalid, "action %q needs a profile name", req.Action)
	}
	root, err := s.profileRoot(c.Personality(), req.Name)
	if err != nil {
		return out, err
	}
	dir := filepath.Join(root, req.Name)
	switch req.Action {
	case "list":
	case "create":
		if err := privateDir(dir); err != nil {
			return out, abi.Errorf(abi.CodeExecutionFailed, "creating profile %q: %v", req.Name, err)
		}
	case "delete":
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			return out, abi.Errorf(abi.CodeNotFound, "there is no browser profile %q: list them with action list", req.Name)
		}
		lock, err := lockProfile(root, req.Name)
		if err != nil {
			return out, abi.Errorf(abi.CodeRefused, "browser profile %q is open in a session (%v): close it (browser_close) before deleting the profile", req.Name, err)
		}
		err = os.RemoveAll(dir)
		os.Remove(filepath.Join(root, req.Name+".lock"))
		unlockProfile(lock)
		if err != nil {
			return out, abi.Errorf(abi.CodeExecutionFailed, "deleting profile %q: %v", req.Name, err)
		}
	default:
		return out, abi.Errorf(abi.CodeInputInvalid, "action %q: use create, list or delete", req.Action)
	}
	out.Profiles = s.listProfiles(c.Personality(), root)
	return out, nil
}

// listProfiles lists the profiles in root, with the session using each.
func (s *profiles) listProfiles(personality, root string) []abi.BrowserProfileInfo {
	inUse := s.sessions.namedInUse(personality)
	out := []abi.BrowserProfileInfo{}
	entries, _ := os.ReadDir(root)
	for _, e := range entries {
		if e.IsDir() && safeName.MatchString(e.Name()) {
			out = append(out, abi.BrowserProfileInfo{Name: e.Name(), InUse: inUse[e.Name()]})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// A persistent profile outlives its session, and Chromium keeps in it
// every URL the session visited (History, Sessions, Cache, Favicons...)
// and what it typed into plain text fields (Web Data). A GET form puts
// the values of its fields, a password among them, into the URL. Chromium
// offers no way to keep those out while it runs (CDP can clear the cache,
// not the history), so when the session has closed, its browser gone and
// the profile still locked, every file of the profile is read for the
// session's secret values in the forms a browser stores them in
// (profileForms), and each file holding one is removed: a history, cache
// or session file is rebuilt empty by Chromium, a SQLite database with
// its journals. Removing whole files is coarse, but it holds whatever the
// format (SQLite pages, cache entries, the session log), where editing
// them in place would leave indexes, checksums or free pages holding the
// value. What the profile is kept for, its cookies and site storage, is
// lost only when they themselves held a secret.

// minScrubLen is the shortest form searched for: a value of one to three
// bytes turns up by chance in the binary files of any profile (a cookie
// database, a cache entry), and would cost the profile every file.
const minScrubLen = 4

// scrubChunk is how much of a file is read at once.
const scrubChunk = 1 << 20

// scrubProfile removes from dir every file holding one of values in any
// of its stored forms, with a SQLite database's journals, and returns the
// removed files (relative to dir).
func scrubProfile(dir string, values []string) ([]string, error) {
	forms := profileForms(values)
	if len(forms) == 0 {
		return nil, nil
	}
	longest := 0
	for _, f := range forms {
		longest = max(longest, len(f))
	}
	var hits []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return err
		}
		if !d.Type().IsRegular() {
			return nil
		}
		found, err := fileHolds(path, forms, longest)
		if err != nil {
			return err
		}
		if found {
			hits = append(hits, path)
		}
		return nil
	})
	var removed []string
	var errs []error
	for _, h := range hits {
		db := h
		for _, side := range sqliteSidecars {
			db = strings.TrimSuffix(db, side)
		}
		for _, p := range append([]string{h, db}, sidecarsOf(db)...) {
			if e := os.Remove(p); e == nil {
				rel, _ := filepath.Rel(dir, p)
				removed = append(removed, rel)
			} else if !errors.Is(e, fs.ErrNotExist) {
				errs = append(errs, e)
			}
		}
	}
	sort.Strings(removed)
	return removed, errors.Join(append(errs, err)...)
}

// sqliteSidecars are the files SQLite keeps beside a database: a journal
// or log that holds a value means the database may too, and a database
// removed without them could be rebuilt from them.
var sqliteSidecars = []string{"-journal", "-wal", "-shm"}

func sidecarsOf(db string) []string {
	out := make([]string, len(sqliteSidecars))
	for i, s := range sqliteSidecars {
		out[i] = db + s
	}
	return out
}

// fileHolds reports whether the file at path contains one of forms,
// reading it a chunk at a time (overlapping by the longest form).
func fileHolds(path string, forms [][]byte, longest int) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	defer f.Close()
	buf := make([]byte, 0, scrubChunk+longest)
	for {
		n, err := io.ReadFull(f, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		for _, form := range forms {
			if bytes.Contains(buf, form) {
				return true, nil
			}
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return false, nil
		}
		if err != nil {
			return false, err
		}
		keep := min(longest-1, len(buf))
		buf = append(buf[:0], buf[len(buf)-keep:]...)
	}
}

// profileForms are the byte forms values take in a profile's files: as
// typed (and in the legacy charsets and misdecodings a page may show them
// in: conceal.VisibleForms); percent-encoded as a form submits them (spaces as +,
// the WHATWG set left as is) and as a URL path or query holds them, in
// upper- and lower-case hex; and in UTF-16 (page titles in the session
// files).
func profileForms(values []string) [][]byte {
	seen := map[string]bool{}
	var out [][]byte
	add := func(f string) {
		if len(f) >= minScrubLen && !seen[f] {
			seen[f] = true
			out = append(out, []byte(f))
		}
	}
	for _, v := range values {
		var percent []string
		for _, f := range conceal.VisibleForms(v) {
			add(f)
			percent = append(percent, f)
		}
		percent = append(percent, formEncode(v), url.PathEscape(v))
		for _, f := range percent {
			add(f)
			if strings.Contains(f, "%") {
				add(lowerHex(f))
			}
		}
		u := utf16.Encode([]rune(v))
		le := make([]byte, 2*len(u))
		for i, c := range u {
			le[2*i], le[2*i+1] = byte(c), byte(c>>8)
		}
		add(string(le))
	}
	return out
}

// formEncode is the application/x-www-form-urlencoded form of v (the
// WHATWG URL standard): what a form submission puts in the URL.
func formEncode(v string) string {
	var b strings.Builder
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case c == ' ':
			b.WriteByte('+')
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '*', c == '-', c == '.', c == '_':
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// lowerHex lowers the hex digits of every %XX escape in s.
func lowerHex(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			for j := i + 1; j <= i+2; j++ {
				if b[j] >= 'A' && b[j] <= 'F' {
					b[j] += 'a' - 'A'
				}
			}
			i += 2
		}
	}
	return string(b)
}
