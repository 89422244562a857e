package host

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/operator"
	"github.com/wasmwright/wasmwright/internal/testenv"
)

// framedSites are two loopback origins: top's page holds a button filling
// its top left corner, a text field, a file input and a script, and an
// iframe of frame's page at (0, 200); frame's page holds a button filling
// the frame's top left corner, a text field and a select, and claims the
// top page's origin to scripts (window.origin). Each button counts its
// clicks in its own document.
func framedSites(t *testing.T) (top, frame *httptest.Server) {
	frame = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, `<!doctype html><title>frame</title><body style="margin:0">
<button style="position:absolute;left:0;top:0;width:300px;height:80px" onclick="fs.textContent = 'frame clicks: ' + (++n)">Frame Go</button>
<p id=fs style="margin-top:90px">frame clicks: 0</p><input aria-label="Frame name"><select aria-label="Frame pick"><option>one</option><option>two</option></select>
<script>let n = 0</script>`)
		// The frame claims the top page's origin where a script could read
		// it: the host must not believe it.
		if claim := r.URL.Query().Get("claim"); claim != "" {
			fmt.Fprintf(w, `<script>Object.defineProperty(window, "origin", {value: %q})</script>`, claim)
		}
	}))
	t.Cleanup(frame.Close)
	top = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/app.js":
			w.Header().Set("Content-Type", "text/javascript")
			fmt.Fprint(w, `window.app = 1`)
			return
		case "/swap":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<!doctype html><title>swap</title><body style="margin:0">
<button id=b style="position:fixed;left:0;top:0;width:300px;height:100px" onclick="saved.textContent = 'saved: 1'">Save</button>
<p style="margin-top:120px" id=saved>saved: 0</p><p id=deleted>deleted: 0</p>`)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><title>top</title><body style="margin:0">
<button style="position:fixed;left:0;top:0;width:300px;height:100px" onclick="ts.textContent = 'top clicks: ' + (++n)">Top</button>
<p id=ts style="margin-top:110px">top clicks: 0</p><input aria-label="Top name"><input type=file aria-label="File">
<iframe src="%s/frame?claim=http://%s" style="position:fixed;left:0;top:200px;width:500px;height:300px;border:0"></iframe>
<script src="/app.js"></script><script>let n = 0</script>`, frame.URL, r.Host)
	}))
	t.Cleanup(top.Close)
	return top, frame
}

// TestApprovalReceivers runs approvalBindsTheElement and
// approvalJudgedByReceiver on one host (one Chromium).
func TestApprovalReceivers(t *testing.T) {
	top, frame := framedSites(t)
	up := t.TempDir()
	if err := os.WriteFile(filepath.Join(up, "f.txt"), []byte("file"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := newApprovalCaller(t, fmt.Sprintf(`network = { allowed_hosts = [%q, %q] }
[personalities.all.approval]
act = "ask"
timeout = "30s"
`, strings.TrimPrefix(top.URL, "http://"), strings.TrimPrefix(frame.URL, "http://")), fmt.Sprintf("upload_dir = %q", up))
	detach := c.h.Desk().Attach("all")
	defer detach()
	// Binding first: the other part stores grants that would cover it.
	t.Run("BindsTheElement", func(t *testing.T) { approvalBindsTheElement(c.on(t), top.URL) })
	t.Run("JudgedByReceiver", func(t *testing.T) { approvalJudgedByReceiver(c.on(t), top.URL, frame.URL) })
}

// approvalJudgedByReceiver drives approvals in Chromium through the
// host's dispatch, with an operator answering on the desk, on a page of
// one loopback origin that frames a page of another:
//   - frames (issue 33) and class 6 (issue 40): grants for the top page's
//     origin do not cover click, type, select, press, hover or drag inside
//     the cross-origin frame; each asks, naming the frame's origin and
//     element; an approval "for the origin" grants the frame's origin;
//   - class 6: an x/y click asks about the element under the point and
//     its frame; a key press without a ref about the focused element; a
//     drag names both ends; a form fill each field; an upload and a source
//     fetch ask under act = "ask" though upload and read are allowed.
//
// Each part failed before the receiving element was bound: the grant for
// the top origin let the frame acts run unasked, and nothing else asked.
func approvalJudgedByReceiver(c *approvalCaller, topURL, frameURL string) {
	t, h := c.t, c.h
	grants, err := h.Grants()
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range []string{"browser_click", "browser_type", "browser_select", "browser_press", "browser_hover", "browser_drag"} {
		if err := grants.Add("all", operator.Grant{Tool: tool, Origin: topURL, By: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	c.mustOK(c.call("browser_navigate", map[string]any{"url": topURL}))
	snap := c.snapshot()
	topBtn, topName, file := refOf(snap, "button", "Top"), refOf(snap, "textbox", "Top name"), refOf(snap, "button", "File")
	frameBtn, frameName, framePick := refOf(snap, "button", "Frame Go"), refOf(snap, "textbox", "Frame name"), refOf(snap, "combobox", "Frame pick")
	if topBtn == "" || topName == "" || frameBtn == "" || frameName == "" || framePick == "" || !strings.HasPrefix(frameBtn, "f") {
		t.Fatalf("refs missing in the snapshot:\n%s", snap)
	}

	// The top origin's grant covers the top page: no one is asked.
	c.mustOK(c.call("browser_click", map[string]any{"ref": topBtn}))
	c.mustOK(c.call("browser_click", map[string]any{"x": 150, "y": 50}))
	c.sees("top clicks: 2")

	// Every act inside the frame asks, naming the frame's origin and
	// element, and is not done when denied.
	for _, act := range []struct {
		tool string
		args map[string]any
		name string
	}{
		{"browser_click", map[string]any{"ref": frameBtn}, "Frame Go"},
		{"browser_type", map[string]any{"ref": frameName, "text": "typed"}, "Frame name"},
		{"browser_select", map[string]any{"ref": framePick, "values": []string{"two"}}, "Frame pick"},
		{"browser_press", map[string]any{"ref": frameName, "key": "a"}, "Frame name"},
		{"browser_hover", map[string]any{"ref": frameBtn}, "Frame Go"},
		{"browser_click", map[string]any{"x": 150, "y": 240}, "Frame Go"},
	} {
		ap := c.ask(act.tool, act.args, operator.Deny)
		if ap.Origin != frameURL || ap.Target == nil || ap.Target.Origin != frameURL || ap.Target.Name != act.name {
			t.Errorf("%s %v: asked %+v target %+v; want origin %s, element %q", act.tool, act.args, ap, ap.Target, frameURL, act.name)
		}
		if _, xy := act.args["x"]; xy && ap.Target.At != "at (150, 240)" {
			t.Errorf("x/y click: target %+v does not say where", ap.Target)
		}
	}
	// A drag names both ends.
	ap := c.ask("browser_drag", map[string]any{"ref": frameName, "target_ref": frameBtn}, operator.Deny)
	if ap.Origin != frameURL || len(ap.Targets) != 2 || ap.Targets[0].Part != "source" || ap.Targets[0].Name != "Frame name" ||
		ap.Targets[1].Part != "target" || ap.Targets[1].Name != "Frame Go" || ap.Targets[1].Origin != frameURL {
		t.Errorf("drag asked %+v, targets %+v", ap, ap.Targets)
	}
	c.sees("frame clicks: 0")

	// A key press without a ref asks about the focused element, in its
	// frame. (The field is focused by an approved click.)
	c.ask("browser_click", map[string]any{"ref": frameName}, operator.ApproveOnce)
	ap = c.ask("browser_press", map[string]any{"key": "a"}, operator.Deny)
	if ap.Origin != frameURL || ap.Target == nil || ap.Target.At != "in focus" || ap.Target.Name != "Frame name" || ap.Target.Role != "textbox" {
		t.Errorf("press without a ref asked %+v, target %+v", ap, ap.Target)
	}

	// A form fill names each field, each with its frame's origin; fields
	// of two origins fit no single origin's grant.
	ap = c.ask("browser_fill_form", map[string]any{"fields": []map[string]any{{"ref": topName, "value": "a"}, {"ref": frameName, "value": "b"}}}, operator.Deny)
	if ap.Origin != "" || len(ap.Targets) != 2 || ap.Targets[0].Part != "field 1" || ap.Targets[0].Name != "Top name" || ap.Targets[0].Origin != topURL ||
		ap.Targets[1].Part != "field 2" || ap.Targets[1].Name != "Frame name" || ap.Targets[1].Origin != frameURL {
		t.Errorf("fill_form asked %+v, targets %+v", ap, ap.Targets)
	}

	// An upload and a source fetch are acts: asked though upload and read
	// are allowed. Listing the sources sends nothing: not asked.
	ap = c.ask("browser_upload", map[string]any{"ref": file, "paths": []string{"f.txt"}}, operator.Deny)
	if ap.Risk != abi.RiskAct || ap.Target == nil || ap.Target.Name != "File" || ap.Origin != topURL {
		t.Errorf("upload asked %+v, target %+v", ap, ap.Target)
	}
	ap = c.ask("browser_sources", map[string]any{"fetch": topURL + "/app.js"}, operator.Deny)
	if ap.Risk != abi.RiskAct || ap.Origin != topURL {
		t.Errorf("source fetch asked %+v", ap)
	}
	c.mustOK(c.call("browser_sources", map[string]any{}))

	// Approved for the origin: the grant is the frame's, and the click
	// lands in the frame.
	c.ask("browser_click", map[string]any{"ref": frameBtn}, operator.ApproveOrigin)
	c.sees("frame clicks: 1")
	if gs, _ := grants.List("all"); !containsGrant(gs, "browser_click", frameURL) {
		t.Errorf("approving for the origin stored %+v, want a grant for %s", gs, frameURL)
	}
}

func containsGrant(gs []operator.Grant, tool, origin string) bool {
	for _, g := range gs {
		if g.Tool == tool && g.Origin == origin {
			return true
		}
	}
	return false
}

// approvalBindsTheElement: class 7 (issue 40). While a click waits
// for approval the page changes what it asked about: the same button
// renamed to a destructive one, or another button put where a click by
// x/y lands. The approval is for what was asked: the act is refused,
// naming what changed, and nothing is clicked. (Before, both clicks
// landed on the new element.)
func approvalBindsTheElement(c *approvalCaller, topURL string) {
	t, desk := c.t, c.h.Desk()
	for _, swap := range []struct {
		name, script string
		args         func(snap string) map[string]any
	}{
		{"renamed", `() => { const b = document.getElementById("b"); b.textContent = "Delete everything"; b.onclick = () => deleted.textContent = "deleted: 1"; }`,
			func(snap string) map[string]any { return map[string]any{"ref": refOf(snap, "button", "Save")} }},
		{"replaced", `() => { const n = document.createElement("button"); n.style.cssText = document.getElementById("b").style.cssText; n.style.zIndex = 9; n.textContent = "Delete";
			n.onclick = () => deleted.textContent = "deleted: 1"; document.body.append(n); }`,
			func(string) map[string]any { return map[string]any{"x": 150, "y": 50} }},
	} {
		c.mustOK(c.call("browser_navigate", map[string]any{"url": topURL + "/swap"}))
		args := swap.args(c.snapshot())
		pending := c.async("browser_click", args)
		ap := pendingApproval(t, desk)
		if ap.Target == nil || ap.Target.Name != "Save" {
			t.Fatalf("%s: asked about %+v, want the Save button", swap.name, ap.Target)
		}
		c.mustOK(c.call("browser_evaluate", map[string]any{"expression": swap.script}))
		if err := desk.Decide(ap.ID, operator.Decision{Verdict: operator.ApproveOnce, By: "op"}); err != nil {
			t.Fatal(err)
		}
		o := <-pending
		if o.err == nil || o.err.Code != abi.CodeRefused || !strings.Contains(o.err.Message, "changed after this call was judged") || !strings.Contains(o.err.Message, "Delete") {
			t.Errorf("%s: the approved click on a changed element: %+v", swap.name, o.err)
		}
		c.sees("deleted: 0")
		c.sees("saved: 0")
	}
}

// approvalCaller calls tools on a host with the shipped plugins, an
// operator surface and the browser keys given.
type approvalCaller struct {
	t *testing.T
	h *Host
}

func newApprovalCaller(t *testing.T, personalityExtra, browserKeys string) *approvalCaller {
	t.Helper()
	f := newFixture(t, map[string]string{"browser": "plugins/browser"})
	h := f.browserHost(t, f.browserConfig("default_personality = \"all\"\ngrants_dir = \"grants\"", browserKeys, fmt.Sprintf(`[plugins.browser]

[personalities.all]
plugins = ["browser"]
tools = ["*"]
grants = ["browser.read", "browser.act", "browser.eval", "network", "takeover", "events"]
%s
`, personalityExtra)), Options{Operators: true})
	return &approvalCaller{t: t, h: h}
}

// on is c for the (sub)test t.
func (c *approvalCaller) on(t *testing.T) *approvalCaller { return &approvalCaller{t: t, h: c.h} }

func (c *approvalCaller) call(tool string, args map[string]any) callOut {
	raw, _ := json.Marshal(args)
	ctx, cancel := context.WithTimeout(context.Background(), testenv.CallWait)
	defer cancel()
	res, err := c.h.Call(ctx, Request{Tool: tool, Args: raw})
	if err != nil {
		return callOut{res, abi.AsError(err)}
	}
	return callOut{res, nil}
}

func (c *approvalCaller) async(tool string, args map[string]any) <-chan callOut {
	ch := make(chan callOut, 1)
	go func() { ch <- c.call(tool, args) }()
	return ch
}

func (c *approvalCaller) mustOK(o callOut) *abi.Result {
	c.t.Helper()
	if o.err != nil {
		c.t.Fatalf("%s: %s", o.err.Code, o.err.Message)
	}
	return o.res
}

func (c *approvalCaller) snapshot() string {
	c.t.Helper()
	return c.mustOK(c.call("browser_snapshot", map[string]any{"snapshot": "full"})).Snapshot
}

// sees fails unless the page (frames included) shows text.
func (c *approvalCaller) sees(text string) {
	c.t.Helper()
	if snap := c.snapshot(); !strings.Contains(snap, text) {
		c.t.Fatalf("want %q on the page, snapshot:\n%s", text, snap)
	}
}

// ask calls tool, waits for its approval, answers it with verdict and
// returns the approval as it was asked; a denied call must be refused,
// an approved one must succeed.
func (c *approvalCaller) ask(tool string, args map[string]any, verdict string) operator.Approval {
	c.t.Helper()
	pending := c.async(tool, args)
	ap := pendingApproval(c.t, c.h.Desk())
	if err := c.h.Desk().Decide(ap.ID, operator.Decision{Verdict: verdict, By: "op"}); err != nil {
		c.t.Fatal(err)
	}
	o := <-pending
	switch {
	case verdict == operator.Deny && (o.err == nil || o.err.Code != abi.CodeRefused):
		c.t.Errorf("%s %v denied: got %+v", tool, args, o.err)
	case verdict != operator.Deny && o.err != nil:
		c.t.Errorf("%s %v approved: %s: %s", tool, args, o.err.Code, o.err.Message)
	}
	return ap
}
