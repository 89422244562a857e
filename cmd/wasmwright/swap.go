package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/spf13/cobra"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/host/pluginset"
	"github.com/wasmwright/wasmwright/host/signature"
	"github.com/wasmwright/wasmwright/sandbox"
)

// swapCandidate is the file `plugins swap` is asked to put in place.
type swapCandidate struct {
	name, file string
	wasm       []byte
	sha256     string // of wasm
	pin        string // --sha256, default sha256
	sig        []byte // FILE.minisig, nil: none
}

// swapLocally validates the candidate in a host of its own, as a server
// would admit it, and installs it: the way when no live server watches the
// plugin's file (none runs, or it does not watch), so nothing else would
// refuse a bad file before a start loads it.
func swapLocally(cmd *cobra.Command, cfg *host.Config, c swapCandidate, wait time.Duration) error {
	// A host of its own only to validate: every service's host functions
	// are offered (the browser starts nothing until used), so any plugin
	// links as the server would link it; it does not watch, and only
	// errors are logged (what other plugins lack is not this swap's
	// business).
	watch := cfg.Host.WatchPlugins
	cfg.Host.WatchPlugins = false
	narrowForSwap(cfg, c.name)
	quiet := slog.New(slog.NewTextHandler(cmd.ErrOrStderr(), &slog.HandlerOptions{Level: slog.LevelError}))
	h, err := host.New(cmd.Context(), cfg, host.Options{Logger: quiet})
	if err != nil {
		return err
	}
	m, err := h.Validate(cmd.Context(), c.name, c.wasm, c.pin, c.sig)
	h.Close(context.Background())
	if err != nil {
		return printError(cmd.OutOrStdout(), err)
	}
	dst := cfg.PluginFile(c.name)
	if err := installAtomically(dst, c.wasm, c.sha256, c.sig); err != nil {
		return printError(cmd.OutOrStdout(), abi.Errorf(abi.CodeExecutionFailed, "installing into %s: %v", filepath.Dir(dst), err))
	}
	out := map[string]any{"plugin": c.name, "version": m.Version, "sha256": c.sha256, "installed": dst, "live": false}
	if !watch {
		out["server"] = "a running server keeps serving the old version until it restarts (its next start loads this one); set [host] watch_plugins = true to have it swap drops in while it serves"
		return printJSON(cmd.OutOrStdout(), out)
	}
	v := awaitPickup(cmd.Context(), dst, c.sha256, wait)
	if v.timedOut {
		v.msg = fmt.Sprintf("no running server picked it up within %s: none serves from %s with watch_plugins on (the next start loads it)", wait, filepath.Dir(dst))
	}
	out["live"], out["server"] = v.live, v.msg
	if err := printJSON(cmd.OutOrStdout(), out); err != nil || v.refused == nil {
		return err
	}
	return &exitError{code: 1}
}

// swapThroughServer hands the candidate to the live server watching the
// plugin's file and reports its verdict. The server runs every check a
// swap runs (pin, signature, ABI, name, self-test, detector chain,
// grants) and keeps its old version on any refusal, so validating here
// first only did that work twice (the command took seconds longer than
// the server's own swap). What the server would only see after the file
// is in its folder is checked first: the plugin is configured, the file
// matches --sha256 and the config's pin, its signature verifies. A refused
// file is set aside by the server; this puts the previous file and its
// sidecars back, so the folder is as it was.
func swapThroughServer(cmd *cobra.Command, cfg *host.Config, c swapCandidate, wait time.Duration) error {
	if err := checkBeforeHandover(cfg, c); err != nil {
		return printError(cmd.OutOrStdout(), err)
	}
	dst := cfg.PluginFile(c.name)
	prev := readInstalled(dst)
	if err := installAtomically(dst, c.wasm, c.sha256, c.sig); err != nil {
		return printError(cmd.OutOrStdout(), abi.Errorf(abi.CodeExecutionFailed, "installing into %s: %v", filepath.Dir(dst), err))
	}
	v := awaitPickup(cmd.Context(), dst, c.sha256, wait)
	if v.timedOut {
		v.msg = fmt.Sprintf("the server watching %s has not judged it within %s: it swaps it in, or refuses it and sets it aside keeping its old version, when it gets to it", filepath.Dir(dst), wait)
	}
	if v.refused != nil {
		if err := prev.restore(dst); err != nil {
			v.refused.Message += fmt.Sprintf("; putting the previous file back failed (%v): the server serves its last good version, which a restart loads from %s", err, filepath.Dir(pluginset.LastGoodFile(dst)))
		}
		return printError(cmd.OutOrStdout(), v.refused)
	}
	out := map[string]any{"plugin": c.name, "sha256": c.sha256, "installed": dst, "live": v.live, "server": v.msg}
	if m, ok := sandbox.CachedManifest(cfg.CacheDir(), c.sha256); ok {
		out["version"] = m.Version
	}
	if err := printJSON(cmd.OutOrStdout(), out); err != nil || v.live {
		return err
	}
	return &exitError{code: 1} // not judged yet: not a success
}

// checkBeforeHandover refuses, before the file reaches the server's
// folder, what the server could only refuse once it is there.
func checkBeforeHandover(cfg *host.Config, c swapCandidate) error {
	if _, ok := cfg.Plugins[c.name]; !ok {
		return abi.Errorf(abi.CodeNotFound, "no plugin %q in the config: swap replaces a configured plugin", c.name)
	}
	if !strings.EqualFold(c.pin, c.sha256) {
		return abi.Errorf(abi.CodeRefused, "%s has sha256 %s, not the --sha256 %s: check the file", c.file, c.sha256, c.pin)
	}
	if p := cfg.Plugins[c.name].SHA256; p != "" && !strings.EqualFold(p, c.sha256) {
		return abi.Errorf(abi.CodeRefused, "plugin %s: the config pins sha256 %s, the new file is %s: update plugins.%s.sha256 to swap it in", c.name, p, c.sha256, c.name)
	}
	return cfg.CheckSignature(c.name, c.wasm, c.sig)
}

// installedFiles is what a plugin's place in the folder held: the file
// and its pin and signature sidecars (nil: absent).
type installedFiles struct{ wasm, pin, sig []byte }

func readInstalled(dst string) installedFiles {
	read := func(p string) []byte {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		return b
	}
	return installedFiles{wasm: read(dst), pin: read(dst + ".sha256"), sig: read(dst + signature.Ext)}
}

// restore puts the files back, sidecars first (a watching host takes the
// file as the version it serves, and does nothing). With no file before,
// there is nothing to put back.
func (f installedFiles) restore(dst string) error {
	if f.wasm == nil {
		return nil
	}
	if err := writeOrRemove(dst+signature.Ext, f.sig); err != nil {
		return err
	}
	if err := writeOrRemove(dst+".sha256", f.pin); err != nil {
		return err
	}
	return pluginset.WriteAtomically(dst, f.wasm)
}

// pickup is what a watching server did with a file: swapped it in (live),
// refused it (with its code), or nothing yet.
type pickup struct {
	live, timedOut bool
	msg            string
	refused        *abi.Error
}

// awaitPickup waits for a server watching the plugins folder to swap in
// the version sum installed at dst (it records it as its last good
// version) or to refuse it (it records why and sets the file aside). It
// wakes on the folders' file events, not on a timer.
func awaitPickup(ctx context.Context, dst, sum string, wait time.Duration) pickup {
	dirs := []string{filepath.Dir(dst), filepath.Dir(pluginset.LastGoodFile(dst)), filepath.Dir(pluginset.RefusedFile(dst))}
	var events chan fsnotify.Event
	var poll <-chan time.Time // only when the folders cannot be watched
	if w, err := fsnotify.NewWatcher(); err == nil {
		defer w.Close()
		for _, d := range dirs {
			os.MkdirAll(d, 0o755) // the server's own folders: made at its first swap
			err = errors.Join(err, w.Add(d))
		}
		events = w.Events
		if err != nil {
			t := time.NewTicker(100 * time.Millisecond)
			defer t.Stop()
			poll = t.C
		}
	}
	deadline := time.After(wait)
	for {
		// Looked at after the watches are set, so no event is missed.
		if v, done := pickupState(dst, sum, false); done {
			return v
		}
		select {
		case <-ctx.Done():
			return pickup{msg: "stopped waiting: " + ctx.Err().Error()}
		case <-deadline:
			if v, done := pickupState(dst, sum, true); done {
				return v
			}
			return pickup{timedOut: true}
		case <-events:
		case <-poll:
		}
	}
}

// pickupState reads what the server did with version sum at dst. A
// refusal counts once the server has moved the file and its pin away
// (its signature goes before its pin: so putting the previous files back
// cannot race the move), or at the
// end of the wait (final) if a move failed.
func pickupState(dst, sum string, final bool) (pickup, bool) {
	if b, err := os.ReadFile(pluginset.LastGoodFile(dst) + ".sha256"); err == nil && strings.HasPrefix(string(b), sum) {
		return pickup{live: true, msg: "a running server swapped it in and serves it"}, true
	}
	var why struct{ SHA256, Reason, Code string }
	b, err := os.ReadFile(pluginset.RefusedFile(dst) + ".json")
	if err != nil || json.Unmarshal(b, &why) != nil || why.SHA256 != sum {
		return pickup{}, false
	}
	if !final {
		if got, err := pluginset.SHA256File(dst); err == nil && got == sum {
			return pickup{}, false
		}
		if pin, err := os.ReadFile(dst + ".sha256"); err == nil && strings.HasPrefix(string(pin), sum) {
			return pickup{}, false
		}
	}
	code := abi.Code(why.Code)
	if code == "" {
		code = abi.CodeRefused
	}
	reason := strings.TrimPrefix(why.Reason, string(code)+": ")
	e := abi.Errorf(code, "a running server refused it and set it aside (%s), keeping the version it serves: %s", pluginset.RefusedFile(dst), reason)
	return pickup{msg: e.Message, refused: e}, true
}
