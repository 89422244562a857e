// Package abi is the versioned contract between the wasmwright host and its
// WebAssembly plugins: export names, host-function names with their request
// and response types, the closed set of error codes, and the ABI version with
// its acceptance rule.
//
// It imports only the standard library and compiles for the host and for
// GOOS=wasip1, so the host, the plugin SDK and third-party plugins share one
// definition. The wire format is specified in README.md beside this file.
package abi

import (
	"fmt"
	"strings"
)

// The ABI this package describes.
//
// History:
//   - 1.0 (2026-11-29): describe/call/hooks over the Extism kernel and the
//     ww_* direct-memory fast path; host functions as one import each.
const (
	VersionMajor = 1
	VersionMinor = 0
)

// Version returns the ABI version this package describes.
func Version() ABIVersion { return ABIVersion{Major: VersionMajor, Minor: VersionMinor} }

// ABIVersion is the version a plugin was built against.
type ABIVersion struct {
	Major int `json:"major"`
	Minor int `json:"minor"`
}

func (v ABIVersion) String() string { return fmt.Sprintf("%d.%d", v.Major, v.Minor) }

// Accept reports whether a host speaking host can run a plugin built for
// plugin: same major, and a minor no newer than the host's. The error says
// how to fix a refusal.
func Accept(host, plugin ABIVersion) error {
	switch {
	case plugin.Major == 0 && plugin.Minor == 0:
		return fmt.Errorf("plugin declares no ABI version: rebuild it against plugin-sdk v%d (abi %s)", host.Major, host)
	case plugin.Major != host.Major:
		return fmt.Errorf("plugin ABI %s is incompatible with host ABI %s: rebuild the plugin against plugin-sdk v%d", plugin, host, host.Major)
	case plugin.Minor > host.Minor:
		return fmt.Errorf("plugin ABI %s is newer than host ABI %s: upgrade wasmwright, or rebuild the plugin against plugin-sdk v%d.%d", plugin, host, host.Major, host.Minor)
	}
	return nil
}

// Plugin exports. Every plugin exports ExportDescribe and, for each role it
// fills, ExportCall or the hook exports. These follow the Extism convention
// (no parameters, an i32 status, input and output through the Extism kernel),
// so any Extism host can run them.
const (
	ExportDescribe = "describe"
	ExportCall     = "call"
	ExportHook     = "hook"      // input HookRequest, output HookResponse
	ExportSelfTest = "self_test" // input empty, output SelfTestReport; required for hooks
)

// The direct-memory fast path. A plugin built with plugin-sdk also exports
// these; the host prefers them because they move data with one memory copy
// instead of the Extism kernel's 8 bytes per cross-module call.
const (
	ExportFastABI   = "ww_abi"   // () -> i32: major<<16 | minor
	ExportFastAlloc = "ww_alloc" // (len i32) -> ptr i32: the input buffer, valid until the next ww_alloc
	ExportFastCall  = "ww_call"  // (op i32, ptr i32, len i32) -> i64: out_ptr<<32 | status<<31 | out_len
)

// PackOutput and UnpackOutput encode ww_call's result: where the output is
// in plugin memory, how long it is (under 2 GiB), and the status bit.
func PackOutput(ptr uint32, n uint32, status int32) uint64 {
	return uint64(ptr)<<32 | uint64(status&1)<<31 | uint64(n&0x7fffffff)
}

// UnpackOutput is the inverse of PackOutput.
func UnpackOutput(v uint64) (ptr, n uint32, status int32) {
	return uint32(v >> 32), uint32(v) & 0x7fffffff, int32(uint32(v) >> 31)
}

// Fast-path operations, the op argument of ww_call.
const (
	OpDescribe int32 = 1
	OpCall     int32 = 2
	OpHook     int32 = 3
	OpSelfTest int32 = 4
)

// Status values returned by call exports. Anything else is a plugin bug.
const (
	StatusOK    int32 = 0
	StatusError int32 = 1 // output is an Error as JSON
)

// HostModule is the import module of every host function. It is Extism's
// user namespace, so plugins built for Extism hosts link unchanged.
const HostModule = "extism:host/user"

// Base imports that every plugin may use without a grant.
const (
	ImportHostTake = "ww_host_take" // (dst i32): copy the pending host-call response into plugin memory
	ImportLog      = "ww_log"       // (level i32, ptr i32, len i32)
)

// Host functions come in two conventions with the same requests, responses,
// grants and errors (README.md):
//
//   - ww_NAME (req_ptr i32, req_len i32) -> i64, then ww_host_take: JSON in
//     the plugin's own memory; the fast path plugin-sdk uses.
//   - wwx_NAME (req u64) -> u64: Extism's standard host-function convention,
//     for any Extism PDK as is. req is the offset of a block in the Extism
//     kernel's memory holding the request JSON (0: an empty request); the
//     result is the offset of a new block holding the response JSON, or, on
//     failure, {"error": Error}. No response has a top-level "error" key.
const ExtismPrefix = "wwx_"

// ExtismName returns the Extism-convention name of the host function name
// (ww_browser_navigate: wwx_browser_navigate).
func ExtismName(name string) string { return ExtismPrefix + strings.TrimPrefix(name, "ww_") }

// CanonicalHostFunc returns the ww_ name of a host-function import in either
// convention, and whether it was in the Extism one.
func CanonicalHostFunc(name string) (string, bool) {
	if rest, ok := strings.CutPrefix(name, ExtismPrefix); ok {
		return "ww_" + rest, true
	}
	return name, false
}

// ExtismError is the response of a wwx_ host function that failed.
type ExtismError struct {
	Error *Error `json:"error"`
}

// HookRole names a stage of the result pipeline.
type HookRole string

const (
	HookDetect  HookRole = "detect"  // bot-wall detection on navigation results
	HookCompact HookRole = "compact" // snapshot compaction
	HookMask    HookRole = "mask"    // secret masking, always last
)

// hookRoles lists the roles in pipeline order. Unexported so that no
// importer can change what the host accepts; HookRoles returns a copy.
var hookRoles = [...]HookRole{HookDetect, HookCompact, HookMask}

// HookRoles lists the roles in pipeline order (a fresh copy).
func HookRoles() []HookRole { return append([]HookRole(nil), hookRoles[:]...) }

// Log levels for ww_log.
const (
	LogDebug int32 = 0
	LogInfo  int32 = 1
	LogWarn  int32 = 2
	LogError int32 = 3
)
