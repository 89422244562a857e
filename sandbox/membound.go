package sandbox

import (
	"errors"
	"fmt"

	"github.com/wasmwright/wasmwright/abi"
)

// Memory bound: what one instance may make the host allocate.
//
// wazero caps linear memory (WithMemoryLimitPages) and nothing else: a
// table is a Go slice of 8-byte references ([]uintptr, internal/wasm/
// table.go) that table.grow extends without limit, so a plugin with no
// capabilities could take the host's memory 800 MB per
// `ref.null; i32.const 100000000; table.grow`, and keep it in its pooled
// instance. The rule is instead: everything an instance can make the host
// allocate counts against one budget, memory_mb (Config.MemoryPages x
// 64 KiB):
//
//	linear memory pages x 64 KiB + table entries x 8  <=  memory_mb
//
// checked where each can grow:
//
//   - at load (boundMemory), from the declarations: the memory's and the
//     tables' minimums, plus what instantiation allocates per element
//     segment entry (8 bytes, wazero keeps every segment as references)
//     and per global (globalCost); over the budget, the load is refused
//     with resource_limit naming the key. At most one memory (no memory64,
//     no shared memory) and maxTables tables; every defined table's
//     maximum is lowered to the budget, so wazero itself refuses a grow
//     past it even if the checks below had a gap.
//   - at table.grow: the module is rewritten so that a grow that would
//     take the instance past the budget calls limitExport, a function the
//     rewriter appends, whose listener (limitListener) fails the call with
//     resource_limit naming the key and the plugin. A plain -1 would be
//     ignored by code that does not check it, and say nothing to the
//     user; no plugin toolchain we ship grows tables at run time.
//   - at memory.grow, in a module with tables: a grow that would take the
//     instance past the budget gets a delta of -1, which wazero refuses:
//     memory.grow returns -1 as it does at the memory limit, and a Go
//     plugin panics "out of memory" (resource_limit) as it always did.
//
// table.fill, table.copy and table.init only write inside a table's
// current size (they trap out of bounds; fuel charges their length); data
// segments stay in the compiled module, shared by all instances, and
// active ones are copied into linear memory, which the rule counts. The
// other per-instance costs (functions, imports) are bounded by the size of
// the module, which the operator installs.
//
// An instance's Extism kernel memory counts against memory_mb with its
// linear memory (linearmem.go), and every instance of the host together
// against the host-wide budget (membudget.go); add the transient copy Go
// makes when a table grows (append).

const (
	// tableEntryBytes is what wazero stores per table entry (a uintptr).
	tableEntryBytes = 8
	// globalCost bounds what wazero allocates per global per instance
	// (a *GlobalInstance of about 40 bytes, its slot and its pointer).
	globalCost = 64
	// maxTables caps the tables of a module (Go and AssemblyScript builds
	// have one): the memory.grow check adds up every table's size.
	maxTables = 16
	// limitExport names the function the rewriter appends, which a grow
	// past the budget calls; a module may not export the name itself.
	limitExport = "ww_limit_exceeded"
)

// errOverBudget marks a module whose declarations alone exceed the budget.
var errOverBudget = errors.New("over the memory limit")

// boundMemory returns wasm with its tables and growth bounded by budget
// bytes (see above), or an error: errOverBudget-wrapped when the module
// asks for more than the budget at instantiation, errUnsupported-wrapped
// for what the rule cannot count (several memories, memory64, shared
// memory, too many tables).
func boundMemory(wasm []byte, budget uint64) ([]byte, error) {
	out, _, err := boundMemoryShape(wasm, budget)
	return out, err
}

// memShape is what an instance of a bounded module holds besides its
// linear memories (membudget.go accounts an instance with it).
type memShape struct {
	// fixed is what instantiation allocates outside linear memory: table
	// minimums, element-segment entries, globals.
	fixed uint64
	// growsTables: the code has a table.grow, so its tables may take up
	// to the budget less its linear memory at run time.
	growsTables bool
}

// boundMemoryShape is boundMemory, also returning the module's memShape.
func boundMemoryShape(wasm []byte, budget uint64) ([]byte, memShape, error) {
	if len(wasm) < 8 || string(wasm[:4]) != "\x00asm" {
		return nil, memShape{}, errNotWasm
	}
	secs, err := splitSections(wasm)
	if err != nil {
		return nil, memShape{}, err
	}
	m := &memBound{budget: budget, secs: secs}
	for _, step := range []func() error{m.imports, m.tables, m.memories, m.counts, m.globalsAndElements, m.exports, m.declared} {
		if err := step(); err != nil {
			return nil, memShape{}, err
		}
	}
	var grows bool
	if m.nTables > 0 && m.secs.find(10) >= 0 { // else nothing can grow a table
		g, err := m.checkGrows()
		if err != nil {
			return nil, memShape{}, err
		}
		grows = g
	}
	return rebuild(wasm[:8], m.secs), memShape{fixed: m.static - m.memStatic, growsTables: grows}, nil
}

// memBound is boundMemory's work on one module: what its declarations
// allocate at instantiation, and the sections as rewritten so far.
type memBound struct {
	budget       uint64
	secs         sections
	static       uint64 // bytes instantiation allocates
	memStatic    uint64 // of which linear memory (the memories' minimums)
	nTables      int
	nMems        int
	nFuncImports uint32
	hasMemory    bool
}

// body is section id's body, or nil.
func (m *memBound) body(id byte) []byte {
	if i := m.secs.find(id); i >= 0 {
		return m.secs[i].body
	}
	return nil
}

// addMemory counts one memory type (limits) read from r.
func (m *memBound) addMemory(r *reader) error {
	flags := r.byte()
	min := r.u32()
	if flags&1 != 0 {
		r.u32()
	}
	switch {
	case r.err != nil:
		return r.err
	case flags > 1:
		return fmt.Errorf("%w: memory limits flags 0x%02x (shared memory or memory64)", errUnsupported, flags)
	}
	m.nMems++
	m.hasMemory = true
	m.static += uint64(min) << 16
	m.memStatic += uint64(min) << 16
	return nil
}

// imports counts imported functions (for the index of the appended
// function); imported tables and memories count like defined ones.
func (m *memBound) imports() error {
	b := m.body(2)
	if b == nil {
		return nil
	}
	ir := &reader{b: b}
	n := ir.u32()
	for k := uint32(0); k < n && ir.err == nil; k++ {
		ir.name()
		ir.name()
		switch kind := ir.byte(); kind {
		case 0:
			ir.u32()
			m.nFuncImports++
		case 1:
			if err := refType(ir.byte()); err != nil && ir.err == nil {
				return err
			}
			flags := ir.byte()
			min := ir.u32()
			if flags&1 != 0 {
				ir.u32()
			}
			m.nTables++
			m.static += uint64(min) * tableEntryBytes
		case 2:
			if err := m.addMemory(ir); err != nil {
				return err
			}
		case 3:
			ir.byte()
			ir.byte()
			m.static += globalCost
		default:
			return fmt.Errorf("%w: import kind %d", errUnsupported, kind)
		}
	}
	if ir.err != nil {
		return fmt.Errorf("import section: %w", ir.err)
	}
	return nil
}

// tables lowers each defined table's maximum to the budget (flags 1: min
// and max) and counts its minimum.
func (m *memBound) tables() error {
	i := m.secs.find(4)
	if i < 0 {
		return nil
	}
	tr := &reader{b: m.secs[i].body}
	n := tr.u32()
	out := appendU32(nil, n)
	maxEntries := uint32(min(m.budget/tableEntryBytes, 1<<32-1))
	for k := uint32(0); k < n && tr.err == nil; k++ {
		t := tr.byte()
		if err := refType(t); err != nil && tr.err == nil {
			return err
		}
		flags := tr.byte()
		lo := tr.u32()
		hi := uint32(1<<32 - 1)
		if flags&1 != 0 {
			hi = tr.u32()
		}
		if flags > 1 && tr.err == nil {
			return fmt.Errorf("%w: table limits flags 0x%02x", errUnsupported, flags)
		}
		m.nTables++
		m.static += uint64(lo) * tableEntryBytes
		out = append(out, t, 1)
		out = appendU32(out, lo)
		out = appendU32(out, max(lo, min(hi, maxEntries)))
	}
	if tr.err != nil {
		return fmt.Errorf("table section: %w", tr.err)
	}
	m.secs[i].body = out
	return nil
}

// memories counts the defined memories.
func (m *memBound) memories() error {
	b := m.body(5)
	if b == nil {
		return nil
	}
	mr := &reader{b: b}
	n := mr.u32()
	for k := uint32(0); k < n && mr.err == nil; k++ {
		if err := m.addMemory(mr); err != nil {
			return err
		}
	}
	if mr.err != nil {
		return fmt.Errorf("memory section: %w", mr.err)
	}
	return nil
}

// counts refuses more than one memory and more than maxTables tables.
func (m *memBound) counts() error {
	switch {
	case m.nMems > 1:
		return fmt.Errorf("%w: %d memories", errUnsupported, m.nMems)
	case m.nTables > maxTables:
		return fmt.Errorf("%w: %d tables (at most %d)", errUnsupported, m.nTables, maxTables)
	}
	return nil
}

// globalsAndElements counts what globals and element segments allocate.
func (m *memBound) globalsAndElements() error {
	if b := m.body(6); b != nil {
		gr := &reader{b: b}
		m.static += uint64(gr.u32()) * globalCost
	}
	if b := m.body(9); b != nil {
		n, err := elemEntries(b)
		if err != nil {
			return fmt.Errorf("element section: %w", err)
		}
		m.static += n * tableEntryBytes
	}
	return nil
}

// exports refuses a module that exports the rewriter's own function name.
func (m *memBound) exports() error {
	b := m.body(7)
	if b == nil {
		return nil
	}
	er := &reader{b: b}
	n := er.u32()
	for k := uint32(0); k < n && er.err == nil; k++ {
		if er.name() == limitExport {
			return fmt.Errorf("%w: the module exports %s itself, which only the rewriter may add", errUnsupported, limitExport)
		}
		er.byte()
		er.u32()
	}
	if er.err != nil {
		return fmt.Errorf("export section: %w", er.err)
	}
	return nil
}

// declared refuses a module whose declarations alone pass the budget.
func (m *memBound) declared() error {
	if m.static > m.budget {
		return fmt.Errorf("%w: its declarations (memory, tables, element segments, globals) take %d MiB at instantiation", errOverBudget, (m.static+1<<20-1)>>20)
	}
	return nil
}

// checkGrows puts a check before every table.grow and memory.grow of the
// code, and appends the function a failed check calls when one is needed.
// It reports whether the code has a table.grow.
func (m *memBound) checkGrows() (bool, error) {
	params, err := readTypes(m.body(1))
	if err != nil {
		return false, fmt.Errorf("type section: %w", err)
	}
	var types []uint32
	if b := m.body(3); b != nil {
		fr := &reader{b: b}
		n := fr.u32()
		for k := uint32(0); k < n && fr.err == nil; k++ {
			types = append(types, fr.u32())
		}
		if fr.err != nil {
			return false, fmt.Errorf("function section: %w", fr.err)
		}
	}
	g := &growCheck{budget: m.budget, tables: uint32(m.nTables), memory: m.hasMemory, limit: m.nFuncImports + uint32(len(types))}
	ci := m.secs.find(10)
	code, err := g.rewriteCode(m.secs[ci].body, types, params)
	if err != nil {
		return false, fmt.Errorf("code section: %w", err)
	}
	m.secs[ci].body = code
	if g.grows {
		m.appendLimit(g.limit, uint32(len(params)), uint32(len(types)))
	}
	return g.grows, nil
}

// appendLimit appends the function a failed check calls: () -> (), body
// unreachable (its listener fails the call first), exported as
// limitExport. limitType is the index its new type gets, defined the
// count of functions the module defines.
func (m *memBound) appendLimit(limit, limitType, defined uint32) {
	for _, id := range []byte{1, 3, 7} {
		m.secs.ensure(id)
	}
	for i := range m.secs {
		s := &m.secs[i]
		switch s.id {
		case 1:
			s.body = appendVec(s.body, leb32Len(s.body), limitType+1, []byte{0x60, 0x00, 0x00})
		case 3:
			s.body = appendVec(s.body, leb32Len(s.body), defined+1, appendU32(nil, limitType))
		case 7:
			cnt := (&reader{b: s.body}).u32()
			exp := append(appendName(nil, limitExport), 0x00)
			s.body = appendVec(s.body, leb32Len(s.body), cnt+1, appendU32(exp, limit))
		case 10:
			s.body = appendVec(s.body, leb32Len(s.body), defined+1, []byte{3, 0, 0x00, 0x0b})
		}
	}
}

// elemEntries counts the entries of every element segment.
func elemEntries(b []byte) (uint64, error) {
	r := &reader{b: b}
	n := r.u32()
	var total uint64
	for k := uint32(0); k < n && r.err == nil; k++ {
		flags := r.u32()
		if flags > 7 {
			return 0, fmt.Errorf("element segment flags %d", flags)
		}
		if flags == 2 || flags == 6 {
			r.u32()
		}
		if flags&1 == 0 {
			if _, err := rewriteExpr(r, func(f uint32) uint32 { return f }); err != nil {
				return 0, err
			}
		}
		if flags&3 != 0 { // elemkind 0, or a reftype (flags&4)
			if k := r.byte(); flags&4 != 0 && r.err == nil {
				if err := refType(k); err != nil {
					return 0, err
				}
			}
		}
		cnt := r.u32()
		total += uint64(cnt)
		for j := uint32(0); j < cnt && r.err == nil; j++ {
			if flags&4 == 0 {
				r.u32()
			} else if _, err := rewriteExpr(r, func(f uint32) uint32 { return f }); err != nil {
				return 0, err
			}
		}
	}
	return total, r.err
}

func rebuild(header []byte, secs []section) []byte {
	size := len(header)
	for _, s := range secs {
		size += 6 + len(s.body)
	}
	out := append(make([]byte, 0, size), header...)
	for _, s := range secs {
		out = append(out, s.id)
		out = appendU32(out, uint32(len(s.body)))
		out = append(out, s.body...)
	}
	return out
}

// boundErr is the refusal of a module boundMemory refused.
func (p *Plugin) boundErr(err error) error {
	c := p.eng.cfg
	switch {
	case errors.Is(err, errOverBudget):
		return loadErr(abi.CodeResourceLimit, "plugin %s: %v, over the %d MiB memory limit (%s, which counts linear memory and tables): have the plugin declare less, or raise %s", p.Name, err, c.MemoryPages/16, c.MemoryKey, c.MemoryKey)
	case errors.Is(err, errUnsupported):
		return loadErr(abi.CodeRefused, "plugin %s cannot be run within a memory limit: %v: build it without that feature (wasmwright runs WebAssembly 2.0 with one 32-bit memory and at most %d tables)", p.Name, err, maxTables)
	}
	return loadErr(abi.CodeInputInvalid, "plugin %s: malformed wasm: %v", p.Name, err)
}
