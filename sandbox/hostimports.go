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

// linker makes the host functions one plugin version imports: every
// HostFunc of the engine in both calling conventions (ww_ and Extism's
// wwx_), and the kernel's own (take, log, tick). compile links them; they
// run on the calling instance (instanceFrom).
type linker struct{ p *Plugin }

// hostFunction adapts a HostFunc to the import shape
// (req_ptr i32, req_len i32) -> i64 status<<32|resp_len.
func (l linker) hostFunction(f HostFunc) extism.HostFunction {
	p := l.p
	name := f.Name
	hf := extism.NewHostFunctionWithStack(name, func(ctx context.Context, _ *extism.CurrentPlugin, stack []uint64) {
		inst := callingInstance(ctx, name)
		ptr, n := uint32(stack[0]), uint32(stack[1])
		var resp []byte
		var err error
		if uint64(n) > uint64(p.eng.cfg.MaxOutput) {
			// Refused without reading: the plugin gets a coded error.
			err = p.tooLarge(name+" request", int(n))
		} else {
			req := inst.read(name+" request", ptr, n)
			resp, err = f.Fn(ctx, p.Name, req)
		}
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

// extismHostFunction adapts a HostFunc to Extism's own convention, as
// abi.ExtismName: (req u64) -> u64, request and response in blocks of the
// Extism kernel's memory, a failure as {"error": Error}. Any Extism PDK
// calls it as it calls any host function.
func (l linker) extismHostFunction(f HostFunc) extism.HostFunction {
	p := l.p
	name := abi.ExtismName(f.Name)
	return extism.NewHostFunctionWithStack(name, func(ctx context.Context, cp *extism.CurrentPlugin, stack []uint64) {
		inst := instanceFrom(ctx)
		if ext, _ := ctx.Value(extism.PluginCtxKey("plugin")).(*extism.Plugin); inst == nil || ext == nil {
			panic(abi.Errorf(abi.CodePluginFailed, "a plugin called %s outside a call (from a start function?): call host functions only from exports", name))
		}
		inst.live()
		resp, err := l.extismRequest(ctx, cp, name, stack[0], f)
		if err != nil {
			resp, _ = json.Marshal(abi.ExtismError{Error: abi.AsError(err)})
		}
		off, werr := cp.WriteBytes(resp)
		if werr != nil || off == 0 {
			panic(abi.Errorf(abi.CodeResourceLimit, "plugin %s: no room in the Extism kernel's memory for the %d-byte response of %s (memory limit %d MiB)", p.Name, len(resp), name, p.eng.cfg.MemoryPages/16))
		}
		stack[0] = off
	}, []api.ValueType{api.ValueTypeI64}, []api.ValueType{api.ValueTypeI64})
}

// extismRequest reads the request block at off (none at 0) and runs f on it.
func (l linker) extismRequest(ctx context.Context, cp *extism.CurrentPlugin, name string, off uint64, f HostFunc) ([]byte, error) {
	p := l.p
	var req []byte
	if off != 0 {
		n, err := cp.Length(off)
		if err != nil {
			return nil, abi.Errorf(abi.CodePluginFailed, "plugin %s: reading the %s request block: %v", p.Name, name, err)
		}
		if n > uint64(p.eng.cfg.MaxOutput) {
			return nil, p.tooLarge(name+" request", int(n))
		}
		view, ok := cp.Memory().Read(uint32(off), uint32(n))
		if !ok || n == 0 {
			return nil, abi.Errorf(abi.CodeInputInvalid, "%s: the request offset %d is not a block of the Extism kernel's memory: pass the offset of a block you allocated (0 for no request)", name, off)
		}
		req = append([]byte(nil), view...)
	}
	return f.Fn(ctx, p.Name, req)
}

// callingInstance is the instance running a host function, or a trap when
// the plugin calls one where it may not (from its start function, before
// the host has reached its memory).
func callingInstance(ctx context.Context, fn string) *instance {
	inst := instanceFrom(ctx)
	if inst == nil || inst.mod == nil || inst.mod.Memory() == nil {
		name := "?"
		if inst != nil {
			name = inst.p.Name
		}
		panic(abi.Errorf(abi.CodePluginFailed, "plugin %s called %s before its first call (from a start function?) or without a memory: call host functions only from exports", name, fn))
	}
	inst.live()
	return inst
}

// takeFunction is ww_host_take: it copies the pending response of the
// last host function into the plugin's memory.
func takeFunction() extism.HostFunction {
	return extism.NewHostFunctionWithStack(abi.ImportHostTake, func(ctx context.Context, _ *extism.CurrentPlugin, stack []uint64) {
		inst := callingInstance(ctx, abi.ImportHostTake)
		dst := uint32(stack[0])
		if len(inst.pending) > 0 && !inst.mod.Memory().Write(dst, inst.pending) {
			panic(inst.outside(abi.ImportHostTake+" destination", dst, uint32(len(inst.pending))))
		}
		inst.pending = nil
	}, []api.ValueType{api.ValueTypeI32}, nil)
}

// logFunction is ww_log: a line of the plugin's, into the host's log
// (at most MaxLogLines a call).
func (l linker) logFunction() extism.HostFunction {
	p := l.p
	return extism.NewHostFunctionWithStack(abi.ImportLog, func(ctx context.Context, _ *extism.CurrentPlugin, stack []uint64) {
		inst := callingInstance(ctx, abi.ImportLog)
		level := int32(uint32(stack[0]))
		ptr, n := uint32(stack[1]), uint32(stack[2])
		msg, ok := inst.mod.Memory().Read(ptr, n)
		if !ok {
			panic(inst.outside(abi.ImportLog+" line", ptr, n))
		}
		if len(msg) > 4096 {
			msg = msg[:4096]
		}
		if inst.mayLog() {
			p.log.Log(ctx, slogLevel(level), string(msg))
		}
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

// errTicked is the trap ww_tick raises when a call's context is done.
var errTicked = errors.New("plugin stopped at its deadline")

// tickFunction is ww_tick, which instrumented code calls when its fuel runs
// out (fuel.go): it stops the plugin once the call's context is done or its
// work budget spent (budget.go), and returns the next ration of fuel. Being
// a Go call, it also lets the Go runtime stop a spinning plugin's goroutine
// for GC.
func tickFunction() extism.HostFunction {
	return extism.NewHostFunctionWithStack(tickImportName, func(ctx context.Context, _ *extism.CurrentPlugin, stack []uint64) {
		if err := ctx.Err(); err != nil {
			panic(fmt.Errorf("%w: %v", errTicked, err))
		}
		inst := instanceFrom(ctx)
		if inst == nil {
			stack[0] = tickFuel
			return
		}
		next, ok := inst.meter.tick(inst.fuelGlobal())
		if !ok {
			panic(errFuelSpent)
		}
		stack[0] = api.EncodeI32(next)
	}, nil, []api.ValueType{api.ValueTypeI32})
}
