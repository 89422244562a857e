package pluginset

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/host/signature"
	"github.com/wasmwright/wasmwright/sandbox"
)

// The last good version of each plugin is kept on disk beside its file:
//
//	plugins/NAME.wasm                      what the operator installed
//	plugins/.last-good/NAME.wasm(.sha256)  the version this host last
//	                                       loaded or swapped in, checked
//	plugins/.rejected/NAME.wasm.refused    a drop the host refused, or a
//	                                       version it rolled back, with
//	                                       NAME.wasm.refused.json (why),
//	                                       its .sha256 and .minisig;
//	                                       the latest one
//	plugins/.rejected/NAME.wasm.refused.log one JSON line per refusal
//	                                       (sha256, reason, time): the
//	                                       history, appended, never
//	                                       overwritten
//
// A restart whose NAME.wasm is missing or refused loads the last good one.

// version is a plugin file's bytes, pin and signature (nil: unsigned).
type version struct {
	wasm []byte
	pin  string
	sig  []byte
}

const (
	lastGoodDir = ".last-good"
	rejectedDir = ".rejected"
	// watchingDir holds a lock file per plugin that watching hosts hold
	// (holdWatchLock).
	watchingDir = ".watching"
)

func watchingDirOf(pluginFile string) string {
	return filepath.Join(filepath.Dir(pluginFile), watchingDir)
}

func watchLockFile(pluginFile string) string {
	return filepath.Join(watchingDirOf(pluginFile), filepath.Base(pluginFile)+".lock")
}

func lastGoodFile(s *Slot) string {
	return filepath.Join(filepath.Dir(s.File), lastGoodDir, filepath.Base(s.File))
}

func refusedFile(s *Slot) string {
	return filepath.Join(filepath.Dir(s.File), rejectedDir, filepath.Base(s.File)+".refused")
}

// LastGoodFile and RefusedFile are where a host keeps a plugin's last good
// version and sets aside a refused one (plugin file → path), for tools
// that watch a swap land.
func LastGoodFile(pluginFile string) string { return lastGoodFile(&Slot{File: pluginFile}) }
func RefusedFile(pluginFile string) string  { return refusedFile(&Slot{File: pluginFile}) }

// keepGood records v as the slot's last good version, unless it already
// is. A plugins folder the host cannot write is not an error: it is said.
func (set *Set) keepGood(s *Slot, v version) {
	dst := lastGoodFile(s)
	if b, err := os.ReadFile(dst + ".sha256"); err == nil && strings.HasPrefix(string(b), v.pin) {
		return
	}
	err := os.MkdirAll(filepath.Dir(dst), 0o755)
	if err == nil {
		err = WriteAtomically(dst, v.wasm)
	}
	if err == nil && v.sig != nil {
		err = WriteAtomically(dst+signature.Ext, v.sig)
	} else if err == nil {
		if err = os.Remove(dst + signature.Ext); errors.Is(err, os.ErrNotExist) {
			err = nil
		}
	}
	if err == nil {
		err = WriteAtomically(dst+".sha256", []byte(v.pin+"  "+filepath.Base(dst)+"\n"))
	}
	if err != nil {
		set.log.Warn("cannot keep the last good version of a plugin: a restart after a refused drop will have none", "plugin", s.Name, "err", err)
	}
}

// loadLastGood loads the slot's last good version, pinned by its sidecar
// and held to the same signature rule as any plugin file.
func (set *Set) loadLastGood(ctx context.Context, s *Slot) (*sandbox.Plugin, version, error) {
	f := lastGoodFile(s)
	wasm, err := os.ReadFile(f)
	if err != nil {
		return nil, version{}, err
	}
	b, err := os.ReadFile(f + ".sha256")
	fields := strings.Fields(string(b))
	if err != nil || len(fields) == 0 {
		return nil, version{}, abi.Errorf(abi.CodeRefused, "%s has no pin beside it", f)
	}
	v := version{wasm: wasm, pin: strings.ToLower(fields[0]), sig: signature.Read(f)}
	if err := set.o.CheckSignature(s.Name, wasm, v.sig); err != nil {
		return nil, version{}, err
	}
	p, err := set.eng.Load(ctx, s.Name, wasm, v.pin)
	if err != nil {
		return nil, version{}, err
	}
	if err := set.checkLoaded(ctx, s.Name, f, p); err != nil {
		return nil, version{}, err
	}
	return p, v, nil
}

// setAside moves the slot's file, if it is still the version sum, and its
// pin sidecar into the rejected folder, with why (reason, and code: the
// abi code of the refusal, when a check refused it). It reports whether it
// moved the file.
func (set *Set) setAside(s *Slot, sum string, code abi.Code, reason string) bool {
	if got, err := SHA256File(s.File); err != nil || got != sum {
		return false
	}
	dst := refusedFile(s)
	rec := map[string]string{"sha256": sum, "reason": reason, "time": time.Now().UTC().Format(time.RFC3339Nano)}
	if code != "" {
		rec["code"] = string(code)
	}
	record := mustJSON(rec)
	err := os.MkdirAll(filepath.Dir(dst), 0o755)
	if err == nil {
		err = appendLine(dst+".log", record)
	}
	if err == nil {
		err = WriteAtomically(dst+".json", record)
	}
	if err == nil {
		err = os.Rename(s.File, dst)
	}
	if err != nil {
		set.log.Warn("cannot set a refused plugin file aside: a restart may load it and fall back to the last good version", "plugin", s.Name, "err", err)
		return false
	}
	// Its signature goes with it (a later drop must bring its own), before
	// its pin: a command waiting on the pin's move (swap, putting the
	// previous file back) then finds the signature moved too, and the
	// previous one it puts back is not moved after it.
	os.Rename(s.File+signature.Ext, dst+signature.Ext)
	os.Rename(s.File+".sha256", dst+".sha256")
	return true
}

// setAsideError says why plugin name's file is missing when this host (or
// another on the folder) set it aside: refused at a drop, or rolled back.
// The record in .rejected/ gives the reason; details.set_aside names the
// file kept there. It is nil when no record says so.
func setAsideError(name, file string) *abi.Error {
	dst := RefusedFile(file)
	raw, err := os.ReadFile(dst + ".json")
	if err != nil {
		return nil
	}
	var rec struct{ SHA256, Reason, Time, Code string }
	if json.Unmarshal(raw, &rec) != nil || rec.Reason == "" {
		return nil
	}
	if _, err := os.Stat(dst); err != nil {
		return nil
	}
	code := abi.Code(rec.Code)
	if !code.Known() {
		code = abi.CodePluginFailed // a rollback: its hook calls failed
	}
	short := rec.SHA256
	if len(short) > 12 {
		short = short[:12]
	}
	return abi.Errorf(code, "plugin %s's file (sha256 %s) was set aside at %s: %s; to replace it, install a new %s", name, short, rec.Time, rec.Reason, filepath.Base(file)).With("set_aside", dst)
}

// appendLine appends b and a newline to the file at path, made if needed.
func appendLine(path string, b []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// WriteAtomically writes b to a temporary file beside dst and renames it
// into place, so no reader sees a half-written file.
func WriteAtomically(dst string, b []byte) error { return sandbox.WriteAtomically(dst, b) }
