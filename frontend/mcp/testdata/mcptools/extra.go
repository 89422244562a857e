//go:build extra

package main

import (
	"github.com/wasmwright/wasmwright/abi"
	sdk "github.com/wasmwright/wasmwright/plugin-sdk"
)

// Built with -tags extra: a second version with one more tool, for the hot
// swap test.
func init() {
	sdk.Tool("extra", "only in the second version", func(c *sdk.Call, _ none) (*abi.Result, error) {
		return &abi.Result{Text: "extra"}, nil
	})
}
