// Command testhooks fills the detect and compact roles in the simplest checkable
// way, for the host's pipeline tests: detect fails a page titled "WALL",
// compact upper-cases the snapshot (testmask is the masker).
// Built with -ldflags "-X main.failSelfTest=yes" it fails its self-test.
package main

import (
	"errors"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
	sdk "github.com/wasmwright/wasmwright/plugin-sdk"
)

var failSelfTest = ""

func init() {
	sdk.Plugin("testhooks", "1.0.0", "test hooks")
	sdk.Hook(hook, abi.HookDetect, abi.HookCompact)
	sdk.SelfTest(func() error {
		if failSelfTest != "" {
			return errors.New("deliberately failing self-test")
		}
		return nil
	})
}

func hook(c *sdk.Call, req *abi.HookRequest) (*abi.HookResponse, error) {
	switch req.Role {
	case abi.HookDetect:
		if req.Result.Page.Title == "WALL" {
			return &abi.HookResponse{Error: abi.Errorf(abi.CodeBotWall, "test wall at %s", req.Result.Page.URL)}, nil
		}
	case abi.HookCompact:
		r := *req.Result
		r.Snapshot = strings.ToUpper(r.Snapshot)
		return &abi.HookResponse{Result: &r}, nil
	}
	return nil, nil
}

func main() {}
