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

type section struct {
	id   byte
	body []byte
}

// sectionRank orders sections as the binary format requires (the data
// count section, 12, sits between elements and code).
func sectionRank(id byte) int {
	switch {
	case id == 12:
		return 95
	case id == 10 || id == 11:
		return int(id)*10 + 1
	}
	return int(id) * 10
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

// sections are a module's sections in file order.
type sections []section

// splitSections reads the sections after the 8-byte header, checking
// their order and their counts.
func splitSections(wasm []byte) (sections, error) {
	var secs sections
	r := &reader{b: wasm, p: 8}
	last := 0
	for r.p < len(wasm) {
		id := r.byte()
		n := r.u32()
		if r.err != nil || int(n) > len(wasm)-r.p {
			return nil, errShort
		}
		if id > 12 {
			return nil, fmt.Errorf("%w: section id %d", errUnsupported, id)
		}
		if id != 0 {
			if rk := sectionRank(id); rk <= last {
				return nil, fmt.Errorf("section %d out of order or repeated", id)
			} else {
				last = rk
			}
		}
		body := wasm[r.p : r.p+int(n)]
		if err := checkCounts(id, body); err != nil {
			return nil, fmt.Errorf("section %d: %w", id, err)
		}
		secs = append(secs, section{id, body})
		r.p += int(n)
	}
	return secs, nil
}

// find is the index of section id, or -1.
func (secs sections) find(id byte) int {
	for i, s := range secs {
		if s.id == id {
			return i
		}
	}
	return -1
}

// ensure returns the index of section id, inserting an empty vector
// section in canonical order when the module has none.
func (secs *sections) ensure(id byte) int {
	if i := secs.find(id); i >= 0 {
		return i
	}
	s := *secs
	pos := len(s)
	for i, sec := range s {
		if sec.id != 0 && sectionRank(sec.id) > sectionRank(id) {
			pos = i
			break
		}
	}
	*secs = append(s[:pos], append([]section{{id, []byte{0}}}, s[pos:]...)...)
	return pos
}

// addTickType records each type's parameter count and appends the tick
// function's type, () -> i32, whose index it returns.
func (secs *sections) addTickType() (params []uint32, tickType uint32, err error) {
	ti := secs.ensure(1)
	s := *secs
	params, err = readTypes(s[ti].body)
	if err != nil {
		return nil, 0, fmt.Errorf("type section: %w", err)
	}
	tickType = uint32(len(params))
	s[ti].body = appendVec(s[ti].body, leb32Len(s[ti].body), tickType+1, []byte{0x60, 0x00, 0x01, 0x7f})
	return params, tickType, nil
}

// addTickImport appends the import of ww_tick, of type tickType, after
// the module's own imports. It returns the type of every imported
// function (ww_tick left out) and the number of imported globals.
func (secs *sections) addTickImport(tickType uint32) (funcTypes []uint32, nGlobalImports uint32, err error) {
	ii := secs.ensure(2)
	s := *secs
	ir := &reader{b: s[ii].body}
	nImports := ir.u32()
	for k := uint32(0); k < nImports && ir.err == nil; k++ {
		mod, name := ir.name(), ir.name()
		switch kind := ir.byte(); kind {
		case 0:
			funcTypes = append(funcTypes, ir.u32())
			if mod == tickImportModule && name == tickImportName {
				return nil, 0, fmt.Errorf("the module imports %s/%s itself, which only the rewriter may add", mod, name)
			}
		case 1:
			if err := refType(ir.byte()); err != nil {
				return nil, 0, err
			}
			ir.limits()
		case 2:
			ir.limits()
		case 3:
			if err := valType(ir.byte()); err != nil {
				return nil, 0, err
			}
			ir.byte()
			nGlobalImports++
		default:
			return nil, 0, fmt.Errorf("%w: import kind %d", errUnsupported, kind)
		}
	}
	if ir.err != nil {
		return nil, 0, fmt.Errorf("import section: %w", ir.err)
	}
	var imp []byte
	imp = appendName(imp, tickImportModule)
	imp = appendName(imp, tickImportName)
	imp = append(imp, 0x00)
	imp = appendU32(imp, tickType)
	s[ii].body = appendVec(s[ii].body, leb32Len(s[ii].body), nImports+1, imp)
	return funcTypes, nGlobalImports, nil
}

// readFunctionTypes appends to funcTypes the type of each defined
// function, for its parameter count.
func (secs sections) readFunctionTypes(funcTypes []uint32) ([]uint32, error) {
	fi := secs.find(3)
	if fi < 0 {
		return funcTypes, nil
	}
	fr := &reader{b: secs[fi].body}
	n := fr.u32()
	for k := uint32(0); k < n && fr.err == nil; k++ {
		funcTypes = append(funcTypes, fr.u32())
	}
	if fr.err != nil {
		return nil, fmt.Errorf("function section: %w", fr.err)
	}
	return funcTypes, nil
}

// checkTables accepts plain reference types only (an initializer
// expression, from typed function references, could name functions).
func (secs sections) checkTables() error {
	ti := secs.find(4)
	if ti < 0 {
		return nil
	}
	tr := &reader{b: secs[ti].body}
	n := tr.u32()
	for k := uint32(0); k < n && tr.err == nil; k++ {
		if err := refType(tr.byte()); err != nil {
			return err
		}
		tr.limits()
	}
	if tr.err != nil {
		return fmt.Errorf("table section: %w", tr.err)
	}
	return nil
}

// addFuelGlobal appends the fuel counter, (mut i32) = tickFuel, rewriting
// the function indices the module's own global initializers name. It
// returns the counter's global index.
func (secs *sections) addFuelGlobal(nGlobalImports uint32, remap func(uint32) uint32) (uint32, error) {
	newGlobal := append([]byte{0x7f, 0x01, 0x41}, appendS32(nil, tickFuel)...)
	newGlobal = append(newGlobal, 0x0b)
	gi := secs.ensure(6)
	s := *secs
	gr := &reader{b: s[gi].body}
	nGlobals := gr.u32()
	var globals []byte
	for k := uint32(0); k < nGlobals && gr.err == nil; k++ {
		vt := gr.byte()
		if err := valType(vt); err != nil && gr.err == nil {
			return 0, err
		}
		globals = append(globals, vt, gr.byte()) // valtype, mutability
		e, err := rewriteExpr(gr, remap)
		if err != nil {
			return 0, fmt.Errorf("global section: %w", err)
		}
		globals = append(globals, e...)
	}
	if gr.err != nil {
		return 0, fmt.Errorf("global section: %w", gr.err)
	}
	s[gi].body = appendVec(nil, 0, nGlobals+1, append(globals, newGlobal...))
	return nGlobalImports + nGlobals, nil
}

// exportFuel exports the fuel counter, global index fuel, as ww_fuel. A
// module exporting that name itself is refused: the host would read and
// set the module's global as if it were the counter.
func (secs *sections) exportFuel(fuel uint32) error {
	ei := secs.ensure(7)
	s := *secs
	er := &reader{b: s[ei].body}
	n := er.u32()
	for k := uint32(0); k < n && er.err == nil; k++ {
		name := er.name()
		er.byte()
		er.u32()
		if name == fuelExportName && er.err == nil {
			return fmt.Errorf("the module exports %s itself, which only the rewriter may add", fuelExportName)
		}
	}
	if er.err != nil {
		return fmt.Errorf("export section: %w", er.err)
	}
	exp := append(appendName(nil, fuelExportName), 0x03) // a global
	s[ei].body = appendVec(s[ei].body, leb32Len(s[ei].body), n+1, appendU32(exp, fuel))
	return nil
}

// assemble writes header and the sections, the ones naming functions
// rewritten for the new import and the code charged for fuel by cw; the
// name section is dropped.
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

// checkCounts refuses a section whose vector declares more items than it
// has bytes, and, in the data section, a segment longer than what is left:
// wazero allocates by such counts before checking them (a 15-byte module
// declaring 2^32-1 data segments made it ask for 240 GB, a fatal error for
// the whole host process), so it must never see one.
func checkCounts(id byte, body []byte) error {
	if id == 0 || id == 8 || id == 12 {
		return nil // custom, start, data count: not vectors
	}
	r := &reader{b: body}
	n := r.u32()
	if r.err != nil {
		return r.err
	}
	if uint64(n) > uint64(len(body)-r.p) {
		return fmt.Errorf("declares %d items in %d bytes", n, len(body)-r.p)
	}
	if id != 11 {
		return nil
	}
	for k := uint32(0); k < n; k++ {
		flags := r.u32()
		switch {
		case r.err != nil:
			return r.err
		case flags == 2:
			r.u32() // memory index
			fallthrough
		case flags == 0:
			if _, err := rewriteExpr(r, func(f uint32) uint32 { return f }); err != nil {
				return err
			}
		case flags != 1:
			return fmt.Errorf("data segment flags %d", flags)
		}
		size := r.u32()
		if r.err != nil {
			return r.err
		}
		if uint64(size) > uint64(len(body)-r.p) {
			return fmt.Errorf("data segment %d declares %d bytes, %d are left", k, size, len(body)-r.p)
		}
		r.p += int(size)
	}
	return nil
}

// readTypes returns the parameter count of each function type.
func readTypes(b []byte) ([]uint32, error) {
	r := &reader{b: b}
	n := r.u32()
	var params []uint32
	for k := uint32(0); k < n && r.err == nil; k++ {
		if form := r.byte(); form != 0x60 && r.err == nil {
			return nil, fmt.Errorf("%w: type form 0x%02x", errUnsupported, form)
		}
		np := r.u32()
		for j := uint32(0); j < np && r.err == nil; j++ {
			if err := valType(r.byte()); err != nil {
				return nil, err
			}
		}
		nr := r.u32()
		for j := uint32(0); j < nr && r.err == nil; j++ {
			if err := valType(r.byte()); err != nil {
				return nil, err
			}
		}
		params = append(params, np)
	}
	if r.err == nil && r.p != len(b) {
		return nil, errors.New("trailing bytes")
	}
	return params, r.err
}

// valType accepts the one-byte value types (numbers, v128, funcref,
// externref).
func valType(t byte) error {
	switch t {
	case 0x7f, 0x7e, 0x7d, 0x7c, 0x7b, 0x70, 0x6f:
		return nil
	}
	return fmt.Errorf("%w: value type 0x%02x", errUnsupported, t)
}

func refType(t byte) error {
	if t == 0x70 || t == 0x6f {
		return nil
	}
	return fmt.Errorf("%w: reference type 0x%02x", errUnsupported, t)
}

// initExport is the reactor initializer Extism runs once per instance,
// before the first call and inside it.
const initExport = "_initialize"

// deferStart turns the start section of secs (which has an export
// section) into the export _initialize, as
// AssemblyScript's --exportStart _initialize does, unless the module
// already exports one. A start function runs while the module is
// instantiated, outside any call: there the plugin has no call context,
// its memory is not known to the host and Extism's kernel is not reachable,
// so any host call it makes fails. As _initialize it runs at the start of
// the instance's first call, under that call's deadline, where all of them
// work. Export indices are remapped with the rest.
func deferStart(secs sections) (sections, error) {
	si, ei := -1, -1
	for i, s := range secs {
		switch s.id {
		case 7:
			ei = i
		case 8:
			si = i
		}
	}
	sr := &reader{b: secs[si].body}
	start := sr.u32()
	if sr.err != nil {
		return nil, fmt.Errorf("start section: %w", sr.err)
	}
	er := &reader{b: secs[ei].body}
	n := er.u32()
	for k := uint32(0); k < n && er.err == nil; k++ {
		name := er.name()
		er.byte()
		er.u32()
		if name == initExport {
			return secs, nil // it initializes itself after its start function
		}
	}
	if er.err != nil {
		return nil, fmt.Errorf("export section: %w", er.err)
	}
	exp := append(appendName(nil, initExport), 0x00)
	secs[ei].body = appendVec(secs[ei].body, leb32Len(secs[ei].body), n+1, appendU32(exp, start))
	return append(secs[:si], secs[si+1:]...), nil
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
		if flags&3 != 0 { // elemkind (0: funcref) or reftype byte
			k := r.byte()
			if flags&4 == 0 && k != 0 && r.err == nil {
				return nil, fmt.Errorf("%w: element kind %d", errUnsupported, k)
			}
			if flags&4 != 0 {
				if err := refType(k); err != nil && r.err == nil {
					return nil, err
				}
			}
			out = append(out, k)
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
		if r.err != nil {
			break
		}
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

// memarg skips an alignment and an offset; multi-memory is refused.
func (r *reader) memarg() error {
	if a := r.u32(); a&0x40 != 0 {
		return fmt.Errorf("%w: multiple memories", errUnsupported)
	}
	r.u32()
	return r.err
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
	if n > len(r.b)-r.p {
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

// appendS32 appends v as a signed LEB128 (an i32.const immediate).
func appendS32(b []byte, v int32) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
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
