package main

import (
	"encoding/json"

	"github.com/wasmwright/wasmwright/abi"
	sdk "github.com/wasmwright/wasmwright/plugin-sdk"
)

// takeover is the capability of browser_request_takeover. The host offers
// the tool only when a human can answer (the operator console runs).
const takeover = "takeover"

func init() {
	sdk.Needs(takeover)
	sdk.Tool("browser_request_takeover", descTakeover, requestTakeover, sdk.Requires(takeover, read), sdk.Title("Hand the browser to a human"), sdk.Risk(abi.RiskRead)) // the human acts, not the tool
}

const descTakeover = `Hand this browser session to a human operator and wait until they hand it back: for a CAPTCHA, a bot wall, an MFA prompt or a login only a person may do. reason (required) is shown to the operator verbatim: say exactly what they should do. timeout_s (default 900, at most 86400) bounds the wait.
While the human holds the browser, every other tool on this session answers not_available. Returns {"handed_back":true,"outcome":"user","url":...} and the page's snapshot when they hand it back, or outcome "cancel" when they decline; a timeout is an error: report the blockage to the user.`

type TakeoverArgs struct {
	Reason   string `json:"reason" desc:"what the human should do, shown to them verbatim"`
	TimeoutS int    `json:"timeout_s,omitempty" min:"1" max:"86400" desc:"seconds to wait for the hand-back (default 900)"`
}

func requestTakeover(c *sdk.Call, in TakeoverArgs) (*abi.Result, error) {
	r, err := sdk.RequestTakeover(abi.TakeoverRequest{Reason: in.Reason, TimeoutS: in.TimeoutS})
	if err != nil {
		return nil, err
	}
	b, _ := json.Marshal(r)
	res := &abi.Result{Text: string(b), Data: b}
	if r.HandedBack {
		if s, err := sdk.BrowserSnapshot(abi.BrowserSnapshotRequest{}); err == nil {
			res.Snapshot = s.Snapshot
			res.Warnings = s.State.Warnings
		}
	}
	return res, nil
}
