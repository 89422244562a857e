package browser

import (
	"context"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/sandbox"
)

// hf is hostfuncs.JSON for browser calls: a plugin that takes blobs
// (abi.FeatureBlobs) gets the snapshot, the page's text and HTML and a
// screenshot's data as tokens the host resolves after the call, so the
// large strings never pass through the plugin's JSON.
func hf[Req, Resp any](name string, fn func(context.Context, *hostfuncs.Caller, Req) (Resp, error)) sandbox.HostFunc {
	return hostfuncs.JSON(name, func(ctx context.Context, c *hostfuncs.Caller, req Req) (Resp, error) {
		out, err := fn(ctx, c, req)
		if err == nil && c.Blobs() != nil {
			blobify(c, &out)
		}
		return out, err
	})
}

func blobify(c *hostfuncs.Caller, v any) {
	page := func(p *abi.Page) {
		if p != nil {
			p.Text, p.HTML = c.Blob(p.Text), c.Blob(p.HTML)
		}
	}
	switch r := v.(type) {
	case *abi.BrowserNavigateResponse:
		r.Snapshot = c.Blob(r.Snapshot)
		page(&r.Page)
	case *abi.BrowserActResponse:
		r.Snapshot = c.Blob(r.Snapshot)
		page(r.Page)
	case *abi.BrowserSnapshotResponse:
		r.Snapshot = c.Blob(r.Snapshot)
	case *abi.BrowserWaitForResponse:
		r.Snapshot = c.Blob(r.Snapshot)
	case *abi.BrowserDialogResponse:
		r.Snapshot = c.Blob(r.Snapshot)
	case *abi.BrowserTabsResponse:
		r.Snapshot = c.Blob(r.Snapshot)
		page(r.Page)
	case *abi.BrowserScreenshotResponse:
		r.Data = c.Blob(r.Data)
	case *abi.BrowserReadResponse:
		r.Text = c.Blob(r.Text)
	}
}
