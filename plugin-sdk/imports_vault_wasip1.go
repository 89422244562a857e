//go:build wasip1

package sdk

//go:wasmimport extism:host/user ww_vault_fill
func vaultFill(ptr, n uint32) uint64
