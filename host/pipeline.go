package host

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/host/pluginset"
	"github.com/wasmwright/wasmwright/internal/snapactive"
	"github.com/wasmwright/wasmwright/internal/spans"
)

// pipeline runs the personality's result hooks in order: detect on
// navigation results, compact on snapshots, mask last on everything. Then
// the host itself checks that no raw secret value of the session is left,
// and withholds the result if one is.
func (h *Host) pipeline(ctx context.Context, p *personality, req Request, res *abi.Result, err error) (*abi.Result, error) {
	defer spans.Start("h.pipeline")()
	run := &hookRun{h: h, ctx: ctx, p: p, req: req}
	if err != nil {
		run.callErr = abi.AsError(err)
	}
	// A snapshot asked for uncompacted (args.full) is given as the browser
	// took it, only to a personality that allows it (or has no compactor).
	full := viewOf(req.Args).Full && run.callErr == nil && res != nil && res.Snapshot != ""
	if full && !p.cfg.FullSnapshots && p.hooks[abi.HookCompact] != nil {
		res, run.callErr = nil, abi.Errorf(abi.CodeRefused, "personality %s does not give full snapshots (full_snapshots is not set in its config): call without full; use links or link_filter for link URLs, or a ref to unfold a part", p.name)
	}
	res = run.detectAndCompact(res, full)
	res = withoutPageText(res)
	values := h.secrets.Values(p.name, req.Session)
	if len(values) == 0 {
		return h.baselines.view(p, req, res, nil, run.callErr), errOrNil(run.callErr)
	}
	return run.mask(res, values)
}

// hookRun is one call's pass through the pipeline: the call, and its
// error as the hooks so far have left it.
type hookRun struct {
	h       *Host
	ctx     context.Context
	p       *personality
	req     Request
	callErr *abi.Error
}

// request is what a hook of the personality gets for this call.
func (run *hookRun) request(role abi.HookRole, res *abi.Result) *abi.HookRequest {
	return &abi.HookRequest{Role: role, Tool: run.req.Tool, Session: run.req.Session, Args: run.req.Args, Result: res, Error: run.callErr, HasTakeover: run.p.hasTakeover()}
}

// usesBrowser reports whether the call's tool holds a browser grant.
func (run *hookRun) usesBrowser() bool {
	r := run.p.tools[run.req.Tool]
	return r != nil && usesBrowser(r.grants)
}

// detectAndCompact runs the detector and the compactor. They read
// disjoint parts of the result and do not depend on each other, so they
// run side by side; a wall discards the compacted snapshot.
func (run *hookRun) detectAndCompact(res *abi.Result, full bool) *abi.Result {
	p, callErr := run.p, run.callErr
	// A page result of a personality with detectors is judged by its
	// chain; a detector that is not loaded is a failed detector. A
	// browser tool's pages were judged already, each document by the
	// browser's gate before any of it reached the tool (judgeDocument):
	// the result carries nothing the gate did not pass.
	judge := len(p.cfg.Hooks.Detect) > 0 && callErr == nil && res != nil && res.Page != nil && !run.usesBrowser()
	compact := p.hooks[abi.HookCompact]
	if compact == nil || callErr != nil || res == nil || res.Snapshot == "" || full {
		compact = nil
	}
	var (
		wg               sync.WaitGroup
		compResp         *abi.HookResponse
		compactErr, flag *abi.Error
		failed           []memberFailure
	)
	if judge {
		// A detector judges the page: it gets the result without the
		// snapshot and images, which it does not read and which would only
		// cost it decoding. Its result is never used, only its error.
		in := *res
		in.Snapshot, in.Images = "", nil
		wg.Add(1)
		go func() {
			defer wg.Done()
			flag, failed = run.detect(&in)
		}()
	}
	if compact != nil {
		compResp, compactErr = run.compact(compact, res)
	}
	wg.Wait()
	if judge {
		for _, f := range failed {
			res, run.callErr = detectFailed(p, f.name, res, f.err)
		}
		if flag != nil {
			res, run.callErr = nil, flag
		}
	}
	if compact != nil && res != nil {
		switch {
		case compactErr != nil:
			res.Warnings = append(res.Warnings, "snapshot compaction failed, full snapshot returned: "+compactErr.Error())
		case compResp.Result != nil:
			warnings := res.Warnings
			page := res.Page
			res = compResp.Result
			res.Page, res.Warnings = page, warnings
		}
	}
	return res
}

// compact runs the compactor r on the result's snapshot, or takes its
// answer from the cache.
func (run *hookRun) compact(r *route, res *abi.Result) (*abi.HookResponse, *abi.Error) {
	defer spans.Start("h.compact")()
	h := run.h
	// A compactor rewrites the snapshot: the page's text and HTML (the
	// detector's inputs, up to 80 KB) are kept out of its request.
	in := *res
	if res.Page != nil {
		pg := *res.Page
		pg.Text, pg.HTML = "", ""
		in.Page = &pg
	}
	args := run.viewArgs()
	key := compactKey(r, args, res.Source, res.Snapshot)
	if snap, ok := h.compacted.get(key); ok {
		out := in
		out.Snapshot = snap
		return &abi.HookResponse{Result: &out}, nil
	}
	focus, moves := focusKey(r, args, res)
	if moves {
		if snap, ok := focusMoved(&h.focusCompacted, focus, res.Snapshot); ok {
			h.compacted.put(key, snap)
			out := in
			out.Snapshot = snap
			return &abi.HookResponse{Result: &out}, nil
		}
	}
	req := run.request(abi.HookCompact, &in)
	req.Args = args
	resp, e := h.hook(run.ctx, run.p, r, run.req.Session, req)
	if e == nil && resp.Result != nil {
		h.compacted.put(key, resp.Result.Snapshot)
		if moves {
			h.focusCompacted.put(focus, compaction{in: res.Snapshot, out: resp.Result.Snapshot})
		}
	}
	return resp, e
}

// viewArgs are the call's arguments as the compactor gets them: an
// action's ref is its target, not a scope (as the snapshot view reads it,
// baselines.view), so it is left out; the answer of an action is then
// compacted as the page's snapshot is, and a Tab after typing finds the
// typing's compaction (focusKey).
func (run *hookRun) viewArgs() json.RawMessage {
	r := run.p.tools[run.req.Tool]
	if r == nil || r.spec.ReadOnly || !strings.Contains(strings.ToLower(string(run.req.Args)), `"ref"`) {
		return run.req.Args
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(run.req.Args, &m) != nil {
		return run.req.Args
	}
	for k := range m {
		if strings.EqualFold(k, "ref") { // as a compactor reads keys
			delete(m, k)
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		return run.req.Args
	}
	return out
}

// compaction is a compactor's answer (out) for a snapshot (in).
type compaction struct{ in, out string }

// focusKey is the key under which a compaction is found again for the
// same snapshot with the focus elsewhere (compactKey of the snapshot
// without its [active] mark), when the compactor promises that the mark
// decides nothing but where it shows (abi.FeatureActiveMark).
func focusKey(r *route, args json.RawMessage, res *abi.Result) ([32]byte, bool) {
	plug := r.plugin
	if cur := r.slot.Serving(); cur != nil {
		plug = cur
	}
	if !plug.HasFeature(abi.FeatureActiveMark) {
		return [32]byte{}, false
	}
	stripped, ok := snapactive.Strip(res.Snapshot)
	if !ok {
		return [32]byte{}, false
	}
	return compactKey(r, args, res.Source, "focus:"+stripped), true
}

// focusMoved answers a snapshot that is one compacted before with the
// focus moved (a Tab) from that compaction, the mark moved in it
// (snapactive.Patch), without calling the compactor.
func focusMoved(held *snapCache[compaction], key [32]byte, snap string) (string, bool) {
	defer spans.Start("h.focusMoved")()
	was, ok := held.get(key)
	if !ok {
		return "", false
	}
	return snapactive.Patch(was.in, was.out, snap)
}

// withoutPageText drops the page's text and HTML: they are the detector's
// inputs, not the agent's (the snapshot is how the agent reads the page).
// They go before the masker, which then has less to scan.
func withoutPageText(res *abi.Result) *abi.Result {
	if res != nil && res.Page != nil {
		pg := *res.Page
		pg.Text, pg.HTML = "", ""
		res.Page = &pg
	}
	return res
}

// mask runs the masker over the result, then checks that no value of the
// session is left raw; either failing withholds the result.
func (run *hookRun) mask(res *abi.Result, values []string) (*abi.Result, error) {
	h, p, req := run.h, run.p, run.req
	if r := p.hooks[abi.HookMask]; r != nil {
		resp, herr := h.hook(run.ctx, p, r, req.Session, run.request(abi.HookMask, res))
		if herr != nil {
			// Fail closed: without the masker, nothing leaves. Its message
			// is not relayed: the masker sees the values it failed to hide.
			return nil, abi.Errorf(abi.CodeSecretLeak, "the result was withheld because the secret masker failed (%s); the action itself may have run: retry, or ask the operator to check the masker plugin", herr.Code)
		}
		if resp.Result != nil {
			res = resp.Result
		}
		if resp.Error != nil && run.callErr != nil {
			run.callErr = resp.Error
		}
	}
	if leaked(values, res, run.callErr) {
		return nil, abi.Errorf(abi.CodeSecretLeak, "the result held a secret value of this session and was withheld; the action itself may have run: take a new snapshot to continue")
	}
	return h.baselines.view(p, req, res, values, run.callErr), errOrNil(run.callErr)
}

func errOrNil(e *abi.Error) error {
	if e == nil {
		return nil
	}
	return e
}

// detectFailed applies the personality's detect_failure to a detector
// that failed: fail_closed withholds the result, naming the detector;
// fail_open lets it through with a warning on it. Never silence.
func detectFailed(p *personality, name string, res *abi.Result, e *abi.Error) (*abi.Result, *abi.Error) {
	if p.cfg.DetectFailure == FailOpen {
		res.Warnings = append(res.Warnings, fmt.Sprintf("bot-wall detection did not run: detector %s failed (%s), and personality %s lets pages through unchecked (detect_failure = \"fail_open\"): this page may be a block page", name, e.Error(), p.name))
		return res, nil
	}
	return nil, abi.Errorf(abi.CodePluginFailed, "the page was withheld: bot-wall detector %s failed (%s), and personality %s fails closed (detect_failure = \"fail_closed\"). The navigation itself ran: retry; if it persists, ask the operator to fix or roll back plugin %s",
		name, e.Error(), p.name, name).With("detector", name).With("cause", string(e.Code))
}

// unlinked says why the personality has no route for its hook plugin.
func (p *personality) unlinked(slot *pluginset.Slot) *abi.Error {
	name := slot.Name
	if _, err := slot.Current(); err != nil {
		return abi.AsError(err)
	}
	return abi.Errorf(abi.CodeRefused, "plugin %s is not linked in personality %s (%s)", name, p.name, strings.Join(p.problems, "; "))
}

func (h *Host) hook(ctx context.Context, p *personality, r *route, session string, req *abi.HookRequest) (*abi.HookResponse, *abi.Error) {
	plug := r.plugin
	if cur := r.slot.Serving(); cur != nil {
		plug = cur
	}
	var inBytes, outBytes int
	t0 := time.Now()
	lim := h.cfg.Host.hookLimits()
	resp, fuel, e := pluginset.CallHook(ctx, lim, plug, req, func(ctx context.Context, in []byte) ([]byte, error) {
		out, _, err := h.invoke(ctx, p, r, session, "", req.Role, abi.OpHook, in, nil)
		inBytes, outBytes = len(in), len(out)
		return out, err
	})
	// The fuel is the hook's work, the same on an idle machine and a busy
	// one; took is what the machine made of it.
	h.log.Debug("hook", "role", req.Role, "plugin", r.slot.Name, "in_bytes", inBytes, "out_bytes", outBytes, "fuel", fuel, "fuel_budget", lim.Budget(inBytes), "took", time.Since(t0))
	said := e
	if e != nil {
		if req.Role == abi.HookMask {
			said = abi.Errorf(e.Code, "(withheld: the masker's messages may hold secret values)")
		}
		h.log.Warn("hook failed", "role", req.Role, "plugin", r.slot.Name, "code", e.Code, "err", said.Message)
	}
	if ctx.Err() == nil {
		// A cancelled call is not the plugin's failure.
		h.plugins.HookResult(r.slot, plug, said)
	}
	return resp, e
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

// viewArgs are a call's arguments that say how its snapshot is shown: the
// scope of a scoped snapshot, link URLs (read by the compactor), an
// uncompacted snapshot and the snapshot mode diff, full or none (read by
// the host: snapshotview.go).
type viewArgs struct {
	Ref        string `json:"ref,omitempty"`
	Links      bool   `json:"links,omitempty"`
	LinkFilter string `json:"link_filter,omitempty"`
	Full       bool   `json:"full,omitempty"`
	Snapshot   string `json:"snapshot,omitempty"`
}

func viewOf(args json.RawMessage) viewArgs {
	var v viewArgs
	json.Unmarshal(args, &v)
	return v
}

// compactKey identifies a compaction: the compactor version, the view
// arguments (viewArgs), the page's URL (result.source, which the host sets
// on every browser result; result.page is only on a navigation's, and
// would make a navigation and the snapshot after it two keys) and the
// snapshot. A compactor's output may depend on nothing else (abi/README.md), so the same key always
// yields the same snapshot: a browser_snapshot of an unchanged page right
// after browser_navigate costs no second compaction.
func compactKey(r *route, args json.RawMessage, source, snapshot string) [32]byte {
	v := viewOf(args)
	v.Snapshot = "" // how the agent gets the snapshot, not what it holds
	view, _ := json.Marshal(v)
	h := sha256.New()
	plug := r.plugin
	if cur := r.slot.Serving(); cur != nil {
		plug = cur
	}
	for _, part := range []string{plug.SHA256, string(view), source, snapshot} {
		fmt.Fprintf(h, "%d:%s", len(part), part)
	}
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// snapCache is a small LRU of compacted snapshots (or of compactions,
// compaction).
type snapCache[V any] struct {
	mu    sync.Mutex
	max   int
	order []([32]byte)
	m     map[[32]byte]V
}

func (c *snapCache[V]) get(k [32]byte) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

func (c *snapCache[V]) put(k [32]byte, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[[32]byte]V{}
	}
	if _, ok := c.m[k]; ok {
		return
	}
	c.m[k] = v
	c.order = append(c.order, k)
	if len(c.order) > c.max {
		delete(c.m, c.order[0])
		c.order = c.order[1:]
	}
}
