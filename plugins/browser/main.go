// Command browser is wasmwright's browser tool set: the browser_* tools an
// agent calls, built only from plugin-sdk like any third-party plugin.
//
// The host holds the power (a real Chromium per personality and session,
// refs, files); this plugin holds the tool logic: argument shaping,
// defaults, and the wording agents read. Every tool that may change the
// page returns the page's new snapshot in Result.Snapshot.
//
// Each file declares its tools in its init: a tool's description, its
// arguments (their struct, whose tags are its input schema) and its
// handler stand together in that file.
//
// Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o browser.wasm .
package main

import (
	"github.com/wasmwright/wasmwright/abi"
	sdk "github.com/wasmwright/wasmwright/plugin-sdk"
)

const (
	read = "browser.read"
	act  = "browser.act"
	eval = "browser.eval"
)

func init() {
	sdk.Plugin("browser", "1.0.0", "Drive a real Chromium browser: navigate, read pages as ARIA snapshots with refs, click, type, fill forms, and inspect.")
	sdk.Needs(read, act, eval)
	// Snapshots, page facts and screenshots are only passed through: take
	// them as blob tokens, so they never cross the sandbox.
	sdk.Features(abi.FeatureBlobs)
}

func main() {}
