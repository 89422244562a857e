package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/capability"
	"github.com/wasmwright/wasmwright/host"
	"github.com/wasmwright/wasmwright/host/pluginset"
	"github.com/wasmwright/wasmwright/internal/abischema"
	"github.com/wasmwright/wasmwright/sandbox"
)

// check is one line of a conformance report.
type check struct {
	Name string
	Err  error
}

// conformance runs the checks an author runs before shipping a plugin
// file, with no config and no browser: it loads (exports present, built
// with -buildmode=c-shared, an ABI and protocol versions this host
// accepts, imports it provides), its manifest is valid against
// abi/schema/manifest.schema.json, its capabilities are known, and its
// imports need no capability it does not declare. After a failed load the
// other checks have nothing to look at and are not listed.
func conformance(ctx context.Context, file string) []check {
	wasm, err := os.ReadFile(file)
	if err != nil {
		return []check{{"read", abi.Errorf(abi.CodeInputInvalid, "reading %s: %v", file, err)}}
	}
	e, done, err := offlineEngine()
	if err != nil {
		return []check{{"load", err}}
	}
	defer done()
	load := "load (exports, ABI and protocol versions, imports)"
	if builtByGo(wasm) {
		// Only Go needs a flag to build a library, and forgets it most.
		load = "load (exports, -buildmode=c-shared, ABI and protocol versions, imports)"
	}
	p, err := e.Load(ctx, strings.TrimSuffix(filepath.Base(file), ".wasm"), wasm, "")
	if err != nil {
		return []check{{load, err}}
	}
	defer p.Retire(context.Background())
	out := []check{{load, nil}}
	raw, err := p.Call(ctx, abi.OpDescribe, nil)
	if err == nil {
		err = abischema.Validate("manifest.schema.json", raw)
	}
	out = append(out, check{"manifest valid against abi/schema/manifest.schema.json", err})
	m := p.Manifest()
	if base := strings.TrimSuffix(filepath.Base(file), ".wasm"); m.Name != "" && m.Name != base {
		// A host loads it only under its manifest's name.
		out = append(out, check{fmt.Sprintf("note its manifest names it %q: install it as %s.wasm, configure [plugins.%s] and use %q in personalities", m.Name, m.Name, m.Name, m.Name), errNote})
	}
	_, err = capability.Parse(m.Capabilities)
	for _, t := range m.Tools {
		if _, terr := capability.Parse(t.Capabilities); terr != nil && err == nil {
			err = fmt.Errorf("tool %s: %w", t.Name, terr)
		}
	}
	out = append(out, check{"declared capabilities known", err})
	all, _ := capability.Parse(capability.Known())
	if _, err = capability.Resolve(m, p.ImportNames(), "any", all); err != nil {
		err = fmt.Errorf("%v", err)
	}
	out = append(out, check{"imports need only declared capabilities", err})
	return append(out, selfTestChecks(ctx, p)...)
}

// selfTestChecks run the self-test a host runs before a plugin serves (its
// self_test export, then its real hook on the host's fixtures and its own
// cases, under the default hook limits): a hook plugin that panics, loops
// or answers wrong fails verify as it would fail a swap. A tool plugin's
// self-test is listed only when it fails. For a detector, whether it
// catches the host's walls alone is a note: in a chain, another member
// may (docs/plugin-lifecycle.md, "Detector chains").
func selfTestChecks(ctx context.Context, p *sandbox.Plugin) []check {
	lim := pluginset.HookLimits{FuelPerKB: host.DefaultHookFuelPerKB, Timeout: host.DefaultHookTimeout}
	err := pluginset.SelfTest(ctx, lim, p)
	if err == nil && len(p.Manifest().Hooks) == 0 {
		return nil
	}
	out := []check{{"self-test (self_test export, the real hook on the host's fixtures and the plugin's own cases)", err}}
	if err == nil && pluginset.HasRole(p.Manifest(), abi.HookDetect) {
		if cerr := pluginset.CheckChain(ctx, lim, []*sandbox.Plugin{p}); cerr != nil {
			out = append(out, check{"note alone it lets the host's wall through; list it after a detector that catches it: " + abi.AsError(cerr).Message, errNote})
		} else {
			out = append(out, check{"detector alone catches the host's walls", nil})
		}
	}
	return out
}

// errNote marks a check that is said, not failed.
var errNote = errors.New("note")

// builtByGo reports whether a module was built by the Go toolchain, which
// writes a "go:buildid" custom section (wasm custom sections: id 0, then a
// name); nothing else needs -buildmode=c-shared.
func builtByGo(wasm []byte) bool {
	if len(wasm) < 8 {
		return false
	}
	b := wasm[8:]
	for len(b) > 0 {
		id := b[0]
		size, n := binary.Uvarint(b[1:])
		if n <= 0 || uint64(len(b)-1-n) < size {
			return false
		}
		body := b[1+n : 1+n+int(size)]
		if id == 0 {
			nl, m := binary.Uvarint(body)
			if m > 0 && uint64(len(body)-m) >= nl && string(body[m:m+int(nl)]) == "go:buildid" {
				return true
			}
		}
		b = b[1+n+int(size):]
	}
	return false
}

// offlineEngine is a sandbox that links any plugin and runs none of the
// host's services: every host function answers not_available. done closes
// it and removes its compilation cache.
func offlineEngine() (e *sandbox.Engine, done func(), err error) {
	var funcs []sandbox.HostFunc
	for _, hf := range capability.HostFuncs() {
		if hf[0] == abi.ImportHostTake || hf[0] == abi.ImportLog {
			continue
		}
		funcs = append(funcs, sandbox.HostFunc{Name: hf[0], Fn: func(context.Context, string, []byte) ([]byte, error) {
			return nil, abi.Errorf(abi.CodeNotAvailable, "a conformance check runs no host functions")
		}})
	}
	dir, err := os.MkdirTemp("", "ww-verify-")
	if err != nil {
		return nil, nil, err
	}
	e, err = sandbox.NewEngine(sandbox.Config{CacheDir: dir, HostFuncs: funcs, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, err
	}
	return e, func() { e.Close(context.Background()); os.RemoveAll(dir) }, nil
}

// describedName loads wasm offline and returns the name its manifest
// gives itself.
func describedName(ctx context.Context, wasm []byte, as string) (string, error) {
	e, done, err := offlineEngine()
	if err != nil {
		return "", err
	}
	defer done()
	p, err := e.Load(ctx, as, wasm, "")
	if err != nil {
		return "", err
	}
	defer p.Retire(context.Background())
	return p.Manifest().Name, nil
}

// printConformance writes the report; it returns whether every check passed.
func printConformance(w io.Writer, file string, checks []check) bool {
	ok := true
	for _, c := range checks {
		if c.Err == errNote {
			fmt.Fprintln(w, c.Name)
			continue
		}
		if c.Err != nil {
			ok = false
			fmt.Fprintf(w, "FAIL %s: %s\n", c.Name, oneLine(c.Err))
			continue
		}
		fmt.Fprintf(w, "ok   %s\n", c.Name)
	}
	if ok {
		fmt.Fprintf(w, "ok   %s conforms to ABI %s\n", file, abi.Version())
	}
	return ok
}

func oneLine(err error) string {
	if e, ok := err.(*abi.Error); ok {
		b, _ := json.Marshal(e)
		return string(b)
	}
	return err.Error()
}
