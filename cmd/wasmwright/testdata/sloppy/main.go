// Command sloppy is a plugin that loads but does not conform: its manifest
// has a key the schema does not know ("tool") and declares a capability
// that does not exist. `wasmwright plugins verify FILE` must say both.
package main

//go:wasmimport extism:host/env alloc
func alloc(n uint64) uint64

//go:wasmimport extism:host/env store_u8
func storeU8(offs uint64, v uint32)

//go:wasmimport extism:host/env output_set
func outputSet(offs, n uint64)

//go:wasmexport describe
func describe() int32 {
	s := `{"name":"sloppy","version":"0.1.0","abi":{"major":1,"minor":0},"capabilities":["teleport"],"tool":[]}`
	offs := alloc(uint64(len(s)))
	for i := 0; i < len(s); i++ {
		storeU8(offs+uint64(i), uint32(s[i]))
	}
	outputSet(offs, uint64(len(s)))
	return 0
}

func main() {}
