package sdk

import "github.com/wasmwright/wasmwright/abi"

// VaultFill fills a stored credential, by name, into fields of the current
// page named by refs. The plugin never sees the values: the host checks the
// credential's policy (personality, attended, origin of the page and of
// each field's frame, field types) and fills inside the kernel. A refusal
// carries the outcome in Details["outcome"]. Needs vault.fill.
func VaultFill(req abi.VaultFillRequest) (abi.VaultFillResponse, error) {
	return hostCall[abi.VaultFillResponse](vaultFill, req)
}
