package host

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
)

// pipeline runs the personality's result hooks in order: detect on
// navigation results, compact on snapshots, mask last on everything. Then
// the host itself checks that no raw secret value of the session is left,
// and withholds the result if one is.
func (h *Host) pipeline(ctx context.Context, p *personality, req Request, res *abi.Result, err error) (*abi.Result, error) {
	var callErr *abi.Error
	if err != nil {
		callErr = abi.AsError(err)
	}
	hookReq := func(role abi.HookRole, res *abi.Result) *abi.HookRequest {
		_, takeover := p.tools["browser_takeover"]
		return &abi.HookRequest{Role: role, Tool: req.Tool, Session: req.Session, Args: req.Args, Result: res, Error: callErr, HasTakeover: takeover}
	}
	if r := p.hooks[abi.HookDetect]; r != nil && callErr == nil && res != nil && res.Page != nil {
		// A detector judges the page: it gets the result without the
		// snapshot and images, which it does not read and which would only
		// cost it decoding. Its result is never used, only its error.
		in := *res
		in.Snapshot, in.Images = "", nil
		resp, herr := h.hook(ctx, p, r, req.Session, hookReq(abi.HookDetect, &in))
		switch {
		case herr != nil:
			res.Warnings = append(res.Warnings, "bot-wall detection did not run: "+herr.Error())
		case resp.Error != nil:
			res, callErr = nil, resp.Error
		}
	}
	if r := p.hooks[abi.HookCompact]; r != nil && callErr == nil && res != nil && res.Snapshot != "" {
		// A compactor rewrites the snapshot: the page's text and HTML (the
		// detector's inputs, up to 80 KB) are kept out of its request and
		// put back on the result it returns.
		in := *res
		if res.Page != nil {
			pg := *res.Page
			pg.Text, pg.HTML = "", ""
			in.Page = &pg
		}
		resp, herr := h.hook(ctx, p, r, req.Session, hookReq(abi.HookCompact, &in))
		switch {
		case herr != nil:
			res.Warnings = append(res.Warnings, "snapshot compaction failed, full snapshot returned: "+herr.Error())
		case resp.Result != nil:
			if pg := resp.Result.Page; pg != nil && res.Page != nil {
				pg.Text, pg.HTML = res.Page.Text, res.Page.HTML
			}
			res = resp.Result
		}
	}
	values := h.secrets.Values(p.name, req.Session)
	if len(values) == 0 {
		return res, errOrNil(callErr)
	}
	if r := p.hooks[abi.HookMask]; r != nil {
		resp, herr := h.hook(ctx, p, r, req.Session, hookReq(abi.HookMask, res))
		if herr != nil {
			// Fail closed: without the masker, nothing leaves.
			return nil, abi.Errorf(abi.CodeSecretLeak, "the result was withheld because the secret masker failed (%s); the action itself may have run", herr.Message)
		}
		if resp.Result != nil {
			res = resp.Result
		}
		if resp.Error != nil && callErr != nil {
			callErr = resp.Error
		}
	}
	if leaked(values, res, callErr) {
		return nil, abi.Errorf(abi.CodeSecretLeak, "the result held a secret value of this session and was withheld; the action itself may have run: take a new snapshot to continue")
	}
	return res, errOrNil(callErr)
}

func errOrNil(e *abi.Error) error {
	if e == nil {
		return nil
	}
	return e
}

func (h *Host) hook(ctx context.Context, p *personality, r *route, session string, req *abi.HookRequest) (*abi.HookResponse, *abi.Error) {
	in, err := json.Marshal(req)
	if err != nil {
		return nil, abi.Errorf(abi.CodeExecutionFailed, "encoding hook request: %v", err)
	}
	out, _, err := h.invoke(ctx, p, r, session, "", abi.OpHook, in)
	if err != nil {
		e := abi.AsError(err)
		h.log.Warn("hook failed", "role", req.Role, "plugin", r.slot.Name, "code", e.Code, "err", e.Message)
		return nil, e
	}
	var resp abi.HookResponse
	if err := json.Unmarshal(out, &resp); err != nil {
		return nil, abi.Errorf(abi.CodePluginFailed, "hook plugin %s returned invalid JSON: %v", r.slot.Name, err)
	}
	return &resp, nil
}

// leaked reports whether any value appears raw, or JSON-escaped, in the
// encoded result or error.
func leaked(values []string, res *abi.Result, e *abi.Error) bool {
	var b []byte
	if res != nil {
		b, _ = json.Marshal(res)
	}
	if e != nil {
		eb, _ := json.Marshal(e)
		b = append(b, eb...)
	}
	s := string(b)
	for _, v := range values {
		esc, _ := json.Marshal(v)
		if strings.Contains(s, v) || strings.Contains(s, string(esc[1:len(esc)-1])) {
			return true
		}
	}
	return false
}
