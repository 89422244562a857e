package sandbox

import (
	"context"
	"fmt"

	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"

	"github.com/wasmwright/wasmwright/abi"
)

// The run-time side of the memory bound (membound.go): code rewritten so
// that a table.grow or memory.grow past memory_mb is refused, and the
// listener that fails the call with resource_limit when one is.

// growCheck inserts the budget checks before table.grow and memory.grow.
type growCheck struct {
	budget uint64
	tables uint32 // tables in the index space (imported and defined)
	memory bool   // whether memory 0 exists
	limit  uint32 // index of the appended limit function
	grows  bool   // whether a table.grow was seen (the function is needed)
}

func (g *growCheck) rewriteCode(b []byte, types, params []uint32) ([]byte, error) {
	var f []byte // one function's rewritten body, its buffer reused
	return rewriteFunctions(b, types, params, len(b)+len(b)/8, func(r *reader, nParams uint32, out []byte) ([]byte, error) {
		var err error
		if f, err = g.rewriteBody(r, nParams, f[:0]); err != nil {
			return nil, err
		}
		out = appendU32(out, uint32(len(f)))
		return append(out, f...), nil
	})
}

// rewriteBody appends to out one function's body (locals and
// instructions) with a check before each grow; the delta is kept in one
// added i32 local.
func (g *growCheck) rewriteBody(r *reader, nParams uint32, out []byte) ([]byte, error) {
	nDecl := r.u32()
	declStart := r.p
	total := uint64(nParams)
	for j := uint32(0); j < nDecl && r.err == nil; j++ {
		total += uint64(r.u32())
		r.byte()
	}
	if r.err != nil {
		return nil, r.err
	}
	if total+1 > maxLocals { // with the local added, as the fuel rewriter counts
		return nil, fmt.Errorf("%w: %d locals in one function (at most %d)", errUnsupported, total, maxLocals-1)
	}
	decls := r.b[declStart:r.p]
	d := uint32(total) // the added local
	// The instructions are copied after a placeholder for the local
	// declarations, which grow by one if a grow is seen.
	base := len(out)
	out = appendU32(out, nDecl+1)
	out = append(out, decls...)
	out = append(out, 0x01, 0x7f)
	head := len(out)
	code := out
	used := false
	var depth nesting
	for r.err == nil {
		op := r.byte()
		if r.err != nil {
			break
		}
		switch {
		case op == 0x40: // memory.grow
			used = true
			code = g.memoryGrow(code, d)
		case op == 0xfc:
			save := r.p
			if r.u32() == 15 { // table.grow
				used = true
				g.grows = true
				code = g.tableGrow(code, d)
			}
			r.p = save
		}
		var err error
		if code, err = copyInstr(r, op, code, func(f uint32) uint32 { return f }); err != nil {
			return nil, err
		}
		if depth.closes(op) {
			if used {
				return code, nil
			}
			// No grow: the declarations as they were.
			decl := appendU32(nil, nDecl)
			start := base
			n := copy(code[start:], decl)
			n += copy(code[start+n:], decls)
			n += copy(code[start+n:], code[head:])
			return code[:start+n], nil
		}
	}
	return nil, r.err
}

// usedBytes appends, as an i64, the bytes the instance holds now plus
// delta (in local d) entries of tables (entryBytes 8) or pages of memory
// (entryBytes 65536): every table's size x 8 plus memory 0's size x 64 KiB.
func (g *growCheck) usedBytes(b []byte, d uint32, deltaShift byte) []byte {
	b = append(b, 0x20) // local.get d
	b = appendU32(b, d)
	b = append(b, 0xad, 0x42, deltaShift, 0x86) // i64.extend_i32_u; i64.const shift; i64.shl
	for t := uint32(0); t < g.tables; t++ {
		b = append(b, 0xfc, 16) // table.size t
		b = appendU32(b, t)
		b = append(b, 0xad, 0x42, 3, 0x86, 0x7c) // extend; << 3; i64.add
	}
	if g.memory {
		b = append(b, 0x3f, 0x00, 0xad, 0x42, 16, 0x86, 0x7c) // memory.size; extend; << 16; i64.add
	}
	b = append(b, 0x42) // i64.const budget
	b = appendSLEB64(b, int64(g.budget))
	return append(b, 0x56) // i64.gt_u
}

// tableGrow: [ref delta] -> [ref delta], calling the limit function first
// when the grow would pass the budget.
func (g *growCheck) tableGrow(b []byte, d uint32) []byte {
	b = append(b, 0x22) // local.tee d
	b = appendU32(b, d)
	b = g.usedBytes(b, d, 3)
	b = append(b, 0x04, 0x40, 0x10) // if; call limit; end
	b = appendU32(b, g.limit)
	return append(b, 0x0b)
}

// memoryGrow: [delta] -> [delta or -1 when the grow would pass the budget].
func (g *growCheck) memoryGrow(b []byte, d uint32) []byte {
	b = append(b, 0x21) // local.set d
	b = appendU32(b, d)
	b = append(b, 0x41, 0x7f, 0x20) // i32.const -1; local.get d
	b = appendU32(b, d)
	b = g.usedBytes(b, d, 16)
	return append(b, 0x1b) // select
}

// limitListener fails the call that reached the limit function.
type limitListener struct{}

func (limitListener) Before(ctx context.Context, _ api.Module, _ api.FunctionDefinition, _ []uint64, _ experimental.StackIterator) {
	name, limit, key := "?", uint32(0), "memory_mb"
	if inst := instanceFrom(ctx); inst != nil {
		c := inst.p.eng.cfg
		name, limit, key = inst.p.Name, c.MemoryPages/16, c.MemoryKey
	}
	panic(abi.Errorf(abi.CodeResourceLimit, "plugin %s: a table.grow would take its instance past the %d MiB memory limit (%s, which counts linear memory and tables); the instance was discarded: have the plugin use less, or raise %s", name, limit, key, key))
}

func (limitListener) After(context.Context, api.Module, api.FunctionDefinition, []uint64) {}

func (limitListener) Abort(context.Context, api.Module, api.FunctionDefinition, error) {}

// appendSLEB64 appends v as a signed LEB128 (an i64.const immediate).
func appendSLEB64(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}
