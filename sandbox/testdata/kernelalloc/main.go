// Command kernelalloc is a plugin written against the bare Extism kernel
// that allocates through it: the kernel's memory is a second linear
// memory per instance, which the host's memory limit and its host-wide
// budget must count (sandbox/membudget.go). Its one tool, hold, takes
// {"own_mb": A, "kernel_mb": B}: it touches A MiB of its own memory and B
// MiB of blocks the kernel allocates, then calls ww_host_info (where a
// test holds it while other calls run) and answers "held" or, when the
// kernel refused a block, a coded error.
package main

import (
	"encoding/json"
	"unsafe"
)

//go:wasmimport extism:host/env input_length
func inputLength() uint64

//go:wasmimport extism:host/env input_load_u8
func inputLoadU8(offs uint64) uint32

//go:wasmimport extism:host/env alloc
func alloc(n uint64) uint64

//go:wasmimport extism:host/env store_u8
func storeU8(offs uint64, v uint32)

//go:wasmimport extism:host/env store_u64
func storeU64(offs uint64, v uint64)

//go:wasmimport extism:host/env output_set
func outputSet(offs, n uint64)

//go:wasmimport extism:host/user wwx_host_info
func hostInfo(req uint64) uint64

func output(s string) {
	offs := alloc(uint64(len(s)))
	for i := 0; i < len(s); i++ {
		storeU8(offs+uint64(i), uint32(s[i]))
	}
	outputSet(offs, uint64(len(s)))
}

//go:wasmexport describe
func describe() int32 {
	output(`{"name":"kernelalloc","version":"0.1.0","abi":{"major":1,"minor":0},` +
		`"tools":[{"name":"hold","description":"allocates through the kernel and holds it","input_schema":{"type":"object"}}]}`)
	return 0
}

// own is kept reachable so the Go memory stays in use until the call ends.
var own []byte

//go:wasmexport call
func call() int32 {
	n := inputLength()
	in := make([]byte, n)
	for i := range in {
		in[i] = byte(inputLoadU8(uint64(i)))
	}
	// Skip the frame header: u32 length, then that many bytes.
	h := *(*uint32)(unsafe.Pointer(&in[0]))
	var args struct {
		OwnMB    int `json:"own_mb"`
		KernelMB int `json:"kernel_mb"`
	}
	if err := json.Unmarshal(in[4+h:], &args); err != nil {
		output(`{"code":"input_invalid","message":"hold takes {\"own_mb\":A,\"kernel_mb\":B}"}`)
		return 1
	}
	own = make([]byte, args.OwnMB<<20)
	for i := 0; i < len(own); i += 4096 {
		own[i] = 1
	}
	// Blocks of 1 MiB: the kernel grows its memory as they come.
	for k := 0; k < args.KernelMB; k++ {
		offs := alloc(1 << 20)
		if offs == 0 {
			output(`{"code":"resource_limit","message":"the kernel refused a block"}`)
			return 1
		}
		for i := uint64(0); i < 1<<20; i += 4096 {
			storeU64(offs+i, i)
		}
	}
	hostInfo(0)
	own = nil
	output(`{"text":"held"}`)
	return 0
}

func main() {}
