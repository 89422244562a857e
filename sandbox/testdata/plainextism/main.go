// Command plainextism is a plugin written against the bare Extism kernel,
// without plugin-sdk: the host must run it through Extism's own calling
// convention. Built with -ldflags "-X main.abiMinor=9" it claims an ABI newer
// than the host's, which the host must refuse.
package main

import (
	"strings"
	"unsafe"
)

var abiMinor = "0"

//go:wasmimport extism:host/env input_length
func inputLength() uint64

//go:wasmimport extism:host/env input_load_u8
func inputLoadU8(offs uint64) uint32

//go:wasmimport extism:host/env alloc
func alloc(n uint64) uint64

//go:wasmimport extism:host/env store_u8
func storeU8(offs uint64, v uint32)

//go:wasmimport extism:host/env output_set
func outputSet(offs, n uint64)

func output(s string) {
	offs := alloc(uint64(len(s)))
	for i := 0; i < len(s); i++ {
		storeU8(offs+uint64(i), uint32(s[i]))
	}
	outputSet(offs, uint64(len(s)))
}

//go:wasmexport describe
func describe() int32 {
	output(`{"name":"plainextism","version":"0.1.0","abi":{"major":1,"minor":` + abiMinor + `},` +
		`"tools":[{"name":"upper","description":"upper-cases the frame body","input_schema":{"type":"object"}}]}`)
	return 0
}

//go:wasmexport call
func call() int32 {
	n := inputLength()
	in := make([]byte, n)
	for i := range in {
		in[i] = byte(inputLoadU8(uint64(i)))
	}
	// Skip the frame header: u32 length, then that many bytes.
	h := *(*uint32)(unsafe.Pointer(&in[0]))
	body := string(in[4+h:])
	output(`{"text":` + strings.ToUpper(body) + `}`)
	return 0
}

func main() {}
