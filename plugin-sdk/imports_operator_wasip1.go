//go:build wasip1

package sdk

//go:wasmimport extism:host/user ww_takeover_request
func takeoverRequest(ptr, n uint32) uint64
