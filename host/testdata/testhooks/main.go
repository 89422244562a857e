// Command testhooks fills the detect and compact roles in the simplest checkable
// way, for the host's pipeline tests: detect fails a page titled "WALL",
// compact upper-cases the snapshot (testmask is the masker).
// It flags a Cloudflare challenge too (the host's self-test wall).
// Built with -ldflags "-X main.failSelfTest=yes" it fails its self-test.
// Built with -X main.broken=panic|loop|garbage|blind its detector panics,
// loops forever, answers an unknown code or flags nothing; with
// -X main.brokenOn=TEXT it does so only on pages whose title holds TEXT,
// so it passes the host's self-test and fails live. With
// -X main.ownCase=wrong it ships a self-test case it fails.
package main

import (
	"errors"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
	sdk "github.com/wasmwright/wasmwright/plugin-sdk"
)

var failSelfTest, broken, brokenOn, ownCase = "", "", "", ""

func init() {
	sdk.Plugin("testhooks", "1.0.0", "test hooks")
	sdk.Hook(hook, abi.HookDetect, abi.HookCompact)
	sdk.SelfTest(func() error {
		if failSelfTest != "" {
			return errors.New("deliberately failing self-test")
		}
		return nil
	})
	want := abi.CodeBotWall
	if ownCase == "wrong" {
		want = ""
	}
	sdk.SelfTestCases(abi.SelfTestCase{Name: "a page titled WALL", Role: abi.HookDetect, Want: want,
		Result: &abi.Result{Page: &abi.Page{URL: "http://wall.test/", Title: "WALL"}}})
}

func hook(c *sdk.Call, req *abi.HookRequest) (*abi.HookResponse, error) {
	switch req.Role {
	case abi.HookDetect:
		pg := req.Result.Page
		if broken != "" && strings.Contains(pg.Title, brokenOn) {
			switch broken {
			case "panic":
				panic("detector bug")
			case "loop":
				for n := 0; ; n++ {
					pg.Title = strings.Repeat("x", n%7)
				}
			case "garbage":
				return &abi.HookResponse{Error: &abi.Error{Code: "ok", Message: "looks fine"}}, nil
			case "blind":
				return nil, nil
			}
		}
		if strings.Contains(pg.Title, "WALL") || pg.Headers["cf-mitigated"] == "challenge" {
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
