// Command humancheck is a third-party detector for one more vendor: it
// flags pages that ask the visitor to "verify you are human" and nothing
// else; it does not know Cloudflare's markers. It runs in a detector chain
// after one that does (the host's tests of hooks.detect chains).
package main

import (
	"strings"

	"github.com/wasmwright/wasmwright/abi"
	sdk "github.com/wasmwright/wasmwright/plugin-sdk"
)

func init() {
	sdk.Plugin("humancheck", "1.0.0", "flags 'verify you are human' pages")
	sdk.Hook(detect, abi.HookDetect)
	sdk.SelfTest(func() error { return nil })
	sdk.SelfTestCases(abi.SelfTestCase{Name: "a human check", Role: abi.HookDetect, Want: abi.CodeBotWall,
		Result: &abi.Result{Page: &abi.Page{URL: "http://check.test/", Title: "Please verify you are human"}}})
}

func detect(c *sdk.Call, req *abi.HookRequest) (*abi.HookResponse, error) {
	pg := req.Result.Page
	if strings.Contains(strings.ToLower(pg.Title+" "+pg.Text), "verify you are human") {
		return &abi.HookResponse{Error: abi.BotWall("HumanCheck", abi.WallCaptcha, pg, "verify you are human",
			"HumanCheck vendor wall at "+pg.URL+": the page was not read")}, nil
	}
	return nil, nil
}

func main() {}
