package host

import (
	"context"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/spans"
)

// judgeDocument is the browser's gate asking the kernel for its verdict
// on one document (browser.Options.Judge): the personality's detector
// chain judges pg, the document's facts. Facts that could not be read
// (unread: a dialog was open, the page did not answer) are no verdict:
// the personality's detect_failure decides, as for a failed detector.
// The browser records the verdict on that document alone
// (hostfuncs/browser/gate.go): every read of it waits for it, and a
// withheld document stays withheld until a navigation leaves it or an
// operator hands the session back.
func (h *Host) judgeDocument(ctx context.Context, personality, session string, pg *abi.Page, unread error) (*abi.Error, []string) {
	defer spans.Start("h.judgeDocument")()
	p, err := h.roster.get(personality)
	if err != nil {
		return abi.AsError(err), nil
	}
	if len(p.cfg.Hooks.Detect) == 0 {
		return nil, nil
	}
	run := &hookRun{h: h, ctx: ctx, p: p, req: Request{Tool: "browser_document", Session: session}}
	res := &abi.Result{Page: pg}
	if pg != nil {
		res.Source = pg.URL
	}
	var failed []memberFailure
	var flag *abi.Error
	if unread != nil {
		failed = []memberFailure{{chainName(p), abi.Errorf(abi.CodeNotAvailable, "no verdict: %s", abi.AsError(unread).Message)}}
	} else {
		flag, failed = run.detect(res)
	}
	var warnings []string
	for _, f := range failed {
		out, e := detectFailed(p, f.name, res, f.err)
		if e != nil {
			return e, nil
		}
		warnings = out.Warnings
	}
	if flag != nil {
		h.log.Info("page withheld", "personality", personality, "session", session, "code", flag.Code, "vendor", flag.Details["vendor"])
		h.events.withheld(personality, session, flag)
	}
	return flag, warnings
}
