package sandbox

import (
	"bytes"
	"errors"
	"fmt"
)

// Loop fuel: a cheaper way to keep every plugin call stoppable.
//
// wazero's close-on-context-done makes each loop iteration leave the
// compiled code for Go (a call into a trampoline at every loop header), so
// byte-scanning plugin code (JSON, string search) ran 4-6x slower under it.
// Instead, instrumentLoops rewrites a module so that each loop header runs
//
//	global.get $fuel; i32.eqz; if; call $ww_tick; global.set $fuel; end
//	global.get $fuel; i32.const 1; i32.sub; global.set $fuel
//
// a handful of instructions, and calls the host's ww_tick only when the
// fuel runs out, every tickFuel iterations. ww_tick checks the call's
// deadline (and traps the plugin past it) and is a Go function call, so a
// spinning plugin still reaches a point where the Go runtime can stop it for
// GC within microseconds. Modules the rewriter does not understand (SIMD,
// threads) keep close-on-context-done.

const (
	tickImportModule = "extism:host/user"
	tickImportName   = "ww_tick"
	tickFuel         = 1 << 16
)

var errUnsupported = errors.New("instruction not supported by the loop-fuel rewriter")

// instrumentLoops returns wasm with loop fuel inserted, or an error (the
// caller then keeps the module as is).
func instrumentLoops(wasm []byte) ([]byte, error) {
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return nil, errNotWasm
	}
	type section struct {
		id   byte
		body []byte
	}
	var secs []section
	r := &reader{b: wasm, p: 8}
	for r.p < len(wasm) {
		id := r.byte()
		n := r.u32()
		if r.err != nil || r.p+int(n) > len(wasm) {
			return nil, errShort
		}
		secs = append(secs, section{id, wasm[r.p : r.p+int(n)]})
		r.p += int(n)
	}
	find := func(id byte) int {
		for i, s := range secs {
			if s.id == id {
				return i
			}
		}
		return -1
	}
	// Types: append () -> i32 for ww_tick.
	ti := find(1)
	if ti < 0 {
		return nil, errors.New("no type section")
	}
	tr := &reader{b: secs[ti].body}
	nTypes := tr.u32()
	tickType := nTypes
	secs[ti].body = appendVec(secs[ti].body, tr.p, nTypes+1, []byte{0x60, 0x00, 0x01, 0x7f})

	// Imports: count function and global imports, append ww_tick.
	ii := find(2)
	if ii < 0 {
		return nil, errors.New("no import section")
	}
	ir := &reader{b: secs[ii].body}
	nImports := ir.u32()
	var nFuncImports, nGlobalImports uint32
	for k := uint32(0); k < nImports && ir.err == nil; k++ {
		mod, name := ir.name(), ir.name()
		switch kind := ir.byte(); kind {
		case 0:
			ir.u32()
			nFuncImports++
			if mod == tickImportModule && name == tickImportName {
				return nil, errors.New("module already imports ww_tick")
			}
		case 1:
			ir.byte()
			ir.limits()
		case 2:
			ir.limits()
		case 3:
			ir.byte()
			ir.byte()
			nGlobalImports++
		default:
			return nil, fmt.Errorf("import kind %d", kind)
		}
	}
	if ir.err != nil {
		return nil, ir.err
	}
	var imp []byte
	imp = appendName(imp, tickImportModule)
	imp = appendName(imp, tickImportName)
	imp = append(imp, 0x00)
	imp = appendU32(imp, tickType)
	secs[ii].body = appendVec(secs[ii].body, leb32Len(secs[ii].body), nImports+1, imp)
	tickFunc := nFuncImports // the new import is the last function import
	remap := func(f uint32) uint32 {
		if f >= nFuncImports {
			return f + 1
		}
		return f
	}

	// Globals: append (mut i32) = 0.
	gi := find(6)
	var fuelGlobal uint32
	newGlobal := []byte{0x7f, 0x01, 0x41, 0x00, 0x0b}
	if gi < 0 {
		fuelGlobal = nGlobalImports
		// Insert before the export section (or the first section after
		// globals in the canonical order).
		pos := len(secs)
		for i, s := range secs {
			if s.id != 0 && s.id > 6 {
				pos = i
				break
			}
		}
		body := appendVec(nil, 0, 1, newGlobal)
		secs = append(secs[:pos], append([]section{{6, body}}, secs[pos:]...)...)
	} else {
		gr := &reader{b: secs[gi].body}
		n := gr.u32()
		var out []byte
		for k := uint32(0); k < n && gr.err == nil; k++ {
			out = append(out, gr.byte(), gr.byte()) // valtype, mutability
			e, err := rewriteExpr(gr, remap)
			if err != nil {
				return nil, err
			}
			out = append(out, e...)
		}
		if gr.err != nil {
			return nil, gr.err
		}
		fuelGlobal = nGlobalImports + n
		secs[gi].body = appendVec(nil, 0, n+1, append(out, newGlobal...))
	}

	var out bytes.Buffer
	out.Write(wasm[:8])
	for _, s := range secs {
		body := s.body
		var err error
		switch s.id {
		case 0:
			if nr := (&reader{b: body}); nr.name() == "name" {
				continue // function names shift with the new import; drop them
			}
		case 7:
			body, err = rewriteExports(body, remap)
		case 8:
			sr := &reader{b: body}
			body = appendU32(nil, remap(sr.u32()))
			err = sr.err
		case 9:
			body, err = rewriteElems(body, remap)
		case 10:
			body, err = rewriteCode(body, remap, tickFunc, fuelGlobal)
		}
		if err != nil {
			return nil, err
		}
		out.WriteByte(s.id)
		out.Write(appendU32(nil, uint32(len(body))))
		out.Write(body)
	}
	return out.Bytes(), nil
}

func rewriteExports(b []byte, remap func(uint32) uint32) ([]byte, error) {
	r := &reader{b: b}
	n := r.u32()
	out := appendU32(nil, n)
	for k := uint32(0); k < n && r.err == nil; k++ {
		name := r.name()
		kind := r.byte()
		idx := r.u32()
		if kind == 0 {
			idx = remap(idx)
		}
		out = appendName(out, name)
		out = append(out, kind)
		out = appendU32(out, idx)
	}
	return out, r.err
}

func rewriteElems(b []byte, remap func(uint32) uint32) ([]byte, error) {
	r := &reader{b: b}
	n := r.u32()
	out := appendU32(nil, n)
	for k := uint32(0); k < n && r.err == nil; k++ {
		flags := r.u32()
		out = appendU32(out, flags)
		if flags > 7 {
			return nil, fmt.Errorf("element segment flags %d", flags)
		}
		if flags == 2 || flags == 6 {
			out = appendU32(out, r.u32()) // table index
		}
		if flags&1 == 0 { // active: offset expression
			e, err := rewriteExpr(r, remap)
			if err != nil {
				return nil, err
			}
			out = append(out, e...)
		}
		if flags&3 != 0 { // elemkind or reftype byte
			out = append(out, r.byte())
		}
		cnt := r.u32()
		out = appendU32(out, cnt)
		for j := uint32(0); j < cnt && r.err == nil; j++ {
			if flags&4 == 0 {
				out = appendU32(out, remap(r.u32()))
			} else {
				e, err := rewriteExpr(r, remap)
				if err != nil {
					return nil, err
				}
				out = append(out, e...)
			}
		}
	}
	return out, r.err
}

// rewriteExpr copies a constant expression up to and including its end.
func rewriteExpr(r *reader, remap func(uint32) uint32) ([]byte, error) {
	var out []byte
	depth := 0
	for r.err == nil {
		var err error
		op := r.byte()
		out, err = copyInstr(r, op, out, remap)
		if err != nil {
			return nil, err
		}
		switch op {
		case 0x02, 0x03, 0x04:
			depth++
		case 0x0b:
			if depth == 0 {
				return out, nil
			}
			depth--
		}
	}
	return nil, r.err
}

func rewriteCode(b []byte, remap func(uint32) uint32, tick, fuel uint32) ([]byte, error) {
	r := &reader{b: b}
	n := r.u32()
	out := appendU32(nil, n)
	check := []byte{0x23}
	check = appendU32(check, fuel)
	check = append(check, 0x45, 0x04, 0x40, 0x10)
	check = appendU32(check, tick)
	check = append(check, 0x24)
	check = appendU32(check, fuel)
	check = append(check, 0x0b, 0x23)
	check = appendU32(check, fuel)
	check = append(check, 0x41, 0x01, 0x6b, 0x24)
	check = appendU32(check, fuel)
	var body []byte
	for k := uint32(0); k < n && r.err == nil; k++ {
		size := r.u32()
		end := r.p + int(size)
		if end > len(b) {
			return nil, errShort
		}
		fr := &reader{b: b[:end], p: r.p}
		body = body[:0]
		locals := fr.u32()
		for j := uint32(0); j < locals && fr.err == nil; j++ {
			fr.u32()
			fr.byte()
		}
		body = append(body, b[r.p:fr.p]...)
		for fr.p < end && fr.err == nil {
			op := fr.byte()
			var err error
			body, err = copyInstr(fr, op, body, remap)
			if err != nil {
				return nil, err
			}
			if op == 0x03 {
				body = append(body, check...)
			}
		}
		if fr.err != nil {
			return nil, fr.err
		}
		out = appendU32(out, uint32(len(body)))
		out = append(out, body...)
		r.p = end
	}
	return out, r.err
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
		for i := uint32(0); i <= n && r.err == nil; i++ {
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
		if a := r.u32(); a&0x40 != 0 {
			return nil, errUnsupported // multi-memory
		}
		r.u32()
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
			return nil, errUnsupported
		}
	default:
		return nil, fmt.Errorf("%w: opcode 0x%02x", errUnsupported, op)
	}
	return raw(), r.err
}

func (r *reader) s33() { r.sleb(5) }
func (r *reader) s64() { r.sleb(10) }

func (r *reader) sleb(max int) {
	for i := 0; i < max; i++ {
		if r.byte()&0x80 == 0 || r.err != nil {
			return
		}
	}
	r.err = errors.New("LEB128 integer too long")
}

func (r *reader) skip(n int) {
	if r.p+n > len(r.b) {
		r.err = errShort
		return
	}
	r.p += n
}

func appendU32(b []byte, v uint32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v == 0 {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

func appendName(b []byte, s string) []byte {
	return append(appendU32(b, uint32(len(s))), s...)
}

// appendVec re-encodes a vector section: a new count, the old items (body
// after its count, which ends at off), then more.
func appendVec(body []byte, off int, count uint32, more []byte) []byte {
	out := appendU32(nil, count)
	if off <= len(body) {
		out = append(out, body[off:]...)
	}
	return append(out, more...)
}

// leb32Len is the length of the LEB128 count at the start of b.
func leb32Len(b []byte) int {
	for i, c := range b {
		if c&0x80 == 0 {
			return i + 1
		}
	}
	return len(b)
}
