package pluginset

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/host/signature"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/sandbox"
)

// SwapReport says what a swap did.
type SwapReport struct {
	Plugin     string        `json:"plugin"`
	OldSHA256  string        `json:"old_sha256,omitempty"`
	NewSHA256  string        `json:"new_sha256"`
	NewVersion string        `json:"new_version"`
	Compile    time.Duration `json:"compile_ns"`
	Total      time.Duration `json:"total_ns"`
}

// Swap replaces the serving version of a plugin with wasm, while the host
// serves. The new version must match pin (when pin is empty, the config's
// pin, if any), speak a compatible ABI, keep the plugin's name, pass its
// self-test, and stay within the grants of every personality that loads
// it. It is compiled and warmed before it is published; then one atomic
// store switches new calls to it, and the old version drains its calls in
// flight before it is closed. A refused version changes nothing. sig is
// the new version's signature sidecar, if it has one: a personality with
// require_signatures refuses a version without a valid one.
func (set *Set) Swap(ctx context.Context, name string, wasm []byte, pin string, sig ...[]byte) (*SwapReport, error) {
	t0 := time.Now()
	slot, ok := set.slots[name]
	if !ok {
		return nil, abi.Errorf(abi.CodeNotFound, "no plugin %q in the config: swap replaces a configured plugin", name)
	}
	slot.swapMu.Lock()
	defer slot.swapMu.Unlock()
	p, compile, err := set.validate(ctx, name, wasm, pin, sig...)
	if err != nil {
		sum := sha256.Sum256(wasm)
		set.emit(eventOf("plugin.swap_refused", name, map[string]string{"sha256": hex.EncodeToString(sum[:]), "reason": err.Error()}))
		return nil, err
	}
	v := version{wasm: wasm, pin: pin}
	if len(sig) > 0 {
		v.sig = sig[0]
	}
	rep := set.publish(slot, p, v)
	rep.Compile, rep.Total = compile, time.Since(t0)
	set.emit(eventOf("plugin.swapped", name, rep))
	set.log.Info("plugin swapped", "plugin", name, "version", rep.NewVersion, "sha256", p.SHA256[:12], "took", rep.Total)
	return rep, nil
}

// publish makes p (checked, warm) the slot's serving version, keeps it as
// the plugin's last good version on disk, and retires the old version once
// its calls in flight drain. The caller holds slot.swapMu.
func (set *Set) publish(slot *Slot, p *sandbox.Plugin, v version) *SwapReport {
	old := slot.cur.Swap(p)
	slot.err.Store(nil)
	slot.fileErr.Store(nil)
	slot.fails.Store(0)
	slot.prev, slot.good = slot.good, &v
	set.o.Published()
	set.keepGood(slot, v)
	slot.good = set.lean(p, v) // its file is on disk now
	rep := &SwapReport{Plugin: slot.Name, NewSHA256: p.SHA256, NewVersion: p.Manifest().Version}
	if old != nil {
		rep.OldSHA256 = old.SHA256
		go func() {
			dctx, cancel := context.WithTimeout(context.Background(), 2*set.eng.Config().Timeout)
			defer cancel()
			if err := old.Retire(dctx); err != nil {
				set.log.Warn("old plugin version did not drain", "plugin", slot.Name, "err", err)
			}
		}()
	}
	return rep
}

// Validate runs every check Swap runs on a candidate version, without
// publishing it.
func (set *Set) Validate(ctx context.Context, name string, wasm []byte, pin string, sig ...[]byte) (abi.Manifest, error) {
	if _, ok := set.slots[name]; !ok {
		return abi.Manifest{}, abi.Errorf(abi.CodeNotFound, "no plugin %q in the config: swap replaces a configured plugin", name)
	}
	p, _, err := set.validate(ctx, name, wasm, pin, sig...)
	if err != nil {
		return abi.Manifest{}, err
	}
	m := p.Manifest()
	return m, p.Retire(ctx)
}

// validate loads a candidate version and checks it: pin, ABI, name,
// self-test, grants of every personality using it, hook roles. On success
// the version is compiled and one instance is warm.
func (set *Set) validate(ctx context.Context, name string, wasm []byte, pin string, sig ...[]byte) (*sandbox.Plugin, time.Duration, error) {
	var signature []byte // none given: unsigned
	if len(sig) > 0 {
		signature = sig[0]
	}
	if err := set.o.CheckSignature(name, wasm, signature); err != nil {
		return nil, 0, err
	}
	sum := sha256.Sum256(wasm)
	got := hex.EncodeToString(sum[:])
	if cfgPin := set.o.ConfigPin(name); cfgPin != "" && !strings.EqualFold(cfgPin, got) {
		return nil, 0, abi.Errorf(abi.CodeRefused, "plugin %s: the config pins sha256 %s, the new file is %s: update plugins.%s.sha256 to swap it in", name, cfgPin, got, name)
	}
	if pin == "" {
		return nil, 0, abi.Errorf(abi.CodeRefused, "plugin %s: a new version needs its sha256 pin (a .sha256 file beside it, or --sha256)", name)
	}
	tc := time.Now()
	p, err := set.eng.Load(ctx, name, wasm, pin)
	if err != nil {
		return nil, 0, err
	}
	compile := time.Since(tc)
	refuse := func(e error) (*sandbox.Plugin, time.Duration, error) {
		p.Retire(ctx)
		return nil, 0, e
	}
	if p.Manifest().Name != name {
		return refuse(abi.Errorf(abi.CodeRefused, "the new file calls itself %q, not %q", p.Manifest().Name, name))
	}
	if err := set.selfTest(ctx, p); err != nil {
		return refuse(err)
	}
	// A start that loads this version later need not test it again.
	set.rememberPass(set.verdictFile("selftest", p.SHA256), p.SHA256)
	if err := set.o.Admit(ctx, name, p); err != nil {
		return refuse(err)
	}
	if err := p.Warm(ctx, 1); err != nil {
		return refuse(err)
	}
	return p, compile, nil
}

// Watch swaps in a plugin file that changes in dir, the plugins folder,
// with the pin from its .sha256 sidecar, the config, or SHA256SUMS, until
// Close.
func (set *Set) Watch(dir string) error {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return err
	}
	if err := w.Add(dir); err != nil {
		w.Close()
		return fmt.Errorf("%s: %w", dir, err)
	}
	byFile := map[string]string{}
	var locks []func()
	for name, s := range set.slots {
		byFile[filepath.Clean(s.File)] = name
		locks = append(locks, holdWatchLock(s.File))
	}
	done, exited := make(chan struct{}), make(chan struct{})
	// Stopping waits for a swap under way: the engine it uses closes next.
	set.watchStop = func() {
		close(done)
		w.Close()
		<-exited
		for _, release := range locks {
			release()
		}
	}
	go func() {
		defer close(exited)
		set.watchLoop(w, byFile, done)
	}()
	return nil
}

// SignatureWait bounds how long a watched drop that needs a signature
// waits for a valid one after its file arrived: its .minisig may be
// written after the .wasm (docs/signing.md).
const SignatureWait = 10 * time.Second

// watchLoop turns the folder's events into swaps: a drop is acted on once
// its files have been quiet a moment, or at once when it was renamed into
// place whole (its file matches its pin: `plugins swap` writes it so); one
// waiting for its signature is looked at again when a file of it changes,
// or when its wait is over.
func (set *Set) watchLoop(w *fsnotify.Watcher, byFile map[string]string, done chan struct{}) {
	// due: when to look at a plugin's drop; arrived: when the drop began.
	due, arrived := map[string]time.Time{}, map[string]time.Time{}
	const quiet = 300 * time.Millisecond
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	runDue := func(now time.Time) {
		for name, at := range due {
			if now.Before(at) {
				continue
			}
			delete(due, name)
			if until := set.swapFromFile(name, arrived[name]); !until.IsZero() {
				due[name] = until // waiting for its signature
				continue
			}
			delete(arrived, name)
		}
	}
	for {
		select {
		case <-done:
			return
		case ev, ok := <-w.Events:
			if !ok {
				return
			}
			f := strings.TrimSuffix(strings.TrimSuffix(filepath.Clean(ev.Name), ".sha256"), signature.Ext)
			if name, ok := byFile[f]; ok && ev.Op&(fsnotify.Create|fsnotify.Write|fsnotify.Rename) != 0 {
				due[name] = time.Now().Add(quiet)
				if _, ok := arrived[name]; !ok {
					arrived[name] = time.Now()
				}
				if ev.Op&fsnotify.Create != 0 && f == filepath.Clean(ev.Name) && set.wholeDrop(name, f) {
					due[name] = time.Now()
					runDue(time.Now())
				}
			}
		case err, ok := <-w.Errors:
			if !ok {
				return
			}
			set.log.Warn("plugin folder watch", "err", err)
		case now := <-tick.C:
			runDue(now)
		}
	}
}

// wholeDrop reports whether plugin name's file, just created (renamed
// into place), already matches its pin: it is complete, so waiting for
// the folder to go quiet would only delay the swap. A file still being
// copied, or one whose sidecar has not arrived, does not match.
func (set *Set) wholeDrop(name, file string) bool {
	sum, err := SHA256File(file)
	if err != nil {
		return false
	}
	pin, err := set.pinFor(name, file)
	return err == nil && strings.EqualFold(pin, sum)
}

// swapFromFile swaps in the plugin's file as dropped. When the drop needs
// a signature it does not have yet (none, or an older .minisig than the
// file), it is not judged before SignatureWait from its arrival: it
// returns when to look again (zero: done with this drop).
func (set *Set) swapFromFile(name string, arrived time.Time) (lookAgain time.Time) {
	slot := set.slots[name]
	sum, err := SHA256File(slot.File)
	if errors.Is(err, os.ErrNotExist) {
		return time.Time{} // moved away (set aside by this host, or by hand)
	} else if err != nil {
		set.log.Warn("plugin swap: cannot read the new file", "plugin", name, "err", err)
		return time.Time{}
	}
	if cur := slot.cur.Load(); cur != nil && cur.SHA256 == sum {
		slot.fileErr.Store(nil)
		return time.Time{}
	}
	pin, err := set.pinFor(name, slot.File)
	if err != nil {
		slot.fileErr.Store(abi.AsError(err))
		set.log.Warn("plugin swap refused", "plugin", name, "err", err)
		return time.Time{}
	}
	if pin != sum {
		slot.fileErr.Store(abi.Errorf(abi.CodeRefused, "%s (sha256 %s) does not match its pin %s", slot.File, sum, pin))
		set.log.Warn("plugin swap refused: the file does not match its pin", "plugin", name, "sha256", sum, "pin", pin)
		set.emit(eventOf("plugin.swap_refused", name, map[string]string{"sha256": sum, "reason": "does not match its pin " + pin}))
		return time.Time{}
	}
	wasm, err := os.ReadFile(slot.File)
	if err != nil {
		return time.Time{}
	}
	sig := signature.Read(slot.File)
	if sigErr := set.o.CheckSignature(name, wasm, sig); sigErr != nil {
		if deadline := arrived.Add(SignatureWait); signatureMayFollow(slot.File, sig) && time.Now().Before(deadline) {
			set.log.Info("plugin drop waits for its signature", "plugin", name, "sha256", sum[:12], "until", deadline.Format(time.RFC3339))
			set.emit(eventOf("plugin.awaiting_signature", name, map[string]string{"sha256": sum, "until": deadline.UTC().Format(time.RFC3339)}))
			return deadline
		}
		// Refused like any other check's refusal: set aside with why, so
		// the folder says what happened and a restart serves the last
		// good version. To retry, drop the file again with its signature.
		e := abi.AsError(sigErr)
		slot.fileErr.Store(e)
		set.emit(eventOf("plugin.swap_refused", name, map[string]string{"sha256": sum, "reason": e.Message}))
		if set.setAside(slot, sum, e.Code, e.Message) {
			set.emit(eventOf("plugin.set_aside", name, map[string]string{"sha256": sum, "file": refusedFile(slot)}))
		}
		set.log.Warn("plugin swap refused: no valid signature came with the drop, the old version keeps serving; the file is set aside", "plugin", name, "err", e.Message, "to", refusedFile(slot))
		return time.Time{}
	}
	if _, err := set.Swap(context.Background(), name, wasm, pin, sig); err != nil {
		slot.fileErr.Store(abi.AsError(err))
		// Set aside, so a restart loads the last good version, not this.
		if set.setAside(slot, sum, abi.AsError(err).Code, err.Error()) {
			set.emit(eventOf("plugin.set_aside", name, map[string]string{"sha256": sum, "file": refusedFile(slot)}))
		}
		set.log.Warn("plugin swap refused, the old version keeps serving; the file is set aside", "plugin", name, "err", err, "to", refusedFile(slot))
	}
	return time.Time{}
}

// signatureMayFollow reports whether a drop's signature may still be on
// its way: it has none, or the one beside it is older than the file (the
// previous version's). A signature written after the file that does not
// verify is the drop's own, and final.
func signatureMayFollow(file string, sig []byte) bool {
	if sig == nil {
		return true
	}
	fi, err := os.Stat(file)
	si, serr := os.Stat(file + signature.Ext)
	return err == nil && serr == nil && si.ModTime().Before(fi.ModTime())
}

func mustJSON(v any) json.RawMessage {
	b, _ := json.Marshal(v)
	return b
}

func eventOf(kind, plugin string, data any) hostfuncs.Event {
	return hostfuncs.Event{Kind: kind, Plugin: plugin, Data: mustJSON(data)}
}
