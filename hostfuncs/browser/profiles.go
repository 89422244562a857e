package browser

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
)

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
