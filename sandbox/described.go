package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/atomicfile"
)

// Manifests of plugins described before, kept in the compilation cache
// folder by plugin sha256: a host that finds its plugin's there lists its
// tools without compiling or running it, and compiles it on first use.
// The instrumentation version is part of the key, since a version that
// could not be rewritten (fuel.go) would not have been described.

// DescribedDir is the folder, in a cache dir, of the cached manifests.
const DescribedDir = "described"

func describedFile(dir, sha string) string {
	return filepath.Join(dir, DescribedDir, fmt.Sprintf("%s.i%d.json", sha, InstrumentVersion))
}

// cachedManifest returns the cached manifest of the plugin with sha256
// sha, when there is one this host accepts.
func (e *Engine) cachedManifest(sha string) (abi.Manifest, bool) {
	if e.cfg.CacheDir == "" {
		return abi.Manifest{}, false
	}
	return CachedManifest(e.cfg.CacheDir, sha)
}

// CachedManifest is the manifest a host described for the plugin with
// sha256 sha and kept in the cache folder dir, if there is one this build
// accepts: a tool learns what a running host swapped in without loading
// it.
func CachedManifest(dir, sha string) (abi.Manifest, bool) {
	var m abi.Manifest
	b, err := os.ReadFile(describedFile(dir, sha))
	if err != nil || json.Unmarshal(b, &m) != nil || abi.Accept(abi.Version(), m.ABI) != nil {
		return abi.Manifest{}, false
	}
	return m, true
}

// storeManifest keeps what a plugin described (raw), whole or not at all.
func (e *Engine) storeManifest(sha string, raw []byte) {
	if e.cfg.CacheDir == "" {
		return
	}
	dst := describedFile(e.cfg.CacheDir, sha)
	if err := writeAtomic(dst, raw); err != nil {
		e.cfg.Logger.Debug("manifest not cached", "file", dst, "err", err)
	}
}

// writeAtomic writes b to dst by a temporary file and a rename, making
// dst's folder first.
func writeAtomic(dst string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	return WriteAtomically(dst, b)
}

// WriteAtomically writes b to a temporary file beside dst and renames it
// into place, so no reader sees a half-written file (mode 0600).
func WriteAtomically(dst string, b []byte) error {
	return atomicfile.Write(dst, b, 0o600, ".tmp-*")
}

// declared is what a plugin version declares: its manifest and its host
// imports, which decide linking. Read-only after Load, handed out as
// copies.
type declared struct {
	manifest abi.Manifest
	// imports are the host functions it imports, by their ww_ names;
	// importNames the same as the plugin named them.
	imports     []string
	importNames []string
}

// Manifest returns a copy of what the plugin described at load.
func (d *declared) Manifest() abi.Manifest { return d.manifest.Clone() }

// Imports returns a copy of the host functions it imports from
// abi.HostModule.
func (d *declared) Imports() []string { return append([]string(nil), d.imports...) }

// ImportNames returns the same imports named as the plugin imported them
// (wwx_ for Extism's convention), for messages that must name what the
// author wrote; capability.Resolve takes either.
func (d *declared) ImportNames() []string { return append([]string(nil), d.importNames...) }

// HasFeature reports whether the plugin's manifest asks for feature f.
func (d *declared) HasFeature(f string) bool { return d.manifest.HasFeature(f) }
