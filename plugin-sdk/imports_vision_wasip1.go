//go:build wasip1

package sdk

//go:wasmimport extism:host/user ww_vision_locate
func visionLocate(ptr, n uint32) uint64
