package sandbox

import (
	"errors"
	"fmt"
)

// Import is one function a module imports.
type Import struct{ Module, Name string }

// moduleInfo is what the host reads from a .wasm before compiling it: its
// imports (to derive the capabilities it needs) and its exports (to refuse a
// plugin that lacks one, with the name, rather than fail at call time).
type moduleInfo struct {
	Imports []Import
	Exports map[string]bool
}

var errNotWasm = errors.New("not a WebAssembly module (bad magic or version)")

// readModuleInfo parses the import and export sections of a wasm binary. It
// reads only section headers and those two sections; the compiler validates
// the rest.
func readModuleInfo(b []byte) (*moduleInfo, error) {
	if len(b) < 8 || string(b[:4]) != "\x00asm" || b[4] != 1 || b[5] != 0 || b[6] != 0 || b[7] != 0 {
		return nil, errNotWasm
	}
	info := &moduleInfo{Exports: map[string]bool{}}
	r := &reader{b: b, p: 8}
	for r.p < len(b) {
		id := r.byte()
		size := r.u32()
		if r.err != nil {
			return nil, r.err
		}
		end := r.p + int(size)
		if end > len(b) || end < r.p {
			return nil, fmt.Errorf("section %d overruns the module", id)
		}
		sec := &reader{b: b[:end], p: r.p}
		switch id {
		case 2:
			n := sec.u32()
			for i := uint32(0); i < n && sec.err == nil; i++ {
				mod, name, kind := sec.name(), sec.name(), sec.byte()
				switch kind {
				case 0: // func
					sec.u32()
					info.Imports = append(info.Imports, Import{mod, name})
				case 1: // table
					sec.byte()
					sec.limits()
				case 2: // memory
					sec.limits()
				case 3: // global
					sec.byte()
					sec.byte()
				default:
					return nil, fmt.Errorf("import %s.%s has unknown kind %d", mod, name, kind)
				}
			}
		case 7:
			n := sec.u32()
			for i := uint32(0); i < n && sec.err == nil; i++ {
				name, kind := sec.name(), sec.byte()
				sec.u32()
				if kind == 0 {
					info.Exports[name] = true
				}
			}
		}
		if sec.err != nil {
			return nil, fmt.Errorf("section %d: %w", id, sec.err)
		}
		r.p = end
	}
	return info, nil
}

type reader struct {
	b   []byte
	p   int
	err error
}

var errShort = errors.New("unexpected end of module")

func (r *reader) byte() byte {
	if r.err != nil || r.p >= len(r.b) {
		r.err = errShort
		return 0
	}
	c := r.b[r.p]
	r.p++
	return c
}

func (r *reader) u32() uint32 {
	var v uint32
	for shift := 0; shift < 35; shift += 7 {
		c := r.byte()
		if r.err != nil {
			return 0
		}
		v |= uint32(c&0x7f) << shift
		if c&0x80 == 0 {
			return v
		}
	}
	r.err = errors.New("LEB128 integer too long")
	return 0
}

func (r *reader) name() string {
	n := int(r.u32())
	if r.err != nil {
		return ""
	}
	if n > len(r.b)-r.p {
		r.err = errShort
		return ""
	}
	s := string(r.b[r.p : r.p+n])
	r.p += n
	return s
}

func (r *reader) limits() {
	flags := r.byte()
	r.u32()
	if flags&1 != 0 {
		r.u32()
	}
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

// appendS32 appends v as a signed LEB128 (an i32.const immediate): the
// same bytes as the value widened to 64 bits.
func appendS32(b []byte, v int32) []byte { return appendSLEB64(b, int64(v)) }

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
