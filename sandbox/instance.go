package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	extism "github.com/extism/go-sdk"
	"github.com/tetratelabs/wazero/api"

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
}

func (p *Plugin) newInstance(ctx context.Context) (*instance, error) {
	inst := &instance{p: p}
	ext, err := p.compiled.Instance(ctx, extism.PluginInstanceConfig{ModuleConfig: modCfg(&inst.stderr)})
	if err != nil {
		return nil, abi.Errorf(abi.CodePluginFailed, "plugin %s: instantiating: %v", p.Name, err)
	}
	inst.ext = ext
	lg := p.log
	ext.SetLogger(func(level extism.LogLevel, msg string) {
		lg.Log(context.Background(), extismLevel(level), msg)
	})
	p.live.Add(1)
	if p.Fast {
		// The first call through extism runs the Go runtime's _initialize,
		// during which the listener captures our module.
		ictx, cancel := context.WithTimeout(context.WithValue(ctx, ctxKey{}, inst), p.eng.cfg.Timeout)
		defer cancel()
		rc, _, err := ext.CallWithContext(ictx, abi.ExportFastABI, nil)
		if err != nil {
			inst.close(ctx)
			return nil, p.classify(ictx, inst, err)
		}
		if v := (abi.ABIVersion{Major: int(rc >> 16), Minor: int(rc & 0xffff)}); abi.Accept(abi.Version(), v) != nil {
			inst.close(ctx)
			return nil, abi.Errorf(abi.CodeABIMismatch, "plugin %s: %v", p.Name, abi.Accept(abi.Version(), v))
		}
		if inst.mod == nil {
			inst.close(ctx)
			return nil, abi.Errorf(abi.CodePluginFailed, "plugin %s: could not reach its memory", p.Name)
		}
		inst.bind()
	}
	return inst, nil
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
	ctx, cancel := context.WithTimeout(ctx, inst.p.eng.cfg.Timeout)
	defer cancel()
	ctx = context.WithValue(ctx, ctxKey{}, inst)
	inst.stderr.Reset()
	if inst.p.Fast {
		return inst.runFast(ctx, op, input)
	}
	rc, out, err := inst.ext.CallWithContext(ctx, extismExport[op], input)
	if err != nil && rc == uint32(abi.StatusError) && len(out) > 0 {
		// An Extism plugin reporting an error: output holds it.
		return out, abi.StatusError, nil
	}
	if err != nil {
		return nil, 0, err
	}
	return out, int32(rc), nil
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
	view, ok := inst.mem.Read(optr, olen)
	if !ok {
		return nil, 0, abi.Errorf(abi.CodePluginFailed, "plugin %s pointed its output outside its memory", inst.p.Name)
	}
	return append([]byte(nil), view...), status, nil
}

// hostFunction adapts a HostFunc to the import shape
// (req_ptr i32, req_len i32) -> i64 status<<32|resp_len.
func (p *Plugin) hostFunction(f HostFunc) extism.HostFunction {
	name := f.Name
	hf := extism.NewHostFunctionWithStack(name, func(ctx context.Context, _ *extism.CurrentPlugin, stack []uint64) {
		inst := instanceFrom(ctx)
		if inst == nil || inst.mod == nil {
			panic(fmt.Errorf("host function %s called outside a wasmwright call", name))
		}
		ptr, n := uint32(stack[0]), uint32(stack[1])
		var req []byte
		if n > 0 {
			view, ok := inst.mod.Memory().Read(ptr, n)
			if !ok {
				panic(fmt.Errorf("host function %s: request outside plugin memory", name))
			}
			req = append([]byte(nil), view...)
		}
		resp, err := f.Fn(ctx, p.Name, req)
		status := uint64(0)
		if err != nil {
			status = 1
			resp, _ = json.Marshal(abi.AsError(err))
		}
		inst.pending = resp
		stack[0] = status<<32 | uint64(len(resp))
	}, []api.ValueType{api.ValueTypeI32, api.ValueTypeI32}, []api.ValueType{api.ValueTypeI64})
	return hf
}

func (p *Plugin) takeFunction() extism.HostFunction {
	return extism.NewHostFunctionWithStack(abi.ImportHostTake, func(ctx context.Context, _ *extism.CurrentPlugin, stack []uint64) {
		inst := instanceFrom(ctx)
		if inst == nil || inst.mod == nil {
			panic(fmt.Errorf("%s called outside a wasmwright call", abi.ImportHostTake))
		}
		if len(inst.pending) > 0 && !inst.mod.Memory().Write(uint32(stack[0]), inst.pending) {
			panic(fmt.Errorf("%s: destination outside plugin memory", abi.ImportHostTake))
		}
		inst.pending = nil
	}, []api.ValueType{api.ValueTypeI32}, nil)
}

func (p *Plugin) logFunction() extism.HostFunction {
	return extism.NewHostFunctionWithStack(abi.ImportLog, func(ctx context.Context, _ *extism.CurrentPlugin, stack []uint64) {
		inst := instanceFrom(ctx)
		if inst == nil || inst.mod == nil {
			return
		}
		level := int32(uint32(stack[0]))
		msg, ok := inst.mod.Memory().Read(uint32(stack[1]), uint32(stack[2]))
		if !ok {
			return
		}
		if len(msg) > 4096 {
			msg = msg[:4096]
		}
		p.log.Log(ctx, slogLevel(level), string(msg))
	}, []api.ValueType{api.ValueTypeI32, api.ValueTypeI32, api.ValueTypeI32}, nil)
}

func slogLevel(l int32) slog.Level {
	switch l {
	case abi.LogDebug:
		return slog.LevelDebug
	case abi.LogWarn:
		return slog.LevelWarn
	case abi.LogError:
		return slog.LevelError
	}
	return slog.LevelInfo
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

// errTicked is the trap ww_tick raises when a call's context is done.
var errTicked = errors.New("plugin stopped at its deadline")

// tickFunction is ww_tick, which instrumented loops call every tickFuel
// iterations: it stops the plugin once the call's context is done and
// returns the next ration of fuel. Being a Go call, it also lets the Go
// runtime stop a spinning plugin's goroutine for GC.
func tickFunction() extism.HostFunction {
	return extism.NewHostFunctionWithStack(tickImportName, func(ctx context.Context, _ *extism.CurrentPlugin, stack []uint64) {
		if err := ctx.Err(); err != nil {
			panic(fmt.Errorf("%w: %v", errTicked, err))
		}
		stack[0] = tickFuel
	}, nil, []api.ValueType{api.ValueTypeI32})
}
