//go:build !wasip1

package sdk

import "github.com/wasmwright/wasmwright/abi"

// Off wasm (unit tests of plugin logic on the host) there is no host to
// call: every host function answers not_available.

var notAvailable = []byte(`{"code":"not_available","message":"no wasmwright host: this code runs outside the sandbox"}`)

func invoke(fn func(ptr, n uint32) uint64, req []byte) ([]byte, bool) { return notAvailable, false }

func logLine(level int32, msg string) {}

func hostInfo(ptr, n uint32) uint64          { return 0 }
func eventsEmit(ptr, n uint32) uint64        { return 0 }
func secretsMaskValues(ptr, n uint32) uint64 { return 0 }
func networkFetch(ptr, n uint32) uint64      { return 0 }

var _ = abi.Version()
