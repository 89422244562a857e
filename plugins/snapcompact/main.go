// Command snapcompact is the wasmwright compact hook: it rewrites a page's
// Playwright ARIA snapshot (ai mode) into the most token-thrifty text an
// agent can still act on. Every interactive element keeps its ref, role and
// accessible name; wrappers, link URLs and repeated text go; long runs of
// near-identical items fold into one line that says how to unfold them
// (a scoped browser_snapshot of the list's ref). Link URLs come back on
// request: links (every link's [url=...]) or link_filter (only the
// matching links, listed with their URLs).
//
// Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o snapcompact.wasm .
package main

import (
	"encoding/json"
	"fmt"
	"runtime/debug"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
	sdk "github.com/wasmwright/wasmwright/plugin-sdk"
)

func init() {
	// One call allocates about 10x the snapshot's size in short-lived
	// nodes; fewer collections pay off in the single-threaded sandbox, and
	// 128 MiB of instance memory leaves room.
	debug.SetGCPercent(400)
	sdk.Plugin("snapcompact", "1.0.0", "Compacts ARIA snapshots: keeps every actionable ref, drops wrappers and URLs, folds long lists.")
	sdk.Hook(hook, abi.HookCompact)
	sdk.Features(abi.FeatureRawSnapshot)
	sdk.SelfTest(selfTest)
}

// viewArgs are the call's arguments that say how its snapshot is shown
// (browser_snapshot's ref, links and link_filter).
type viewArgs struct {
	Ref        string `json:"ref"`
	Links      bool   `json:"links"`
	LinkFilter string `json:"link_filter"`
}

func hook(c *sdk.Call, req *abi.HookRequest) (*abi.HookResponse, error) {
	if req.Result == nil || req.Result.Snapshot == "" {
		return &abi.HookResponse{}, nil
	}
	o := defaultOptions
	if len(req.Args) > 0 {
		var a viewArgs
		if json.Unmarshal(req.Args, &a) == nil {
			o.scopeRef = strings.TrimSpace(a.Ref)
			o.links, o.linkFilter = a.Links, strings.TrimSpace(a.LinkFilter)
		}
	}
	res := *req.Result
	res.Snapshot = compactSnapshot(res.Snapshot, o)
	return &abi.HookResponse{Result: &res, Error: req.Error}, nil
}

const selfTestSnapshot = `- generic [active] [ref=e1]:
  - banner [ref=e2]:
    - link "Home" [ref=e3] [cursor=pointer]:
      - /url: https://example.test/
    - textbox "Search" [ref=e4]:
      - /placeholder: Search the site
  - paragraph [ref=e5]:
    - text: Hello
    - strong [ref=e6]: world
`

func selfTest() error {
	got := compactSnapshot(selfTestSnapshot, defaultOptions)
	want := "- banner:\n  - link \"Home\" [ref=e3]\n  - textbox \"Search\" [ref=e4] [placeholder=\"Search the site\"]\nHello world"
	if got != want {
		return fmt.Errorf("snapcompact self-test: got %q, want %q", got, want)
	}
	return nil
}

func main() {}
