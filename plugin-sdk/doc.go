// Package sdk is the kit for writing wasmwright plugins in Go.
//
// A plugin is a Go main package built with
//
//	GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o plugin.wasm .
//
// It registers its tools and hooks in an init function (a c-shared module
// never runs main, but main must exist):
//
//	type Args struct {
//		HTML string `json:"html" desc:"the page's HTML"`
//	}
//
//	func init() {
//		sdk.Plugin("extract_links", "1.0.0", "links of an HTML page")
//		sdk.Tool("extract_links", "Lists the links of an HTML page with their text.",
//			func(c *sdk.Call, in Args) (*abi.Result, error) { ... })
//	}
//
//	func main() {}
//
// The SDK writes the exports for you: describe, call, hook and self_test in
// the Extism convention (through the Extism kernel imports, which this package
// declares itself because extism's go-pdk cannot be fetched here), and the
// ww_* fast path the wasmwright host prefers, which moves input and output
// with one memory copy. Tool input schemas are derived from Go types (see
// SchemaOf). Host functions are typed Go calls (HostInfo, EmitEvent,
// MaskValues, Fetch...); a plugin imports only those it calls, and the host
// refuses to load a plugin whose imports need more than its manifest
// declares with Needs.
//
// Errors with a code: return abi.Errorf(abi.CodeInputInvalid, "...") from a
// handler. Any other error becomes execution_failed. A panic becomes a trap,
// and the host discards that instance.
package sdk
