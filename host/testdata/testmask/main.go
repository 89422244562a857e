// Command testmask is the simplest masker, for the host's pipeline tests: it
// replaces the session's secret values with dots. A plugin that sees secret
// values may fill only the mask hook (capability.maskerOnly), so this is
// its own plugin, apart from testhooks.
package main

import (
	"strings"

	"github.com/wasmwright/wasmwright/abi"
	sdk "github.com/wasmwright/wasmwright/plugin-sdk"
)

func init() {
	sdk.Plugin("testmask", "1.0.0", "test masker")
	sdk.Needs("secrets.mask")
	sdk.Hook(hook, abi.HookMask)
}

func hook(c *sdk.Call, req *abi.HookRequest) (*abi.HookResponse, error) {
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

func main() {}
