package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/capability"
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
		return []check{{"load", err}}
	}
	defer os.RemoveAll(dir)
	e, err := sandbox.NewEngine(sandbox.Config{CacheDir: dir, HostFuncs: funcs, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		return []check{{"load", err}}
	}
	defer e.Close(context.Background())
	p, err := e.Load(ctx, strings.TrimSuffix(filepath.Base(file), ".wasm"), wasm, "")
	if err != nil {
		return []check{{"load (exports, -buildmode=c-shared, ABI and protocol versions, imports)", err}}
	}
	defer p.Retire(context.Background())
	out := []check{{"load (exports, -buildmode=c-shared, ABI and protocol versions, imports)", nil}}
	raw, err := p.Call(ctx, abi.OpDescribe, nil)
	if err == nil {
		err = abischema.Validate("manifest.schema.json", raw)
	}
	out = append(out, check{"manifest valid against abi/schema/manifest.schema.json", err})
	m := p.Manifest()
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
	return append(out, check{"imports need only declared capabilities", err})
}

// printConformance writes the report; it returns whether every check passed.
func printConformance(w io.Writer, file string, checks []check) bool {
	ok := true
	for _, c := range checks {
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
