//go:build wasip1

package sdk

import (
	"unsafe"

	"github.com/wasmwright/wasmwright/abi"
)

// The fast path: the host writes the input straight into a buffer of ours
// (ww_alloc), calls ww_call, and reads the output where ww_output points. One
// copy each way instead of one cross-module call per 8 bytes.

var (
	inBuf  []byte
	outBuf []byte
)

//go:wasmexport ww_abi
func fastABI() int32 { return int32(abi.VersionMajor<<16 | abi.VersionMinor) }

//go:wasmexport ww_alloc
func fastAlloc(n int32) int32 {
	if n < 0 {
		return 0
	}
	if cap(inBuf) < int(n) || cap(inBuf) > 4*int(n)+(1<<20) {
		// Grow to fit; shrink a buffer far larger than needed so one big
		// call does not pin memory forever.
		inBuf = make([]byte, n)
	}
	inBuf = inBuf[:n]
	if n == 0 {
		return 0
	}
	return int32(uintptr(unsafe.Pointer(&inBuf[0])))
}

//go:wasmexport ww_call
func fastCall(op, ptr, n int32) int32 {
	var in []byte
	if n > 0 {
		if int(n) > len(inBuf) || ptr != int32(uintptr(unsafe.Pointer(&inBuf[0]))) {
			outBuf = errorJSON(abi.Errorf(abi.CodePluginFailed, "ww_call: input is not the buffer ww_alloc returned"))
			return abi.StatusError
		}
		in = inBuf[:n]
	}
	out, isErr := handle(op, in)
	outBuf = out
	if isErr {
		return abi.StatusError
	}
	return abi.StatusOK
}

//go:wasmexport ww_output
func fastOutput() int64 {
	if len(outBuf) == 0 {
		return 0
	}
	return int64(uintptr(unsafe.Pointer(&outBuf[0])))<<32 | int64(len(outBuf))
}

//go:wasmimport extism:host/user ww_host_take
func hostTake(dst uint32)

//go:wasmimport extism:host/user ww_log
func hostLog(level int32, ptr uint32, n uint32)

func ptrLen(b []byte) (uint32, uint32) {
	if len(b) == 0 {
		return 0, 0
	}
	return uint32(uintptr(unsafe.Pointer(&b[0]))), uint32(len(b))
}

// invoke runs one host-function import: the request goes out by pointer, the
// response comes back through ww_host_take into a buffer of the size the host
// announced.
func invoke(fn func(ptr, n uint32) uint64, req []byte) ([]byte, bool) {
	p, n := ptrLen(req)
	r := fn(p, n)
	status, size := uint32(r>>32), uint32(r)
	resp := make([]byte, size)
	if size > 0 {
		hostTake(uint32(uintptr(unsafe.Pointer(&resp[0]))))
	}
	return resp, status == 0
}

func logLine(level int32, msg string) {
	b := []byte(msg)
	p, n := ptrLen(b)
	hostLog(level, p, n)
}
