//go:build wasip1

package sdk

import (
	"unsafe"

	"github.com/wasmwright/wasmwright/abi"
)

// The fast path: the host writes the input straight into a buffer of ours
// (ww_alloc, called again only when the input outgrows it), calls ww_call,
// and reads the output where ww_call's result points. One export call and
// one copy each way per round trip, instead of one cross-module call per 8
// bytes through the Extism kernel.

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
	// The host asks again when an input outgrows the buffer, or to shrink it
	// after a large one; either way a fresh buffer of exactly n bytes.
	if n == 0 {
		n = 1
	}
	inBuf = make([]byte, n)
	return int32(uintptr(unsafe.Pointer(&inBuf[0])))
}

//go:wasmexport ww_call
func fastCall(op, ptr, n int32) int64 {
	var in []byte
	if n > 0 {
		if int(n) > len(inBuf) || ptr != int32(uintptr(unsafe.Pointer(&inBuf[0]))) {
			return pack(errorJSON(abi.Errorf(abi.CodePluginFailed, "ww_call: input is not the buffer ww_alloc returned")), abi.StatusError)
		}
		in = inBuf[:n]
	}
	out, isErr := handle(op, in)
	if isErr {
		return pack(out, abi.StatusError)
	}
	return pack(out, abi.StatusOK)
}

// pack keeps out alive until the next call and encodes where it is.
func pack(out []byte, status int32) int64 {
	outBuf = out
	p, n := ptrLen(out)
	return int64(abi.PackOutput(p, n, status))
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
