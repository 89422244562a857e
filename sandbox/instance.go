package sandbox

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/sys"

	"github.com/wasmwright/wasmwright/abi"
)

// instance is one live copy of a plugin. It serves one call at a time.
type instance struct {
	p     *Plugin
	ext   *extism.Plugin
	mod   api.Module // the plugin's own module, captured at first call
	mem   api.Memory
	alloc api.Function
	call  api.Function
	stack [3]uint64
	// inPtr and inCap locate the plugin's input buffer; ww_alloc is called
	// only when an input does not fit, or to shrink after a large one.
	inPtr, inCap uint32

	pending []byte // a host-call response waiting for ww_host_take
	stderr  stderrBuf
	// ctx is the running call's context (or instantiation's): the plugin's
	// sleeps end when it is done. Set and read on the calling goroutine.
	ctx context.Context
	// quiet drops everything the plugin says (logs, stderr) for the running
	// call (WithQuiet); logged counts the lines it logged in this call.
	quiet  atomic.Bool
	logged atomic.Int64
	// fuel is the module's fuel counter (fuelGlobal); meter counts the
	// running call's fuel against its budget (budget.go).
	fuel  api.MutableGlobal
	meter meter
	// born is when the instance was made: past PoolMaxAge it is closed
	// after its call (put).
	born time.Time
	// idleSince is when the instance went back to the pool (put).
	idleSince time.Time
	// memory is its linear memories (its own and its Extism kernel's),
	// bound together (linearmem.go); charge is what the host-wide budget
	// counts for it (membudget.go), given back when it closes.
	memory *instMemory
	charge uint64
}

func (p *Plugin) newInstance(ctx context.Context) (*instance, error) {
	compiled, err := p.module()
	if err != nil {
		return nil, err
	}
	limit := uint64(p.eng.cfg.MemoryPages)<<16 - min(p.shape.fixed, uint64(p.eng.cfg.MemoryPages)<<16)
	inst := &instance{p: p, meter: meter{ration: tickFuel}, memory: &instMemory{limit: limit}, born: time.Now()}
	// Instantiation runs the module's start function, and the first call
	// runs _initialize: both under the deadline of the call the instance is
	// made for (WithTimeout's, else the engine's), like any call.
	ictx, cancel := context.WithTimeout(context.WithValue(ctx, ctxKey{}, inst), callTimeout(ctx, p.eng.timeout()))
	ictx = experimental.WithMemoryAllocator(ictx, inst.memory)
	defer cancel()
	// extism's host-function wrappers want a plugin in the context even
	// while the start function runs, before there is one: ww_tick must
	// still work there.
	ictx = context.WithValue(ictx, extism.PluginCtxKey("plugin"), (*extism.Plugin)(nil))
	inst.ctx = ictx
	ext, err := compiled.Instance(ictx, extism.PluginInstanceConfig{ModuleConfig: modCfg(inst)})
	if err != nil {
		return nil, p.classify(ictx, inst, fmt.Errorf("instantiating: %w", err))
	}
	inst.ext = ext
	p.live.Add(1)
	p.eng.budget.opened()
	if n := inst.memory.Size(); n > limit {
		// The memories' minimums are granted as instantiation asks them.
		inst.close(ctx)
		return nil, p.outOfMemory()
	}
	lg := p.log
	ext.SetLogger(func(level extism.LogLevel, msg string) {
		if inst.mayLog() {
			lg.Log(context.Background(), extismLevel(level), msg)
		}
	})
	if p.Fast {
		// The first call through extism runs the Go runtime's _initialize,
		// during which the listener captures our module.
		rc, _, err := ext.CallWithContext(ictx, abi.ExportFastABI, nil)
		if err != nil {
			inst.close(ctx)
			return nil, p.classify(ictx, inst, err)
		}
		if v := (abi.ABIVersion{Major: int(rc >> 16), Minor: int(rc & 0xffff)}); abi.Accept(abi.Version(), v) != nil {
			inst.close(ctx)
			return nil, abi.Errorf(abi.CodeABIMismatch, "plugin %s: %v", p.Name, abi.Accept(abi.Version(), v))
		}
		if inst.mod == nil || inst.mod.Memory() == nil {
			inst.close(ctx)
			return nil, abi.Errorf(abi.CodePluginFailed, "plugin %s: could not reach its memory: a fast-path plugin must define one", p.Name)
		}
		inst.bind()
		if inst.alloc == nil || inst.call == nil {
			inst.close(ctx)
			return nil, abi.Errorf(abi.CodeInputInvalid, "plugin %s: %s or %s is not a function: rebuild it against plugin-sdk v%d", p.Name, abi.ExportFastAlloc, abi.ExportFastCall, abi.VersionMajor)
		}
	}
	return inst, nil
}

// live stops the plugin (as ww_tick would) when its call is over: host
// calls check it before doing work the fuel does not count. Plugin code
// runs only inside a call, so ctx is always set there; without one there
// is nothing to stop.
func (inst *instance) live() {
	if ctx := inst.ctx; ctx != nil && ctx.Err() != nil {
		panic(fmt.Errorf("%w: %v", errTicked, ctx.Err()))
	}
}

// nanosleep is the plugin's clock_nanosleep and poll_oneoff timeout: it
// ends with the running call, and then stops the plugin, as ww_tick would.
func (inst *instance) nanosleep(ns int64) {
	inst.live()
	ctx := inst.ctx
	if ns <= 0 || ctx == nil {
		return
	}
	t := time.NewTimer(time.Duration(ns))
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
		panic(fmt.Errorf("%w: %v", errTicked, ctx.Err()))
	}
}

func (inst *instance) bind() {
	inst.mem = inst.mod.Memory()
	inst.alloc = inst.mod.ExportedFunction(abi.ExportFastAlloc)
	inst.call = inst.mod.ExportedFunction(abi.ExportFastCall)
}

func (inst *instance) close(ctx context.Context) {
	if inst.ext != nil {
		inst.ext.Close(ctx)
		inst.ext = nil
		inst.p.live.Add(-1)
		b := inst.p.eng.budget
		b.closed()
		b.give(inst.charge)
		inst.charge = 0
	}
}

var extismExport = map[int32]string{
	abi.OpDescribe: abi.ExportDescribe,
	abi.OpCall:     abi.ExportCall,
	abi.OpHook:     abi.ExportHook,
	abi.OpSelfTest: abi.ExportSelfTest,
}

// run performs one operation under the engine's deadline (or ctx's, if
// sooner). An error means the instance must be discarded.
func (inst *instance) run(ctx context.Context, op int32, input []byte) ([]byte, int32, error) {
	ctx, cancel := context.WithTimeout(ctx, callTimeout(ctx, inst.p.eng.timeout()))
	defer cancel()
	ctx = context.WithValue(ctx, ctxKey{}, inst)
	inst.ctx = ctx
	defer func() { inst.ctx = nil }()
	inst.stderr.Reset()
	inst.quiet.Store(isQuiet(ctx))
	inst.logged.Store(0)
	f := fuelOf(ctx)
	var budget int64
	if f != nil {
		budget = f.Budget
	}
	inst.meter.start(inst.fuelGlobal(), budget)
	defer func() {
		used := inst.meter.stop(inst.fuelGlobal())
		if f != nil {
			f.Used = used
		}
	}()
	inst.memory.refused.Store(false)
	out, status, err := inst.runOp(ctx, op, input)
	if err == nil && ctx.Err() != nil {
		// The answer came after the call's deadline (the stop came late on
		// a busy machine): not trusted, a timeout like any other.
		code := sys.ExitCodeDeadlineExceeded
		if ctx.Err() == context.Canceled {
			code = sys.ExitCodeContextCanceled
		}
		return nil, 0, sys.NewExitError(code)
	}
	if err == nil && inst.memory.refused.Load() {
		// A grow was refused (the kernel's alloc answered 0, say) and the
		// plugin answered anyway: what it answered is not trusted, and
		// the instance is discarded.
		return nil, 0, inst.p.outOfMemory()
	}
	return out, status, err
}

// runOp performs op on the fast path or through Extism's kernel.
func (inst *instance) runOp(ctx context.Context, op int32, input []byte) ([]byte, int32, error) {
	if inst.p.Fast {
		return inst.runFast(ctx, op, input)
	}
	rc, out, err := inst.ext.CallWithContext(ctx, extismExport[op], input)
	if len(out) > inst.p.eng.cfg.MaxOutput {
		// Extism has already copied it out of the kernel's memory (at most
		// the memory limit); refuse it before it goes any further.
		return nil, 0, inst.p.tooLarge("output", len(out))
	}
	if err != nil && rc == uint32(abi.StatusError) && len(out) > 0 {
		// An Extism plugin reporting an error: output holds it.
		return out, abi.StatusError, nil
	}
	if err != nil {
		return nil, 0, err
	}
	return out, int32(rc), nil
}

// tooLarge is the refusal of something a plugin hands the host that is
// over MaxOutput.
func (p *Plugin) tooLarge(what string, n int) error {
	c := p.eng.cfg
	return abi.Errorf(abi.CodeResourceLimit, "plugin %s: its %s of %d bytes is over the %d-byte limit (%s): have the plugin return less, or raise %s", p.Name, what, n, c.MaxOutput, c.MaxOutputKey, c.MaxOutputKey)
}

func (inst *instance) runFast(ctx context.Context, op int32, input []byte) ([]byte, int32, error) {
	// extism's host-function wrappers look for their plugin here.
	ctx = context.WithValue(ctx, extism.PluginCtxKey("plugin"), inst.ext)
	s := inst.stack[:]
	n := uint32(len(input))
	if n > inst.inCap || inst.inCap > 1<<20 && n < inst.inCap/4 {
		s[0] = uint64(n)
		if err := inst.alloc.CallWithStack(ctx, s); err != nil {
			return nil, 0, err
		}
		inst.inPtr, inst.inCap = uint32(s[0]), max(n, 1)
		if inst.inPtr == 0 {
			return nil, 0, abi.Errorf(abi.CodeResourceLimit, "plugin %s could not take a %d-byte input", inst.p.Name, n)
		}
	}
	if n > 0 && !inst.mem.Write(inst.inPtr, input) {
		return nil, 0, abi.Errorf(abi.CodeResourceLimit, "plugin %s could not take a %d-byte input", inst.p.Name, n)
	}
	s[0], s[1], s[2] = uint64(uint32(op)), uint64(inst.inPtr), uint64(n)
	if err := inst.call.CallWithStack(ctx, s); err != nil {
		return nil, 0, err
	}
	optr, olen, status := abi.UnpackOutput(s[0])
	if olen == 0 {
		return nil, status, nil
	}
	if uint64(olen) > uint64(inst.p.eng.cfg.MaxOutput) {
		return nil, 0, inst.p.tooLarge("output", int(olen))
	}
	view, ok := inst.mem.Read(optr, olen)
	if !ok {
		return nil, 0, abi.Errorf(abi.CodePluginFailed, "plugin %s pointed its output (%d bytes at %d) outside its memory (%d bytes); the instance was discarded", inst.p.Name, olen, optr, inst.mem.Size())
	}
	return append([]byte(nil), view...), status, nil
}

// read copies n bytes at ptr out of the plugin's memory, or traps the
// plugin with plugin_failed when they are not all inside it.
func (inst *instance) read(what string, ptr, n uint32) []byte {
	if n == 0 {
		return nil
	}
	mem := inst.mod.Memory()
	view, ok := mem.Read(ptr, n)
	if !ok {
		panic(inst.outside(what, ptr, n))
	}
	return append([]byte(nil), view...)
}

func (inst *instance) outside(what string, ptr, n uint32) error {
	return abi.Errorf(abi.CodePluginFailed, "plugin %s: %s of %d bytes at %d is outside its memory (%d bytes); the instance was discarded", inst.p.Name, what, n, ptr, inst.mod.Memory().Size())
}

func extismLevel(l extism.LogLevel) slog.Level {
	switch l {
	case extism.LogLevelTrace, extism.LogLevelDebug:
		return slog.LevelDebug
	case extism.LogLevelWarn:
		return slog.LevelWarn
	case extism.LogLevelError:
		return slog.LevelError
	}
	return slog.LevelInfo
}

// MaxLogLines caps the lines one call may log; the rest are dropped, with
// one line saying so. A plugin cannot flood the host's log.
const MaxLogLines = 200

// mayLog counts a line the plugin wants logged and says whether it may be.
func (inst *instance) mayLog() bool {
	if inst.quiet.Load() {
		return false
	}
	switch n := inst.logged.Add(1); {
	case n <= MaxLogLines:
		return true
	case n == MaxLogLines+1:
		inst.p.log.Warn("plugin logged more than the per-call limit; further lines of this call are dropped", "limit", MaxLogLines)
	}
	return false
}

type timeoutKey struct{}

// WithTimeout gives the calls run under ctx the deadline d instead of the
// engine's Timeout. Only the host sets it, for a call it knows waits in a
// host function for a long time (a takeover waits for a human); the plugin
// still runs metered and stops at that deadline or when ctx is cancelled.
func WithTimeout(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, timeoutKey{}, d)
}

// timeout is a call's deadline when none was set with WithTimeout:
// Config.Timeout, stretched by Config.Stretch.
func (e *Engine) timeout() time.Duration {
	if e.cfg.Stretch != nil {
		return e.cfg.Stretch(e.cfg.Timeout)
	}
	return e.cfg.Timeout
}

func callTimeout(ctx context.Context, def time.Duration) time.Duration {
	if d, ok := ctx.Value(timeoutKey{}).(time.Duration); ok && d > 0 {
		return d
	}
	return def
}

type quietKey struct{}

// WithQuiet marks a call whose plugin must not be heard: its log lines and
// stderr are dropped, not written to the host's log. The host uses it for
// plugins that see secret values (the masker), which must not talk.
func WithQuiet(ctx context.Context) context.Context {
	return context.WithValue(ctx, quietKey{}, true)
}

func isQuiet(ctx context.Context) bool {
	q, _ := ctx.Value(quietKey{}).(bool)
	return q
}

// ctxKey carries the running instance to host functions.
type ctxKey struct{}

func instanceFrom(ctx context.Context) *instance {
	i, _ := ctx.Value(ctxKey{}).(*instance)
	return i
}

// captureFactory listens to the first function the host calls in a new
// instance (_initialize for Go reactors, describe otherwise) to learn the
// plugin's own module: extism does not expose it, and the fast path and host
// functions need its memory. Other functions get no listener and run at full
// speed.
type captureFactory struct{}

func (captureFactory) NewFunctionListener(def api.FunctionDefinition) experimental.FunctionListener {
	if def.ModuleName() == wasiModule {
		return wasiListener{}
	}
	for _, n := range def.ExportNames() {
		if n == limitExport {
			return limitListener{}
		}
		if n == "_initialize" || n == abi.ExportDescribe || n == abi.ExportFastABI {
			return captureListener{}
		}
	}
	return nil
}

type captureListener struct{}

func (captureListener) Before(ctx context.Context, mod api.Module, _ api.FunctionDefinition, _ []uint64, _ experimental.StackIterator) {
	if inst := instanceFrom(ctx); inst != nil && inst.mod == nil {
		inst.mod = mod
	}
}

func (captureListener) After(context.Context, api.Module, api.FunctionDefinition, []uint64) {}

func (captureListener) Abort(context.Context, api.Module, api.FunctionDefinition, error) {}

const wasiModule = "wasi_snapshot_preview1"

// wasiListener checks the running call before every WASI call: some do
// work that grows with their arguments (poll_oneoff over a million
// subscriptions, random_get of 100 MiB), which the fuel does not count, so
// a loop of them must not outlive the deadline by the millions of
// iterations between two ticks.
type wasiListener struct{}

func (wasiListener) Before(ctx context.Context, _ api.Module, _ api.FunctionDefinition, _ []uint64, _ experimental.StackIterator) {
	if inst := instanceFrom(ctx); inst != nil {
		inst.live()
	}
}

func (wasiListener) After(context.Context, api.Module, api.FunctionDefinition, []uint64) {}

func (wasiListener) Abort(context.Context, api.Module, api.FunctionDefinition, error) {}

// stderrBuf keeps the last few KiB a plugin wrote to stderr or stdout.
type stderrBuf struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

const stderrKeep = 8 << 10

func (s *stderrBuf) Write(b []byte) (int, error) {
	n := len(b)
	if n > stderrKeep {
		b = b[n-stderrKeep:] // a huge write keeps only its tail
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.buf.Len()+len(b) > stderrKeep {
		s.buf.Reset()
	}
	s.buf.Write(b)
	return n, nil
}

func (s *stderrBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}

func (s *stderrBuf) Reset() {
	s.mu.Lock()
	s.buf.Reset()
	s.mu.Unlock()
}

// modCfg gives plugins a real clock and real randomness, and nothing else:
// no filesystem, no environment, no arguments. WASI calls whose work grows
// with their arguments (random_get, fd_write, and sleeps: clock_nanosleep,
// poll_oneoff's timeout, Go's time.Sleep) go through inst, which stops the
// plugin once its call is over: fuel alone counts no work done in the host.
func modCfg(inst *instance) wazero.ModuleConfig {
	return wazero.NewModuleConfig().
		WithSysWalltime().
		WithSysNanotime().
		WithNanosleep(inst.nanosleep).
		WithRandSource(instRand{inst}).
		WithStderr(instOut{inst}).
		WithStdout(instOut{inst})
}

// instRand and instOut check the running call before each read or write.
type instRand struct{ inst *instance }

// Read fills b 1 MiB at a time: one large read would hold the goroutine
// where the Go runtime cannot stop it for GC, and past the deadline.
func (r instRand) Read(b []byte) (int, error) {
	for off := 0; off < len(b); off += 1 << 20 {
		r.inst.live()
		rand.Read(b[off:min(off+1<<20, len(b))])
	}
	return len(b), nil
}

type instOut struct{ inst *instance }

func (w instOut) Write(b []byte) (int, error) {
	w.inst.live()
	return w.inst.stderr.Write(b)
}
