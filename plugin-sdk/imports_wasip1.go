//go:build wasip1

package sdk

// One import per host function: the linker keeps only those a plugin calls,
// so a plugin's imports say exactly which capabilities it uses.

//go:wasmimport extism:host/user ww_host_info
func hostInfo(ptr, n uint32) uint64

//go:wasmimport extism:host/user ww_events_emit
func eventsEmit(ptr, n uint32) uint64

//go:wasmimport extism:host/user ww_secrets_mask_values
func secretsMaskValues(ptr, n uint32) uint64

//go:wasmimport extism:host/user ww_network_fetch
func networkFetch(ptr, n uint32) uint64
