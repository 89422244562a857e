// Command undeclared imports a host function needing "events" without
// declaring it: the host must refuse to link it.
package main

import (
	"github.com/wasmwright/wasmwright/abi"
	sdk "github.com/wasmwright/wasmwright/plugin-sdk"
)

func init() {
	sdk.Plugin("undeclared", "1.0.0", "imports more than it declares")
	sdk.Tool("emit", "emits", func(c *sdk.Call, _ struct{}) (*abi.Result, error) {
		return nil, sdk.EmitEvent("x", nil)
	})
}

func main() {}
