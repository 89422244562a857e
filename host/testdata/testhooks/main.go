// Command testhooks fills every pipeline role in the simplest checkable
// way, for the host's pipeline tests: detect fails a page titled "WALL",
// compact upper-cases the snapshot, mask replaces the session's secrets.
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
	sdk.Needs("secrets.mask")
	sdk.Hook(hook, abi.HookDetect, abi.HookCompact, abi.HookMask)
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
	case abi.HookMask:
		values, err := sdk.MaskValues(req.Session)
		if err != nil {
			return nil, err
		}
		resp := &abi.HookResponse{}
		if req.Result != nil {
			r := *req.Result
			for _, v := range values {
				r.Text = strings.ReplaceAll(r.Text, v, "••••••")
				r.Snapshot = strings.ReplaceAll(r.Snapshot, v, "••••••")
			}
			resp.Result = &r
		}
		if req.Error != nil {
			e := *req.Error
			for _, v := range values {
				e.Message = strings.ReplaceAll(e.Message, v, "••••••")
			}
			resp.Error = &e
		}
		return resp, nil
	}
	return nil, nil
}

func main() {}
