package sandbox

import (
	"bytes"
	"math"
	"testing"
)

// A small WebAssembly binary encoder for hand-built hostile modules (there
// is no wat2wasm here). Instructions are written as bytes with the helpers
// below; sections are emitted in canonical order.

const (
	tI32  = 0x7f
	tI64  = 0x7e
	tV128 = 0x7b
)

type wfunc struct {
	typ    uint32
	locals []byte // encoded local declarations, without their count
	nDecl  uint32
	code   []byte // instructions, without the final end
}

type wmod struct {
	types    [][]byte
	imports  [][]byte
	funcs    []wfunc
	memMin   uint32
	noMemory bool
	exports  [][]byte
	start    int // function index + 1; 0: none
	data     [][]byte
}

func functype(params, results []byte) []byte {
	b := []byte{0x60}
	b = appendU32(b, uint32(len(params)))
	b = append(b, params...)
	b = appendU32(b, uint32(len(results)))
	return append(b, results...)
}

func (m *wmod) typ(params, results []byte) uint32 {
	ft := functype(params, results)
	for i, t := range m.types {
		if string(t) == string(ft) {
			return uint32(i)
		}
	}
	m.types = append(m.types, ft)
	return uint32(len(m.types) - 1)
}

// importFunc adds a function import and returns its index; imports must be
// added before any function is defined.
func (m *wmod) importFunc(mod, name string, params, results []byte) uint32 {
	if len(m.funcs) > 0 {
		panic("imports first")
	}
	b := appendName(nil, mod)
	b = appendName(b, name)
	b = append(b, 0x00)
	b = appendU32(b, m.typ(params, results))
	m.imports = append(m.imports, b)
	return uint32(len(m.imports) - 1)
}

// fn defines a function and returns its index; code may be filled later
// through the returned index (see setCode).
func (m *wmod) fn(params, results []byte, code ...[]byte) uint32 {
	m.funcs = append(m.funcs, wfunc{typ: m.typ(params, results), code: cat(code...)})
	return uint32(len(m.imports) + len(m.funcs) - 1)
}

func (m *wmod) setCode(idx uint32, code ...[]byte) {
	m.funcs[int(idx)-len(m.imports)].code = cat(code...)
}

func (m *wmod) local(idx uint32, n uint32, t byte) {
	f := &m.funcs[int(idx)-len(m.imports)]
	f.locals = append(appendU32(f.locals, n), t)
	f.nDecl++
}

func (m *wmod) export(name string, kind byte, idx uint32) {
	b := appendName(nil, name)
	b = append(b, kind)
	m.exports = append(m.exports, appendU32(b, idx))
}

func (m *wmod) dataAt(off uint32, s []byte) {
	b := []byte{0x00, 0x41}
	b = appendS32(b, int32(off))
	b = append(b, 0x0b)
	b = appendU32(b, uint32(len(s)))
	m.data = append(m.data, append(b, s...))
}

func vec(items [][]byte) []byte {
	b := appendU32(nil, uint32(len(items)))
	for _, it := range items {
		b = append(b, it...)
	}
	return b
}

func sec(out []byte, id byte, body []byte) []byte {
	out = append(out, id)
	out = appendU32(out, uint32(len(body)))
	return append(out, body...)
}

func (m *wmod) bytes() []byte {
	out := []byte("\x00asm\x01\x00\x00\x00")
	if len(m.types) > 0 {
		out = sec(out, 1, vec(m.types))
	}
	if len(m.imports) > 0 {
		out = sec(out, 2, vec(m.imports))
	}
	if len(m.funcs) > 0 {
		var fs [][]byte
		for _, f := range m.funcs {
			fs = append(fs, appendU32(nil, f.typ))
		}
		out = sec(out, 3, vec(fs))
	}
	if !m.noMemory {
		out = sec(out, 5, cat([]byte{1, 0x00}, appendU32(nil, m.memMin)))
	}
	if len(m.exports) > 0 {
		out = sec(out, 7, vec(m.exports))
	}
	if m.start > 0 {
		out = sec(out, 8, appendU32(nil, uint32(m.start-1)))
	}
	if len(m.funcs) > 0 {
		var bodies [][]byte
		for _, f := range m.funcs {
			body := cat(appendU32(nil, f.nDecl), f.locals, f.code, []byte{0x0b})
			bodies = append(bodies, cat(appendU32(nil, uint32(len(body))), body))
		}
		out = sec(out, 10, vec(bodies))
	}
	if len(m.data) > 0 {
		out = sec(out, 11, vec(m.data))
	}
	return out
}

// Instruction helpers.

func cat(bs ...[]byte) []byte {
	var out []byte
	for _, b := range bs {
		out = append(out, b...)
	}
	return out
}

func i32c(v int32) []byte      { return appendS32([]byte{0x41}, v) }
func i64c(v int64) []byte      { return appendSLEB64([]byte{0x42}, v) }
func call(f uint32) []byte     { return appendU32([]byte{0x10}, f) }
func localGet(i uint32) []byte { return appendU32([]byte{0x20}, i) }
func loopForever(body ...[]byte) []byte {
	return cat([]byte{0x03, 0x40}, cat(body...), []byte{0x0c, 0x00, 0x0b}) // loop; body; br 0; end
}

var (
	opDrop       = []byte{0x1a}
	opI32Sub     = []byte{0x6b}
	opI32Eq      = []byte{0x46}
	opMemFill    = []byte{0xfc, 11, 0x00}
	opMemCopy    = []byte{0xfc, 10, 0x00, 0x00}
	opI8x16Add   = []byte{0xfd, 0x6e}
	opV128Const0 = append([]byte{0xfd, 0x0c}, make([]byte, 16)...)
)

// fastPlugin is a hand-built plugin speaking the ww_* fast path with no Go
// runtime: describe returns a fixed manifest with one tool, x, and a call
// runs the function work (() -> ()), then returns the i64 that result
// leaves on the stack (by default {"text":"ok"} at offset 2048).
type fastPlugin struct {
	m *wmod
	// hostInfo, take and log are the imported host functions' indices
	// (when withImports).
	hostInfo, take, log uint32
	work                uint32
	result              []byte
	alloc               uint32 // the function ww_alloc
}

const (
	fpManifestAt = 1024
	fpOKAt       = 2048
	fpInputAt    = 8192
)

var fpManifest = []byte(`{"name":"hostile","version":"1.0.0","abi":{"major":1,"minor":0},"description":"a hand-built hostile module","tools":[{"name":"x","description":"x","input_schema":{"type":"object"}}]}`)
var fpOK = []byte(`{"text":"ok"}`)

func packOut(ptr, n uint32, status int32) []byte {
	v := uint64(ptr)<<32 | uint64(status&1)<<31 | uint64(n&0x7fffffff)
	return i64c(int64(v))
}

// newFastPlugin starts a fast-path module; the caller fills work's code and
// may add functions, then calls build.
func newFastPlugin(withImports bool) *fastPlugin { return newFastPluginImporting(withImports, nil) }

// newFastPluginImporting also lets imports add more imports first.
func newFastPluginImporting(withImports bool, imports func(m *wmod)) *fastPlugin {
	m := &wmod{memMin: 1}
	fp := &fastPlugin{m: m, result: packOut(fpOKAt, uint32(len(fpOK)), 0)}
	if withImports {
		fp.hostInfo = m.importFunc("extism:host/user", "ww_host_info", []byte{tI32, tI32}, []byte{tI64})
		fp.take = m.importFunc("extism:host/user", "ww_host_take", []byte{tI32}, nil)
		fp.log = m.importFunc("extism:host/user", "ww_log", []byte{tI32, tI32, tI32}, nil)
	}
	if imports != nil {
		imports(m)
	}
	abiF := m.fn(nil, []byte{tI32}, i32c(1<<16))
	allocF := m.fn([]byte{tI32}, []byte{tI32}, i32c(fpInputAt))
	fp.alloc = allocF
	callF := m.fn([]byte{tI32, tI32, tI32}, []byte{tI64})
	fp.work = m.fn(nil, nil)
	m.export("memory", 2, 0)
	m.export("ww_abi", 0, abiF)
	m.export("describe", 0, abiF)
	m.export("ww_alloc", 0, allocF)
	m.export("ww_call", 0, callF)
	m.dataAt(fpManifestAt, fpManifest)
	m.dataAt(fpOKAt, fpOK)
	return fp
}

func (fp *fastPlugin) build() []byte {
	callF := uint32(len(fp.m.imports)) + 2
	fp.m.setCode(callF,
		localGet(0), i32c(1), opI32Eq, []byte{0x04, tI64}, // if (result i64)
		packOut(fpManifestAt, uint32(len(fpManifest)), 0),
		[]byte{0x05}, // else
		call(fp.work), fp.result,
		[]byte{0x0b})
	return fp.m.bytes()
}

// appendS32 and appendSLEB64 write signed LEB128: the sign bit of the last
// byte must match the value's sign (64 needs two bytes, -64 one).
func TestSignedLEB(t *testing.T) {
	for _, c := range []struct {
		v    int32
		want []byte
	}{
		{0, []byte{0x00}}, {63, []byte{0x3f}}, {64, []byte{0xc0, 0x00}}, {-64, []byte{0x40}}, {-65, []byte{0xbf, 0x7f}},
		{math.MaxInt32, []byte{0xff, 0xff, 0xff, 0xff, 0x07}}, {math.MinInt32, []byte{0x80, 0x80, 0x80, 0x80, 0x78}},
	} {
		if got := appendS32(nil, c.v); !bytes.Equal(got, c.want) {
			t.Errorf("appendS32(%d) = % x, want % x", c.v, got, c.want)
		}
	}
	if got, want := appendSLEB64(nil, math.MinInt64), []byte{0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x7f}; !bytes.Equal(got, want) {
		t.Errorf("appendSLEB64(MinInt64) = % x, want % x", got, want)
	}
}
