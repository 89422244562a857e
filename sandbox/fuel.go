package sandbox

import (
	"bytes"
	"errors"
	"fmt"
)

// Fuel: how every plugin call stays stoppable.
//
// wazero's close-on-context-done makes each loop iteration leave the
// compiled code for Go, so byte-scanning plugin code (JSON, string search)
// ran 4-6x slower under it. Instead, instrument rewrites a module at load so
// that a fuel global (an i32, per instance) is charged
//
//   - at every function entry, the static size of the function body, so
//     call-only code (recursion, a tree of 2^64 calls) is bounded;
//   - at every loop header, the static size of the loop body, so a loop with
//     a huge straight-line body costs what it does;
//   - before every bulk operation (memory.fill/copy/init, table
//     fill/copy/init/grow), in proportion to its length, so one 120 MiB
//     memory.fill costs what 120 MiB of work does;
//
// and whenever the fuel goes negative, the host's ww_tick is called. The
// charge is a few instructions inline:
//
//	global.get $fuel; i32.const cost; i32.sub; global.set $fuel
//	global.get $fuel; i32.const 0; i32.lt_s; if; call $ww_tick; global.set $fuel; end
//
// ww_tick checks the call's deadline and work budget (budget.go; it traps
// the plugin past either) and hands out the next ration, at most tickFuel;
// being a Go function call, it is also where the Go
// runtime can stop a spinning plugin's goroutine for GC. Charges are upper
// bounds of the work done (a loop body's full size is charged even when an
// iteration runs a small part of it, as in Go's compiled wasm, where each
// function is one big dispatch loop), so between two ticks a plugin runs at
// most tickFuel instructions, or tickFuel*16 bytes of bulk memory work: a
// few milliseconds. A tick costs about 2 us; tickFuel is set large enough
// that Go plugin code, overcharged that way, ticks rarely (82 ticks for
// json.Valid over 100 KB; 5,166 at 1<<16, which cost 10 ms).
//
// A module the rewriter cannot instrument (an instruction it does not know,
// atomics, multi-memory, a malformed section) is refused at load: there is
// no unbounded fallback.

const (
	tickImportModule = "extism:host/user"
	tickImportName   = "ww_tick"
	// fuelExportName exports the fuel counter, so that the host can start
	// each call with a known ration and read what is left at its end: the
	// work a call did is then counted exactly (budget.go).
	fuelExportName = "ww_fuel"
	tickFuel       = 1 << 22
	// Bulk operations cost their length shifted right by these: one unit
	// per 16 bytes of memory, one per 2 table elements (a shift of at
	// least 1 keeps every cost positive as an i32).
	memCostShift   = 4
	tableCostShift = 1
	// maxStaticCost caps a region's static cost so that fuel (at most
	// tickFuel before a charge) never wraps below math.MinInt32.
	maxStaticCost = 1 << 30
	// maxLocals is the browsers' limit on a function's locals and
	// parameters (V8, SpiderMonkey: 50,000).
	maxLocals = 50000
)

// errUnsupported marks what the rewriter cannot instrument.
var errUnsupported = errors.New("not supported by the fuel rewriter")

// fuelOptions select what instrument charges.
type fuelOptions struct {
	// noLoops leaves loop headers alone (benchmark comparison with wazero's
	// close-on-context-done, which then bounds loops).
	noLoops bool
}

// instrument returns wasm with fuel charges inserted (see above), or an
// error saying why the module cannot be bounded.
func instrument(wasm []byte, opt fuelOptions) ([]byte, error) {
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" || wasm[4] != 1 || wasm[5] != 0 || wasm[6] != 0 || wasm[7] != 0 {
		return nil, errNotWasm
	}
	secs, err := splitSections(wasm)
	if err != nil {
		return nil, err
	}
	params, tickType, err := secs.addTickType()
	if err != nil {
		return nil, err
	}
	funcTypes, nGlobalImports, err := secs.addTickImport(tickType)
	if err != nil {
		return nil, err
	}
	nFuncImports := uint32(len(funcTypes))
	tickFunc := nFuncImports // the new import is the last function import
	remap := func(f uint32) uint32 {
		if f >= nFuncImports {
			return f + 1
		}
		return f
	}
	if funcTypes, err = secs.readFunctionTypes(funcTypes); err != nil {
		return nil, err
	}
	defined := funcTypes[nFuncImports:]
	if err := secs.checkTables(); err != nil {
		return nil, err
	}
	fuelGlobal, err := secs.addFuelGlobal(nGlobalImports, remap)
	if err != nil {
		return nil, err
	}
	if err := secs.exportFuel(fuelGlobal); err != nil {
		return nil, err
	}
	if secs.find(8) >= 0 {
		secs.ensure(7)
		if secs, err = deferStart(secs); err != nil {
			return nil, err
		}
	}
	cw := &codeWriter{tick: tickFunc, fuel: fuelGlobal, remap: remap, loops: !opt.noLoops}
	return assemble(wasm[:8], secs, cw, defined, params)
}

// assemble writes header and the sections, the ones naming functions
// rewritten for the new import and the code charged for fuel by cw; the
// name section is dropped and the data segments joined (datamerge.go).
func assemble(header []byte, secs sections, cw *codeWriter, defined, params []uint32) ([]byte, error) {
	var out bytes.Buffer
	out.Write(header)
	for _, s := range secs {
		body := s.body
		var err error
		switch s.id {
		case 0:
			if nr := (&reader{b: body}); nr.name() == "name" {
				continue // function names shift with the new import; drop them
			}
		case 7:
			body, err = rewriteExports(body, cw.remap)
		case 8:
			sr := &reader{b: body}
			body = appendU32(nil, cw.remap(sr.u32()))
			err = sr.err
		case 9:
			body, err = rewriteElems(body, cw.remap)
		case 10:
			body, err = cw.rewriteCode(body, defined, params)
		case 11:
			if secs.find(12) < 0 {
				body = mergeData(body) // datamerge.go
			}
		}
		if err != nil {
			return nil, fmt.Errorf("section %d: %w", s.id, err)
		}
		out.WriteByte(s.id)
		out.Write(appendU32(nil, uint32(len(body))))
		out.Write(body)
	}
	return out.Bytes(), nil
}

// codeWriter instruments function bodies.
type codeWriter struct {
	tick, fuel uint32
	remap      func(uint32) uint32
	loops      bool
}

// block is an open structured instruction; loop and function frames carry
// the position of their cost placeholder, patched at their end.
type block struct {
	charged bool
	patch   int // offset of the 5-byte cost in the output body
	start   int // instruction count at the header
}

func (cw *codeWriter) rewriteCode(b []byte, types, params []uint32) ([]byte, error) {
	var locals, body []byte
	return rewriteFunctions(b, types, params, len(b), func(r *reader, nParams uint32, out []byte) ([]byte, error) {
		var err error
		locals, body, err = cw.rewriteBody(r, nParams, locals[:0], body[:0])
		if err != nil {
			return nil, err
		}
		out = appendU32(out, uint32(len(locals)+len(body)))
		out = append(out, locals...)
		return append(out, body...), nil
	})
}

// rewriteFunctions walks a code section (b), whose functions have the
// given type indices, and appends to a fresh output each body as rewrite
// appends it (its size first); rewrite reads exactly one body from r. Both
// instrumentations (fuel, grow checks) share it, so a body that does not
// end where its size says, or bytes after the last body, refuse the module
// in both.
func rewriteFunctions(b []byte, types, params []uint32, sizeHint int, rewrite func(r *reader, nParams uint32, out []byte) ([]byte, error)) ([]byte, error) {
	r := &reader{b: b}
	n := r.u32()
	if r.err == nil && int(n) != len(types) {
		return nil, fmt.Errorf("%d function bodies for %d functions", n, len(types))
	}
	out := appendU32(make([]byte, 0, sizeHint), n)
	for k := uint32(0); k < n && r.err == nil; k++ {
		size := r.u32()
		if r.err != nil || int(size) > len(b)-r.p {
			return nil, errShort
		}
		end := r.p + int(size)
		if types[k] >= uint32(len(params)) {
			return nil, fmt.Errorf("function %d has type %d, out of range", k, types[k])
		}
		fr := &reader{b: b[:end], p: r.p}
		var err error
		out, err = rewrite(fr, params[types[k]], out)
		if err != nil {
			return nil, fmt.Errorf("function %d: %w", k, err)
		}
		if fr.p != end {
			return nil, fmt.Errorf("function %d: bytes after its end", k)
		}
		r.p = end
	}
	if r.err == nil && r.p != len(b) {
		return nil, errors.New("trailing bytes")
	}
	return out, r.err
}

// rewriteBody instruments one function body read from r and returns its new
// local declarations and instructions (appended to locals and body).
func (cw *codeWriter) rewriteBody(r *reader, nParams uint32, locals, body []byte) ([]byte, []byte, error) {
	nDecl := r.u32()
	declStart := r.p
	total := uint64(nParams)
	for j := uint32(0); j < nDecl && r.err == nil; j++ {
		total += uint64(r.u32())
		if err := valType(r.byte()); err != nil {
			return nil, nil, err
		}
	}
	if r.err != nil {
		return nil, nil, r.err
	}
	if total > maxLocals {
		// wazero allocates one byte per declared local before it checks
		// anything: 2^32 of them would take the host down.
		return nil, nil, fmt.Errorf("%w: %d locals in one function (at most %d)", errUnsupported, total, maxLocals)
	}
	decls := r.b[declStart:r.p]
	scratch := uint32(total) // index of the i32 local added if bulk ops need one
	usedScratch := false

	stack := []block{{charged: true, patch: cw.charge(&body), start: 0}}
	count := 0
	for len(stack) > 0 {
		op := r.byte()
		if r.err != nil {
			return nil, nil, r.err
		}
		count++
		if op == 0xfc {
			save := r.p
			sub := r.u32()
			r.p = save
			if shift, ok := bulkShift(sub); ok {
				usedScratch = true
				body = cw.chargeTop(body, scratch, shift)
			}
		}
		var err error
		body, err = copyInstr(r, op, body, cw.remap)
		if err != nil {
			return nil, nil, err
		}
		switch op {
		case 0x02, 0x04:
			stack = append(stack, block{})
		case 0x03:
			if cw.loops {
				stack = append(stack, block{charged: true, patch: cw.charge(&body), start: count})
			} else {
				stack = append(stack, block{})
			}
		case 0x0b:
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if top.charged {
				putCost(body[top.patch:], count-top.start)
			}
		}
	}
	if !usedScratch {
		locals = appendU32(locals, nDecl)
		return append(locals, decls...), body, nil
	}
	locals = appendU32(locals, nDecl+1)
	locals = append(locals, decls...)
	locals = append(locals, 0x01, 0x7f) // one i32: the scratch local
	return locals, body, nil
}

// bulkShift reports whether 0xfc sub-opcode sub is a bulk operation whose
// length is on top of the stack, and its cost shift.
func bulkShift(sub uint32) (uint32, bool) {
	switch sub {
	case 8, 10, 11: // memory.init, memory.copy, memory.fill
		return memCostShift, true
	case 12, 14, 15, 17: // table.init, table.copy, table.grow, table.fill
		return tableCostShift, true
	}
	return 0, false
}

// charge appends a constant charge whose cost is patched later and returns
// the offset of the cost's 5 bytes.
func (cw *codeWriter) charge(body *[]byte) int {
	b := append(*body, 0x23)
	b = appendU32(b, cw.fuel)
	b = append(b, 0x41)
	at := len(b)
	b = append(b, 0x81, 0x80, 0x80, 0x80, 0x00) // 1, padded to 5 bytes
	b = append(b, 0x6b, 0x24)
	b = appendU32(b, cw.fuel)
	*body = cw.check(b)
	return at
}

// chargeTop appends a charge of (top of stack >> shift), leaving the stack
// as it was.
func (cw *codeWriter) chargeTop(b []byte, scratch, shift uint32) []byte {
	b = append(b, 0x21) // local.set
	b = appendU32(b, scratch)
	b = append(b, 0x23)
	b = appendU32(b, cw.fuel)
	b = append(b, 0x20)
	b = appendU32(b, scratch)
	b = append(b, 0x41, byte(shift), 0x76, 0x6b, 0x24) // i32.const shift; i32.shr_u; i32.sub; global.set
	b = appendU32(b, cw.fuel)
	b = cw.check(b)
	b = append(b, 0x20)
	return appendU32(b, scratch)
}

// check appends: if fuel < 0 { fuel = ww_tick() }.
func (cw *codeWriter) check(b []byte) []byte {
	b = append(b, 0x23)
	b = appendU32(b, cw.fuel)
	b = append(b, 0x41, 0x00, 0x48, 0x04, 0x40, 0x10) // i32.const 0; i32.lt_s; if; call
	b = appendU32(b, cw.tick)
	b = append(b, 0x24)
	b = appendU32(b, cw.fuel)
	return append(b, 0x0b)
}

// putCost writes cost (clamped to [1, maxStaticCost]) as a 5-byte LEB128.
func putCost(b []byte, cost int) {
	cost = min(max(cost, 1), maxStaticCost)
	for i := 0; i < 4; i++ {
		b[i] = byte(cost&0x7f) | 0x80
		cost >>= 7
	}
	b[4] = byte(cost & 0x7f)
}

// copyInstr copies one instruction's immediates after its opcode op (already
// read), remapping function indices.
func copyInstr(r *reader, op byte, out []byte, remap func(uint32) uint32) ([]byte, error) {
	start := r.p
	raw := func() []byte { return append(append(out, op), r.b[start:r.p]...) }
	switch {
	case op == 0x10 || op == 0x12 || op == 0xd2: // call, return_call, ref.func
		f := r.u32()
		return appendU32(append(out, op), remap(f)), r.err
	case op <= 0x01, op == 0x05, op == 0x0b, op == 0x0f, op == 0x1a, op == 0x1b, op == 0xd1,
		op >= 0x45 && op <= 0xc4:
		return append(out, op), nil
	case op >= 0x02 && op <= 0x04:
		r.s33()
	case op == 0x0c, op == 0x0d:
		r.u32()
	case op == 0x0e:
		n := r.u32()
		for i := uint64(0); i <= uint64(n) && r.err == nil; i++ {
			r.u32()
		}
	case op == 0x11, op == 0x13:
		r.u32()
		r.u32()
	case op == 0x1c:
		n := r.u32()
		for i := uint32(0); i < n && r.err == nil; i++ {
			r.byte()
		}
	case op >= 0x20 && op <= 0x26:
		r.u32()
	case op >= 0x28 && op <= 0x3e:
		if err := r.memarg(); err != nil {
			return nil, err
		}
	case op == 0x3f, op == 0x40:
		r.byte()
	case op == 0x41:
		r.s33()
	case op == 0x42:
		r.s64()
	case op == 0x43:
		r.skip(4)
	case op == 0x44:
		r.skip(8)
	case op == 0xd0:
		r.byte()
	case op == 0xfc:
		switch sub := r.u32(); {
		case sub <= 7:
		case sub == 8:
			r.u32()
			r.byte()
		case sub == 9, sub == 13, sub == 15, sub == 16, sub == 17:
			r.u32()
		case sub == 10:
			r.byte()
			r.byte()
		case sub == 11:
			r.byte()
		case sub == 12, sub == 14:
			r.u32()
			r.u32()
		default:
			return nil, fmt.Errorf("%w: opcode 0xfc %d", errUnsupported, sub)
		}
	case op == 0xfd:
		if err := simdImmediates(r); err != nil {
			return nil, err
		}
	case op == 0xfe:
		return nil, fmt.Errorf("%w: atomics (threads are not enabled in this host)", errUnsupported)
	default:
		return nil, fmt.Errorf("%w: opcode 0x%02x", errUnsupported, op)
	}
	if r.err != nil {
		return nil, r.err
	}
	return raw(), nil
}

// simdImmediates skips the immediates of a 0xfd (SIMD) instruction.
func simdImmediates(r *reader) error {
	switch sub := r.u32(); {
	case r.err != nil:
		return r.err
	case sub <= 0x0b, sub == 0x5c, sub == 0x5d: // loads, store, load_zero
		return r.memarg()
	case sub == 0x0c, sub == 0x0d: // v128.const, i8x16.shuffle
		r.skip(16)
	case sub >= 0x15 && sub <= 0x22: // extract_lane, replace_lane
		r.byte()
	case sub >= 0x54 && sub <= 0x5b: // load_lane, store_lane
		if err := r.memarg(); err != nil {
			return err
		}
		r.byte()
	case sub > 0x113:
		return fmt.Errorf("%w: opcode 0xfd %d", errUnsupported, sub)
	}
	return r.err
}
