package sandbox

import (
	"context"
	"errors"
	"time"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/spans"
)

// Compiling a plugin version: its code instrumented (fuel.go, membound.go),
// linked with the host functions (hostimports.go) and compiled, at Load
// or on first use; dropped again by Release or Retire.

// compile instruments and compiles the plugin with its host functions.
func (p *Plugin) compile(ctx context.Context, wasm []byte) error {
	e := p.eng
	e.countCompile(p.SHA256)
	// Deadlines: every module is rewritten to charge fuel (fuel.go); one
	// that cannot be is refused, since nothing else would bound it.
	// Memory: tables and growth count against the memory limit (membound.go).
	bounded, shape, err := boundMemoryShape(wasm, uint64(e.cfg.MemoryPages)<<16)
	if err != nil {
		return p.boundErr(err)
	}
	p.shape = shape
	code, err := instrument(bounded, fuelOptions{noLoops: e.cfg.NoLoopFuel})
	if err != nil {
		return loadErr(abi.CodeRefused, "plugin %s cannot be run under a deadline: %v: build it without that feature (wasmwright runs WebAssembly 2.0 without threads or multiple memories)", p.Name, err)
	}
	funcs := make([]extism.HostFunction, 0, 2*len(e.funcs)+3)
	l := linker{p}
	for _, f := range e.funcs {
		funcs = append(funcs, l.hostFunction(f), l.extismHostFunction(f))
	}
	funcs = append(funcs, takeFunction(), l.logFunction(), tickFunction())
	cache, err := e.cacheFor()
	if err != nil {
		return loadErr(abi.CodeNotAvailable, "plugin %s: compilation cache: %v", p.Name, err)
	}
	rc := wazero.NewRuntimeConfig().
		WithCompilationCache(cache).
		WithMemoryLimitPages(e.cfg.MemoryPages).
		WithCloseOnContextDone(e.cfg.NoLoopFuel)
	timeout := uint64(0) // extism would turn close-on-context-done on
	if e.cfg.NoLoopFuel {
		timeout = uint64(e.cfg.Timeout / time.Millisecond)
	}
	manifest := extism.Manifest{
		Wasm: []extism.Wasm{extism.WasmData{Data: code, Name: "main"}},
		// extism's own http_request is closed: no host is ever allowed.
		AllowedHosts: nil,
		AllowedPaths: nil,
		Memory:       &extism.ManifestMemory{MaxPages: e.cfg.MemoryPages, MaxVarBytes: 0, MaxHttpResponseBytes: 0},
		Timeout:      timeout,
	}
	cctx := experimental.WithFunctionListenerFactory(ctx, captureFactory{})
	compiled, err := extism.NewCompiledPlugin(cctx, manifest, extism.PluginConfig{
		RuntimeConfig: rc,
		EnableWasi:    true,
	}, funcs)
	if err != nil {
		if cache != e.cache {
			cache.Close(ctx)
		}
		return loadErr(abi.CodeInputInvalid, "plugin %s: does not compile or link: %v", p.Name, err)
	}
	p.compiled = compiled
	dropBodies(compiled) // bodies.go: compiled, they are not read again
	if cache != e.cache {
		p.cache = cache
	}
	e.modules.Add(1)
	return nil
}

// dropModule closes the idle instances and the compiled code (callers
// make sure no call runs, and hold compileMu unless p is not shared yet).
func (p *Plugin) dropModule() error {
	p.closeIdle()
	if p.compiled == nil {
		return nil
	}
	err := p.compiled.Close(context.Background())
	if p.cache != nil {
		// Its engine holds the compiled code: closing it lets the code go.
		err = errors.Join(err, p.cache.Close(context.Background()))
	}
	p.compiled, p.cache = nil, nil
	p.eng.modules.Add(-1)
	return err
}

// cacheFor returns the compilation cache a compile uses. With a cache
// folder each compile gets its own, over the same folder: wazero keeps the
// compiled code of every module compiled through one cache in memory until
// that cache closes, so a cache shared by every version would hold a
// retired or released version's code for the engine's lifetime. In memory
// only, the engine's one cache is shared (it is all there is to reuse).
func (e *Engine) cacheFor() (wazero.CompilationCache, error) {
	if e.cfg.CacheDir == "" {
		return e.cache, nil
	}
	return wazero.NewCompilationCacheWithDir(e.cfg.CacheDir)
}

// Release frees the compiled code and the instances of a version no call
// can reach yet (the host's start-up self-test ran it, nothing serves it
// yet): it compiles again on first use, from the compilation cache. A
// version with an instance out on a call, or whose bytes it let go
// (ForgetBytes), keeps everything.
func (p *Plugin) Release() error {
	p.compileMu.Lock()
	defer p.compileMu.Unlock()
	p.mu.Lock()
	busy := p.retired || p.live.Load() != int64(len(p.idle))
	p.mu.Unlock()
	if busy || p.wasm == nil {
		return nil
	}
	return p.dropModule()
}

// module returns the compiled plugin, compiling it on first use when Load
// took its manifest from the cache. Concurrent first calls compile once.
func (p *Plugin) module() (*extism.CompiledPlugin, error) {
	p.compileMu.Lock()
	defer p.compileMu.Unlock()
	switch {
	case p.compiled != nil:
		return p.compiled, nil
	case p.closed:
		return nil, abi.Errorf(abi.CodeNotAvailable, "plugin %s version %.12s was retired: retry, the new version serves", p.Name, p.SHA256)
	case p.compileErr != nil:
		return nil, p.compileErr
	}
	t0 := time.Now()
	defer spans.Start("s.compile " + p.Name)()
	// Not the calling context: other calls wait on this compile too.
	if err := p.compile(context.Background(), p.wasm); err != nil {
		p.compileErr = err
		return nil, err
	}
	if p.forget {
		p.wasm = nil
	}
	p.log.Debug("compiled on first use", "took", time.Since(t0).Round(time.Millisecond))
	return p.compiled, nil
}

// ForgetBytes lets go of the plugin's bytes once its code is compiled
// (now, or at first use): a host that will not compile this version again
// need not hold its file in memory beside its compiled code (the browser
// plugin's 4.6 MB, in every serving process). The version keeps its code
// until it is retired: Release then keeps it too, having nothing to
// compile it again from.
func (p *Plugin) ForgetBytes() {
	p.compileMu.Lock()
	defer p.compileMu.Unlock()
	p.forget = true
	if p.compiled != nil {
		p.wasm = nil
	}
}

// Compiled reports whether the plugin's code is compiled (Load compiles
// only a version whose manifest the cache does not hold).
func (p *Plugin) Compiled() bool {
	p.compileMu.Lock()
	defer p.compileMu.Unlock()
	return p.compiled != nil
}

// Compile compiles the plugin now if it is not yet (module).
func (p *Plugin) Compile() error {
	_, err := p.module()
	return err
}
