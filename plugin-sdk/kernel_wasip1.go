//go:build wasip1

package sdk

import "unsafe"

// The Extism kernel imports (extism:host/env), declared here because
// extism's go-pdk is not obtainable. Offsets are in the kernel's memory, not
// ours; data crosses 8 bytes per call, which is why the host prefers the
// ww_* fast path in fast_wasip1.go.

//go:wasmimport extism:host/env input_length
func extismInputLength() uint64

//go:wasmimport extism:host/env input_load_u64
func extismInputLoadU64(offs uint64) uint64

//go:wasmimport extism:host/env input_load_u8
func extismInputLoadU8(offs uint64) uint32

//go:wasmimport extism:host/env alloc
func extismAlloc(n uint64) uint64

//go:wasmimport extism:host/env store_u64
func extismStoreU64(offs uint64, v uint64)

//go:wasmimport extism:host/env store_u8
func extismStoreU8(offs uint64, v uint32)

//go:wasmimport extism:host/env output_set
func extismOutputSet(offs, n uint64)

//go:wasmimport extism:host/env error_set
func extismErrorSet(offs uint64)

// extismInput reads the whole call input out of the kernel.
func extismInput() []byte {
	n := extismInputLength()
	buf := make([]byte, n)
	i := uint64(0)
	for ; i+8 <= n; i += 8 {
		*(*uint64)(unsafe.Pointer(&buf[i])) = extismInputLoadU64(i)
	}
	for ; i < n; i++ {
		buf[i] = byte(extismInputLoadU8(i))
	}
	return buf
}

// extismStore copies b into a new kernel block and returns its offset.
func extismStore(b []byte) uint64 {
	n := uint64(len(b))
	offs := extismAlloc(n)
	i := uint64(0)
	for ; i+8 <= n; i += 8 {
		extismStoreU64(offs+i, *(*uint64)(unsafe.Pointer(&b[i])))
	}
	for ; i < n; i++ {
		extismStoreU8(offs+i, uint32(b[i]))
	}
	return offs
}

func extismRun(op int32) int32 {
	var in []byte
	if op == 2 || op == 3 {
		in = extismInput()
	}
	out, isErr := handle(op, in)
	offs := extismStore(out)
	extismOutputSet(offs, uint64(len(out)))
	if isErr {
		// Plain Extism hosts read the error string; wasmwright reads the
		// structured error from the output.
		extismErrorSet(offs)
		return 1
	}
	return 0
}

//go:wasmexport describe
func exportDescribe() int32 { return extismRun(1) }

//go:wasmexport call
func exportCall() int32 { return extismRun(2) }

//go:wasmexport hook
func exportHook() int32 { return extismRun(3) }

//go:wasmexport self_test
func exportSelfTest() int32 { return extismRun(4) }
