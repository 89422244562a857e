package pluginset

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/host/signature"
	"github.com/wasmwright/wasmwright/sandbox"
)

// The plugin registry.
//
// Lifecycle of a plugin slot, one per [plugins.NAME] table:
//
//	configured → loaded (file read, pin checked, compiled, described; a
//	             hook plugin self-tested on fixtures, selftest.go, unless
//	             an earlier start saw this version pass, selftested.go;
//	             kept as the last good version, lastgood.go)
//	           → linked per personality (capability.Resolve; a refusal is
//	             kept and reported on use, it does not stop the host)
//	           → serving (calls borrow the current version)
//	           → swapped (a new version validated, self-tested and
//	             published atomically; the old one drains, then closes)
//	           → rolled back (rollback_after hook calls in a row failed:
//	             the version the swap replaced is published again)
//	           → closed (Set.Close retires every version).
//
// A slot whose file is missing or refused serves its last good version;
// without one it is "unavailable": the host starts anyway, and each use
// answers with the reason.

// Slot holds the current version of one plugin.
type Slot struct {
	Name string
	File string
	cur  atomic.Pointer[sandbox.Plugin]
	// err is why the slot is unavailable (nil when it serves).
	err atomic.Pointer[abi.Error]
	// swapMu serializes swaps of this slot, and guards good and prev.
	swapMu sync.Mutex
	// good is the serving version's file; prev the one the last swap
	// replaced, which a rollback puts back (nil: none).
	good, prev *version
	// fails counts the serving version's hook calls that failed in a row.
	fails atomic.Int32
	// fileErr is why the plugin's file on disk is not the version that
	// serves (refused at start or at a drop), nil when it is (`plugins
	// list` tells them apart).
	fileErr atomic.Pointer[abi.Error]
}

// Current returns the serving version, or the reason there is none.
func (s *Slot) Current() (*sandbox.Plugin, error) {
	if p := s.cur.Load(); p != nil {
		return p, nil
	}
	if e := s.err.Load(); e != nil {
		return nil, e
	}
	return nil, abi.Errorf(abi.CodeNotAvailable, "plugin %s is not loaded", s.Name)
}

// Serving is the version new calls get, nil when none serves (Current
// says why).
func (s *Slot) Serving() *sandbox.Plugin { return s.cur.Load() }

// readSums parses a SHA256SUMS file (sha256sum format) in dir.
func readSums(dir string) map[string]string {
	f, err := os.Open(filepath.Join(dir, "SHA256SUMS"))
	if err != nil {
		return nil
	}
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 2 {
			sums[strings.TrimPrefix(fields[1], "*")] = strings.ToLower(fields[0])
		}
	}
	return sums
}

// pinFor returns the sha256 a plugin file must have: the config's pin, a
// <file>.sha256 sidecar dropped with a new version, or the plugins
// folder's SHA256SUMS, in that order.
func (set *Set) pinFor(name, file string) (string, error) {
	if p := set.o.ConfigPin(name); p != "" {
		return strings.ToLower(p), nil
	}
	if b, err := os.ReadFile(file + ".sha256"); err == nil {
		if f := strings.Fields(string(b)); len(f) > 0 {
			return strings.ToLower(f[0]), nil
		}
	}
	if s, ok := readSums(filepath.Dir(file))[filepath.Base(file)]; ok {
		return s, nil
	}
	return "", abi.Errorf(abi.CodeRefused, "plugin %s (%s) is not pinned: set plugins.%s.sha256 = \"<sha256sum of the file>\" in the config, or list it in %s",
		name, file, name, filepath.Join(filepath.Dir(file), "SHA256SUMS"))
}

// loadFile reads, verifies, compiles and checks one plugin file.
func (set *Set) loadFile(ctx context.Context, name, file string) (*sandbox.Plugin, version, error) {
	wasm, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		if e := setAsideError(name, file); e != nil {
			return nil, version{}, e
		}
		return nil, version{}, abi.Errorf(abi.CodeNotAvailable, "plugin %s is not installed (%s is missing): run `make plugins`, or fix plugins_dir", name, file)
	} else if err != nil {
		return nil, version{}, abi.Errorf(abi.CodeNotAvailable, "plugin %s: %v", name, err)
	}
	sig := signature.Read(file)
	if err := set.o.CheckSignature(name, wasm, sig); err != nil {
		return nil, version{}, err
	}
	pin, err := set.pinFor(name, file)
	if err != nil {
		return nil, version{}, err
	}
	p, err := set.eng.Load(ctx, name, wasm, pin)
	if err != nil {
		return nil, version{}, err
	}
	if err := set.checkLoaded(ctx, name, file, p); err != nil {
		return nil, version{}, err
	}
	return p, version{wasm: wasm, pin: p.SHA256, sig: sig}, nil
}

// checkLoaded checks a plugin loaded from file at start: its name, and
// for a hook plugin, its self-test on fixtures (once per version and
// checks: selftested.go). It retires a refused one.
func (set *Set) checkLoaded(ctx context.Context, name, file string, p *sandbox.Plugin) error {
	err := error(nil)
	if p.Manifest().Name != name {
		err = abi.Errorf(abi.CodeRefused, "plugin file %s calls itself %q, but the config loads it as %q: rename the [plugins] table or the file", file, p.Manifest().Name, name)
	} else if len(p.Manifest().Hooks) > 0 {
		err = set.selfTestOnce(ctx, p)
	}
	if err != nil {
		p.Retire(ctx)
	}
	return err
}

// loadSlot loads a slot at start: its file, or, when that is missing or
// refused, its last good version (lastgood.go).
func (set *Set) loadSlot(ctx context.Context, s *Slot) {
	p, v, err := set.loadFile(ctx, s.Name, s.File)
	if err == nil {
		set.keepGood(s, v)
	} else if lp, lv, lerr := set.loadLastGood(ctx, s); lerr == nil {
		s.fileErr.Store(abi.AsError(err))
		set.log.Warn("plugin file missing or refused: serving its last good version", "plugin", s.Name, "reason", abi.AsError(err).Message, "sha256", lp.SHA256, "from", lastGoodFile(s))
		p, v, err = lp, lv, nil
	}
	if err != nil {
		e := abi.AsError(err)
		s.err.Store(e)
		set.log.Warn("plugin unavailable", "plugin", s.Name, "code", e.Code, "reason", e.Message)
		return
	}
	// A version its describe or self-test compiled keeps its code, for the
	// call that needs it next: compiling it again would cost the first
	// call the compile the start already paid. A version described and
	// self-tested by an earlier start compiled nothing here
	// (selftested.go): it compiles on first use.
	s.cur.Store(p)
	s.good = set.lean(p, v)
}

// lean is the version a slot keeps of p, serving now (its file v already
// kept on disk): a version that fills a hook role keeps its bytes, for the
// rollback to it a failing successor may need (rollback.go); any other,
// which nothing rolls back to, lets them go, here and in the sandbox once
// compiled (the browser plugin's 4.6 MB, held for nothing in every serving
// process).
func (set *Set) lean(p *sandbox.Plugin, v version) *version {
	if len(p.Manifest().Hooks) == 0 {
		v.wasm = nil
		p.ForgetBytes()
	}
	return &v
}

// SHA256File returns the hex sha256 of a file.
func SHA256File(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:]), nil
}

// PluginInfo describes one slot for `plugins list`.
type PluginInfo struct {
	Name    string `json:"name"`
	File    string `json:"file"`
	SHA256  string `json:"sha256,omitempty"`
	Version string `json:"version,omitempty"`
	ABI     string `json:"abi,omitempty"`
	Fast    bool   `json:"fast_path"`
	// Compiled is false for a plugin whose manifest came from the cache
	// and that no call has used yet: it compiles on first use.
	Compiled bool          `json:"compiled"`
	Tools    []string      `json:"tools,omitempty"`
	Hooks    []string      `json:"hooks,omitempty"`
	Needs    []string      `json:"capabilities,omitempty"`
	Imports  []string      `json:"imports,omitempty"`
	Error    *abi.Error    `json:"error,omitempty"`
	Manifest *abi.Manifest `json:"manifest,omitempty"`
	// Serving says which version serves: "file" (the plugin's file),
	// "last_good" (its file is missing or was refused: FileError says
	// why) or "none" (Error says why).
	Serving   string     `json:"serving"`
	FileError *abi.Error `json:"file_error,omitempty"`
}

// Infos lists every configured plugin and its state.
func (set *Set) Infos() []PluginInfo {
	var out []PluginInfo
	for _, name := range sortedKeys(set.slots) {
		s := set.slots[name]
		info := PluginInfo{Name: name, File: s.File}
		p, err := s.Current()
		info.Serving, info.FileError = "file", s.fileErr.Load()
		if info.FileError != nil {
			info.Serving = "last_good"
		}
		if err != nil {
			info.Error, info.Serving = abi.AsError(err), "none"
		} else {
			m := p.Manifest()
			info.SHA256, info.Version, info.ABI, info.Fast, info.Compiled = p.SHA256, m.Version, m.ABI.String(), p.Fast, p.Compiled()
			for _, t := range m.Tools {
				info.Tools = append(info.Tools, t.Name)
			}
			for _, r := range m.Hooks {
				info.Hooks = append(info.Hooks, string(r))
			}
			info.Needs, info.Imports, info.Manifest = m.Capabilities, p.Imports(), &m
		}
		out = append(out, info)
	}
	return out
}
