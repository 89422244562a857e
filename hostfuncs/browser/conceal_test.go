package browser

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
)

// TestCaptureRefusedWhenPageUndoesHiding: a page that puts back the style
// of an element the host hid would show the secret in the capture; the
// checks around the capture see it and the capture is refused, fail
// closed, with nothing written.
func TestCaptureRefusedWhenPageUndoesHiding(t *testing.T) {
	srv := capturePages()
	c := caller(t.Name())
	must[abi.BrowserNavigateResponse](t, svc, c, abi.HostBrowserNavigate, abi.BrowserNavigateRequest{URL: srv.URL + "/undo"})
	holdSecret(c, capPass)
	_, err := call[abi.BrowserScreenshotResponse](t, svc, c, abi.HostBrowserScreenshot, abi.BrowserScreenshotRequest{Name: "undo"})
	wantCode(t, err, abi.CodeSecretLeak, "the screenshot was not taken: this session holds credential values")
	wantCode(t, err, abi.CodeSecretLeak, "retry")
	_, err = call[abi.BrowserPDFResponse](t, svc, c, abi.HostBrowserPDF, abi.BrowserPDFRequest{Name: "undo"})
	wantCode(t, err, abi.CodeSecretLeak, "the PDF was not taken")
	dir := filepath.Join(svc.cfg.WorkspaceDir, personalityDir(c.Personality()))
	for _, f := range []string{"undo.png", "undo.pdf"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("%s was written", f)
		}
	}
	// The page got its style back: nothing stays hidden.
	ev := must[abi.BrowserEvaluateResponse](t, svc, c, abi.HostBrowserEvaluate, abi.BrowserEvaluateRequest{Expression: `() => getComputedStyle(document.getElementById("s")).visibility`})
	if string(ev.Result) != `"visible"` {
		t.Errorf("the secret's element stayed %s", ev.Result)
	}
}
