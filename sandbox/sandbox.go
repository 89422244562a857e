// Package sandbox runs plugins: extism go-sdk on wazero, with an on-disk
// compilation cache, one compiled module per plugin version, a pool of
// instances per version, a deadline and a memory limit on every call, one
// memory budget for every instance of the engine (membudget.go), and no
// filesystem or network of the plugin's own.
//
// Two calling conventions are supported. Plugins built with plugin-sdk export
// the ww_* fast path (abi.ExportFastCall): the host writes input straight
// into the plugin's memory and reads output from it, one copy each way.
// Any other Extism plugin is called through Extism's kernel (describe, call,
// hook, self_test), which copies 8 bytes per cross-module call but needs
// nothing of ours.
//
// Lifecycle of a loaded plugin (Plugin): Load validates (wasm structure,
// exports, ABI version, manifest) and compiles; Call borrows an instance
// from the pool (charged to the budget) and returns it, or discards it
// after a trap or a timeout; Retire stops new calls, waits for calls in
// flight, then closes the compiled module. A failed Load leaves nothing
// behind.
package sandbox

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"

	"github.com/wasmwright/wasmwright/abi"
)

// Defaults for Config fields left zero.
const (
	DefaultMemoryPages = 2048 // 128 MiB
	DefaultTimeout     = 60 * time.Second
	DefaultMaxInput    = 32 << 20
	DefaultMaxOutput   = 32 << 20
	DefaultPoolSize    = 4
	// Pooled instances cost their whole linear memory, which never
	// shrinks: a pool is for a plugin called often, not a store of memory.
	// An instance that grew past DefaultPoolMaxMemory (a large input went
	// through it; first-party hooks stay under 30 MiB on the largest corpus
	// pages) is closed after its call instead of pooled, so the pool does
	// not keep the largest input's memory for as long as the host runs; one
	// idle for DefaultPoolIdleTTL is closed too, so a host between bursts
	// gives the memory back. A new instance of compiled code starts in
	// milliseconds.
	DefaultPoolMaxMemory = 48 << 20
	DefaultPoolIdleTTL   = time.Minute
	DefaultMaxCalls      = 16
	// DefaultPoolMaxAge: an instance this old is closed after its call.
	// A linear memory never shrinks, and an instance called back to back
	// is never idle long enough to be trimmed, so without an age the
	// memories of a busy host only rise, by steps, up to
	// DefaultPoolMaxMemory each (the 10-minute soak's +1.4 MB/min).
	DefaultPoolMaxAge = 10 * time.Minute
)

// HostFunc is one host function offered to plugins. Fn gets the request
// bytes and returns the response bytes or an error (an *abi.Error reaches
// the plugin as is; any other error becomes execution_failed). The caller's
// identity travels in ctx, put there by whoever called Plugin.Call.
type HostFunc struct {
	Name string
	Fn   func(ctx context.Context, plugin string, req []byte) ([]byte, error)
	// Request and Response are the Go types whose JSON the function reads
	// and answers (nil where it declares none). They are the ABI's
	// documentation: internal/abischema publishes their schemas, and a
	// test keeps what the host offers equal to what is published.
	Request, Response reflect.Type
}

// Config configures an Engine. Zero values take the defaults above.
type Config struct {
	// CacheDir holds compiled code across processes. Empty: in memory only.
	CacheDir string
	// ShippedDir is a plugins folder whose .cache (Precompile) seeds
	// CacheDir with compiled code it lacks, verified. Empty: none.
	ShippedDir string
	// MemoryPages caps each instance's linear memory and tables together,
	// in 64 KiB pages (membound.go).
	MemoryPages uint32
	// MemoryKey names the setting behind MemoryPages in refusals.
	MemoryKey string
	// Timeout is the deadline of a call whose context has none sooner.
	Timeout time.Duration
	// MaxInput caps the input of one call, in bytes.
	MaxInput int
	// MaxOutput caps what a plugin hands the host in one piece, in bytes:
	// the output of a call and each host-function request.
	MaxOutput int
	// MaxOutputKey names the setting behind MaxOutput in refusals (the
	// host sets it to its config key), so the message says what to raise.
	MaxOutputKey string
	// Stretch, when set, lengthens Timeout for each call as the host sees
	// fit (the host: by how busy the machine is, so a tool call waiting on
	// a starved browser is not stopped for the machine's slowness). A
	// deadline set with WithTimeout is not stretched.
	Stretch func(time.Duration) time.Duration
	// PoolSize caps the idle instances kept per plugin version.
	PoolSize int
	// PoolMaxMemory: an instance whose linear memory grew past it is
	// closed after its call instead of pooled. 0: DefaultPoolMaxMemory.
	PoolMaxMemory uint32
	// PoolIdleTTL: a pooled instance idle this long is closed. 0:
	// DefaultPoolIdleTTL.
	PoolIdleTTL time.Duration
	// PoolMaxAge: an instance made this long ago is closed after its
	// call instead of pooled. 0: DefaultPoolMaxAge.
	PoolMaxAge time.Duration
	// MaxCalls caps the calls one plugin version runs at once (each holds
	// an instance of up to MemoryPages): a flood of calls waits for a
	// free one until its deadline instead of taking the host's memory.
	MaxCalls int
	// MaxCallsKey names the setting behind MaxCalls in refusals.
	MaxCallsKey string
	// MaxPluginMemory is the host-wide budget, in bytes, of every plugin
	// instance of the engine together (membudget.go): a running instance
	// counts its memory limit, an idle one what it holds. A call that
	// would pass it waits until its deadline, then fails resource_limit.
	// 0: DefaultMaxPluginMemory.
	MaxPluginMemory uint64
	// MaxPluginMemoryKey names the setting behind MaxPluginMemory in
	// refusals.
	MaxPluginMemoryKey string
	// ExtismABIOnly ignores the ww_* fast path and calls every plugin
	// through Extism's kernel: for comparison in benchmarks.
	ExtismABIOnly bool
	// NoLoopFuel bounds loops with wazero's close-on-context-done instead
	// of fuel at loop headers (fuel.go), for comparison in benchmarks.
	// Function entries and bulk operations are still charged, so every
	// call stays bounded either way.
	NoLoopFuel bool
	Logger     *slog.Logger
	HostFuncs  []HostFunc
}

// Engine loads plugins. It is safe for concurrent use.
type Engine struct {
	cfg   Config
	cache wazero.CompilationCache
	funcs map[string]HostFunc
	// modules counts the compiled modules alive (Modules).
	modules atomic.Int64
	// compiles counts the compiles of each plugin version, by sha256
	// (Compilations): a host compiles a version at most once per process.
	compiles sync.Map // sha256 → *atomic.Int64
	// budget is the host-wide memory budget of the instances.
	budget *memBudget
}

// orDefault sets *v to d when it is unset: zero (or, for a signed
// number, less).
func orDefault[T cmp.Ordered](v *T, d T) {
	var zero T
	if *v <= zero {
		*v = d
	}
}

// NewEngine prepares an engine; the cache directory is created if needed.
func NewEngine(cfg Config) (*Engine, error) {
	orDefault(&cfg.MemoryPages, DefaultMemoryPages)
	orDefault(&cfg.Timeout, DefaultTimeout)
	orDefault(&cfg.MaxInput, DefaultMaxInput)
	orDefault(&cfg.MaxCalls, DefaultMaxCalls)
	orDefault(&cfg.MaxCallsKey, "MaxCalls")
	orDefault(&cfg.MaxPluginMemory, DefaultMaxPluginMemory)
	orDefault(&cfg.MaxPluginMemoryKey, "sandbox.Config.MaxPluginMemory")
	orDefault(&cfg.MemoryKey, "sandbox.Config.MemoryPages")
	orDefault(&cfg.MaxOutput, DefaultMaxOutput)
	orDefault(&cfg.MaxOutputKey, "sandbox.Config.MaxOutput")
	orDefault(&cfg.PoolSize, DefaultPoolSize)
	orDefault(&cfg.PoolMaxMemory, DefaultPoolMaxMemory)
	orDefault(&cfg.PoolMaxAge, DefaultPoolMaxAge)
	orDefault(&cfg.PoolIdleTTL, DefaultPoolIdleTTL)
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	e := &Engine{cfg: cfg, funcs: map[string]HostFunc{}, budget: newMemBudget(cfg.MaxPluginMemory, cfg.MaxPluginMemoryKey)}
	for _, f := range cfg.HostFuncs {
		if _, dup := e.funcs[f.Name]; dup {
			return nil, fmt.Errorf("sandbox: host function %s given twice", f.Name)
		}
		e.funcs[f.Name] = f
	}
	if cfg.CacheDir != "" {
		if cfg.ShippedDir != "" {
			if n, err := seedCache(cfg.ShippedDir, cfg.CacheDir); err != nil {
				cfg.Logger.Warn("shipped compiled plugins not used", "dir", filepath.Join(cfg.ShippedDir, ShippedCache), "err", err)
			} else if n > 0 {
				cfg.Logger.Debug("compilation cache seeded from the shipped compiled plugins", "files", n)
			}
		}
		c, err := wazero.NewCompilationCacheWithDir(cfg.CacheDir)
		if err != nil {
			return nil, fmt.Errorf("sandbox: compilation cache %s: %w", cfg.CacheDir, err)
		}
		e.cache = c
	} else {
		e.cache = wazero.NewCompilationCache()
	}
	return e, nil
}

// Close releases the compilation cache. Plugins must be retired first.
func (e *Engine) Close(ctx context.Context) error { return e.cache.Close(ctx) }

// Modules reports how many plugin versions hold compiled code now.
func (e *Engine) Modules() int { return int(e.modules.Load()) }

// Compilations reports how many times this engine compiled the plugin
// version with this sha256 (from the compilation cache or not).
func (e *Engine) Compilations(sha256 string) int {
	if n, ok := e.compiles.Load(sha256); ok {
		return int(n.(*atomic.Int64).Load())
	}
	return 0
}

// countCompile counts one compile of the version with this sha256.
func (e *Engine) countCompile(sha256 string) {
	n, _ := e.compiles.LoadOrStore(sha256, new(atomic.Int64))
	n.(*atomic.Int64).Add(1)
}

// Config returns the effective configuration.
func (e *Engine) Config() Config { return e.cfg }

// loadErr is a refused Load: an *abi.Error with the code to report.
func loadErr(code abi.Code, format string, args ...any) error {
	return abi.Errorf(code, format, args...)
}

// Plugin is one compiled plugin version with its pool of instances.
type Plugin struct {
	Name   string
	SHA256 string
	// declared is what it declares (manifest, imports), which decides
	// linking.
	declared
	// Fast reports whether it speaks the ww_* fast path.
	Fast bool
	// shape is what an instance holds besides linear memory, set by
	// compile (membudget.go charges instances by it).
	shape memShape

	eng *Engine
	log *slog.Logger
	// compiled is the compiled code; nil until first use when Load took
	// the manifest from the cache or Release dropped it, with wasm (the
	// plugin's bytes) kept for that compile. compileMu guards the three,
	// forget and closed.
	compileMu  sync.Mutex
	compiled   *extism.CompiledPlugin
	cache      wazero.CompilationCache // compiled's own (cacheFor), or nil
	wasm       []byte
	forget     bool // drop wasm once compiled (ForgetBytes)
	compileErr error
	closed     bool

	mu       sync.Mutex
	idle     []*instance
	trim     *time.Timer // closes instances idle past PoolIdleTTL
	retired  bool
	inflight sync.WaitGroup
	live     atomic.Int64  // instances alive, idle or busy
	calls    chan struct{} // one token per call running (Config.MaxCalls)
}

// Load validates and compiles a plugin. name is what the host calls it (for
// logs and errors); the manifest's own name must match when want is non-empty.
func (e *Engine) Load(ctx context.Context, name string, wasm []byte, wantSHA256 string) (*Plugin, error) {
	sum := sha256.Sum256(wasm)
	hexSum := hex.EncodeToString(sum[:])
	if wantSHA256 != "" && !strings.EqualFold(wantSHA256, hexSum) {
		return nil, loadErr(abi.CodeRefused, "plugin %s: sha256 is %s but the config pins %s: if you rebuilt it on purpose, update the pin (wasmwright plugins verify prints the new one)", name, hexSum, wantSHA256)
	}
	info, err := readModuleInfo(wasm)
	if err != nil {
		return nil, loadErr(abi.CodeInputInvalid, "plugin %s: malformed wasm: %v: rebuild it with GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared", name, err)
	}
	if info.Exports["_start"] && !info.Exports["_initialize"] {
		// A WASI command: its runtime starts only in _start, which runs
		// main and exits, so no export can be called.
		return nil, loadErr(abi.CodeInputInvalid, "plugin %s is a WASI command (it exports _start), not a library: build it with -buildmode=c-shared (GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o %s.wasm .)", name, name)
	}
	if !info.Exports[abi.ExportDescribe] {
		return nil, loadErr(abi.CodeInputInvalid, "plugin %s: missing export %q: a wasmwright plugin must export describe (plugin-sdk does this for you)", name, abi.ExportDescribe)
	}
	fast := info.Exports[abi.ExportFastCall] && !e.cfg.ExtismABIOnly
	if fast {
		for _, x := range []string{abi.ExportFastABI, abi.ExportFastAlloc} {
			if !info.Exports[x] {
				return nil, loadErr(abi.CodeInputInvalid, "plugin %s: exports %s but not %s: rebuild it against plugin-sdk v%d", name, abi.ExportFastCall, x, abi.VersionMajor)
			}
		}
	}
	p := &Plugin{Name: name, SHA256: hexSum, Fast: fast, eng: e, log: e.cfg.Logger.With("plugin", name), calls: make(chan struct{}, e.cfg.MaxCalls)}
	for _, imp := range info.Imports {
		if imp.Module != abi.HostModule {
			continue
		}
		// Imports are recorded by their ww_ name whatever the convention:
		// grants and linking see one function either way.
		canon, ext := abi.CanonicalHostFunc(imp.Name)
		p.imports = append(p.imports, canon)
		p.importNames = append(p.importNames, imp.Name)
		if _, ok := e.funcs[canon]; !ok && (ext || canon != abi.ImportHostTake && canon != abi.ImportLog) {
			return nil, loadErr(abi.CodeRefused, "plugin %s imports %s/%s, which this host does not provide: rebuild it against plugin-sdk v%d, or enable that service in the host", name, abi.HostModule, imp.Name, abi.VersionMajor)
		}
	}

	// A version described before (same sha256) is not compiled now: its
	// manifest is read from the cache, and the code compiled on first use.
	if m, ok := e.cachedManifest(hexSum); ok {
		p.manifest = m
		if err := p.checkManifest(info); err == nil {
			p.wasm = wasm
			return p, nil
		}
		p.manifest = abi.Manifest{}
	}
	if err := p.compile(ctx, wasm); err != nil {
		return nil, err
	}
	p.wasm = wasm
	raw, err := p.describe(ctx, info)
	if err != nil {
		p.dropModule()
		return nil, err
	}
	e.storeManifest(hexSum, raw)
	return p, nil
}

// describe asks the freshly compiled plugin for its manifest and checks it.
func (p *Plugin) describe(ctx context.Context, info *moduleInfo) ([]byte, error) {
	raw, err := p.call(ctx, abi.OpDescribe, nil)
	if err != nil {
		return nil, loadErr(abi.CodePluginFailed, "plugin %s: describe failed: %v", p.Name, err)
	}
	if err := json.Unmarshal(raw, &p.manifest); err != nil {
		return nil, loadErr(abi.CodePluginFailed, "plugin %s: describe returned invalid JSON: %v", p.Name, err)
	}
	if err := abi.Accept(abi.Version(), p.manifest.ABI); err != nil {
		return nil, loadErr(abi.CodeABIMismatch, "plugin %s: %v", p.Name, err)
	}
	return raw, p.checkManifest(info)
}

func (p *Plugin) checkManifest(info *moduleInfo) error {
	m := p.manifest
	if err := abi.AcceptProtocols(abi.Protocols(), m.Protocols); err != nil {
		return loadErr(abi.CodeABIMismatch, "plugin %s: %v", p.Name, err)
	}
	if m.Name == "" {
		return loadErr(abi.CodePluginFailed, "plugin %s: manifest has no name: call sdk.Plugin in init", p.Name)
	}
	if len(m.Tools) > 0 && !p.Fast && !info.Exports[abi.ExportCall] {
		return loadErr(abi.CodeInputInvalid, "plugin %s: provides tools but has no %q export", p.Name, abi.ExportCall)
	}
	if len(m.Hooks) > 0 && !p.Fast && (!info.Exports[abi.ExportHook] || !info.Exports[abi.ExportSelfTest]) {
		return loadErr(abi.CodeInputInvalid, "plugin %s: fills hooks but lacks the %q or %q export", p.Name, abi.ExportHook, abi.ExportSelfTest)
	}
	for _, h := range m.Hooks {
		known := false
		for _, r := range abi.HookRoles() {
			known = known || r == h
		}
		if !known {
			return loadErr(abi.CodeInputInvalid, "plugin %s: unknown hook role %q (known: detect, compact, mask)", p.Name, h)
		}
	}
	seen := map[string]bool{}
	for _, t := range m.Tools {
		if t.Name == "" || seen[t.Name] {
			return loadErr(abi.CodePluginFailed, "plugin %s: tool name %q empty or repeated", p.Name, t.Name)
		}
		seen[t.Name] = true
		if !json.Valid(t.InputSchema) {
			return loadErr(abi.CodePluginFailed, "plugin %s: tool %s has an input schema that is not JSON", p.Name, t.Name)
		}
	}
	return nil
}

// Call runs one operation (abi.OpCall, OpHook, OpSelfTest, OpDescribe) with
// input and returns the output. A plugin-reported failure is an *abi.Error
// with the plugin's code; a trap, timeout or broken output is an *abi.Error
// with plugin_failed, timeout or resource_limit, and the instance is gone.
func (p *Plugin) Call(ctx context.Context, op int32, input []byte) ([]byte, error) {
	p.mu.Lock()
	if p.retired {
		p.mu.Unlock()
		return nil, abi.Errorf(abi.CodeNotAvailable, "plugin %s version %.12s was retired: retry, the new version serves", p.Name, p.SHA256)
	}
	p.inflight.Add(1)
	p.mu.Unlock()
	defer p.inflight.Done()
	return p.call(ctx, op, input)
}

func (p *Plugin) call(ctx context.Context, op int32, input []byte) ([]byte, error) {
	if len(input) > p.eng.cfg.MaxInput {
		return nil, abi.Errorf(abi.CodeResourceLimit, "input of %d bytes exceeds the %d-byte limit for plugin calls: send less", len(input), p.eng.cfg.MaxInput)
	}
	if err := p.acquire(ctx); err != nil {
		return nil, err
	}
	defer func() { <-p.calls }()
	inst, err := p.get(ctx)
	if err != nil {
		return nil, err
	}
	// A host function this call runs may call another plugin (the
	// browser's gate runs the detector chain inside a read): that inner
	// call must not wait for budget this one holds (membudget.go).
	ctx = context.WithValue(ctx, holdsBudget{}, true)
	out, status, err := inst.run(ctx, op, input)
	if err != nil {
		inst.close(ctx)
		return nil, p.classify(ctx, inst, err)
	}
	p.put(ctx, inst)
	if status == abi.StatusOK {
		return out, nil
	}
	if status != abi.StatusError {
		return nil, abi.Errorf(abi.CodePluginFailed, "plugin %s returned status %d, not 0 or 1", p.Name, status)
	}
	var e abi.Error
	if err := json.Unmarshal(out, &e); err != nil || !e.Code.Known() {
		msg := string(out)
		if len(msg) > 200 {
			msg = msg[:200] + "..."
		}
		return nil, abi.Errorf(abi.CodePluginFailed, "plugin %s failed with an unreadable error: %q", p.Name, msg)
	}
	return nil, &e
}

// Retire stops new calls, waits for the calls in flight (or ctx), then frees
// the compiled module. Closing a compiled module under a running call would
// abort it, hence the drain.
func (p *Plugin) Retire(ctx context.Context) error {
	p.mu.Lock()
	p.retired = true
	p.mu.Unlock()
	done := make(chan struct{})
	go func() { p.inflight.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		return fmt.Errorf("sandbox: retiring %s: calls still in flight: %w", p.Name, ctx.Err())
	}
	p.compileMu.Lock()
	defer p.compileMu.Unlock()
	p.closed, p.wasm = true, nil
	p.eng.budget.forget(p)
	return p.dropModule()
}
