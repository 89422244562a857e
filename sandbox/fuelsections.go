package sandbox

import (
	"errors"
	"fmt"
)

// The module side of the fuel rewriter (fuel.go): a module split into its
// sections, the tick import, fuel global and fuel export added to them, a
// start function deferred to _initialize, and every function index the
// new import shifts renumbered. The code side (charges in function
// bodies) is fuel.go.

// section is one section of a module: its id and its bytes.
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
	var depth nesting
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
		if depth.closes(op) {
			return out, nil
		}
	}
	return nil, r.err
}

// nesting counts the blocks open in a body being copied, to find the end
// that closes the body itself.
type nesting int

// closes takes op, the instruction just copied, into account and reports
// whether it is the end (0x0b) of the body: one that closes no block
// (block, loop, if) opened in it.
func (n *nesting) closes(op byte) bool {
	switch op {
	case 0x02, 0x03, 0x04:
		*n++
	case 0x0b:
		if *n == 0 {
			return true
		}
		*n--
	}
	return false
}
