package browser

import (
	"context"
	"encoding/base64"
	"strings"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/hostfuncs/browser/conceal"
)

// The pictures family: a screenshot and a PDF of a document judged clean
// (gateTab).
func pictureFuncs(s *Service) []hostFunc {
	return []hostFunc{
		{hf(abi.HostBrowserScreenshot, s.inspector.screenshot), gateTab},
		{hostfuncs.JSON(abi.HostBrowserPDF, s.inspector.pdf), gateTab},
	}
}

// The inspector's pictures of a page: ww_browser_screenshot and
// ww_browser_pdf, each taken with the session's secrets concealed
// (package conceal).

// screenshot is ww_browser_screenshot.
func (s *inspector) screenshot(ctx context.Context, c *hostfuncs.Caller, req abi.BrowserScreenshotRequest) (abi.BrowserScreenshotResponse, error) {
	var out abi.BrowserScreenshotResponse
	mode := req.Mode
	if mode == "" {
		mode = "viewport"
		if req.Ref != "" {
			mode = "element"
		}
	}
	if mode != "viewport" && mode != "full" && mode != "element" {
		return out, abi.Errorf(abi.CodeInputInvalid, "mode %q: use viewport, full or element", req.Mode)
	}
	if mode == "element" && req.Ref == "" {
		return out, abi.Errorf(abi.CodeInputInvalid, "an element screenshot needs a ref from browser_snapshot")
	}
	f, err := imageFormat(req.Format, req.Quality)
	if err != nil {
		return out, err
	}
	if req.Marks && mode != "viewport" {
		return out, abi.Errorf(abi.CodeInputInvalid, "marks apply to the viewport only, not mode %s: drop mode and ref, scroll what you want into view (browser_scroll), then take the marked screenshot", mode)
	}
	if req.Marks && f.cdp {
		return out, abi.Errorf(abi.CodeInputInvalid, "a marked screenshot is PNG or JPEG (the host draws the marks and does not encode WebP): use format png or jpeg")
	}
	path, err := s.pages.workspaceFile(c.Personality(), req.Name, "screenshot", f.ext)
	if err != nil {
		return out, err
	}
	return onTab(ctx, c, s.sessions.pageTab, func(ss *session, t *tab) (abi.BrowserScreenshotResponse, error) {
		var loc pw.Locator
		if mode == "element" {
			if loc, _, err = s.pages.locate(ss, t, req.Ref); err != nil {
				return out, err
			}
		}
		var img []byte
		if req.Marks {
			img, out.Marks, out.MarksTotal, err = s.markedCapture(ss, t, f)
		} else {
			img, err = s.capture(ss, t, f, mode, loc, s.concealer.secretValues(c.Personality(), c.Session()))
		}
		if err != nil {
			return out, err
		}
		if err := s.pages.egressShown(ss, t); err != nil {
			return out, err // a picture of the egress proxy's answer, not of a page
		}
		if err := writePrivate(path, img); err != nil {
			return out, abi.Errorf(abi.CodeExecutionFailed, "writing the screenshot: %v", err)
		}
		out.Path, out.MIME, out.Bytes = path, f.mime, len(img)
		out.Width, out.Height = imageSize(img)
		if !req.NoInline {
			out.Data = base64.StdEncoding.EncodeToString(img)
		}
		out.State = s.pages.state(ss, t, false)
		return out, nil
	})
}

// capture takes a plain screenshot (mode viewport, full, or element loc)
// with secret values hidden. It leaves the caret as it is: Playwright
// hides it by setting every text field's inline style for the capture and
// back, which the change watcher rightly counts as a change, so the next
// action after a screenshot would take a whole new snapshot.
func (s *inspector) capture(ss *session, t *tab, f format, mode string, loc pw.Locator, secrets []string) ([]byte, error) {
	img, dialog, err := race(ss, func() ([]byte, error) {
		var clip *pw.Rect
		full := mode == "full"
		if loc != nil && (len(secrets) > 0 || f.cdp) {
			// The element itself may be one that gets hidden, and
			// Locator.Screenshot waits for it to be visible: capture its
			// box from the page instead.
			var err error
			if clip, full, err = elementClip(t.page, loc); err != nil {
				return nil, err
			}
			loc = nil
		}
		return conceal.Capture(t.page, secrets, "screenshot", func() ([]byte, error) {
			switch {
			case f.cdp:
				return ss.cdpScreenshot(t.page, f, clip, full)
			case loc != nil:
				return loc.Screenshot(pw.LocatorScreenshotOptions{Type: f.typ, Quality: f.quality, Caret: pw.ScreenshotCaretInitial})
			}
			return t.page.Screenshot(pw.PageScreenshotOptions{Type: f.typ, Quality: f.quality, Clip: clip, FullPage: pw.Bool(full), Caret: pw.ScreenshotCaretInitial})
		})
	})
	if dialog {
		return nil, errDialogOpen(openDialog(ss, t))
	}
	if err != nil {
		return nil, s.sessions.mapErr(ss, err, "taking a screenshot")
	}
	return img, nil
}

// elementClip is the box of loc scrolled into view, for a page screenshot:
// viewport coordinates when it fits the viewport, else page coordinates
// and a full-page capture.
func elementClip(p pw.Page, loc pw.Locator) (*pw.Rect, bool, error) {
	if err := loc.ScrollIntoViewIfNeeded(); err != nil {
		return nil, false, err
	}
	box, err := loc.BoundingBox()
	if err != nil {
		return nil, false, err
	}
	if box == nil || box.Width <= 0 || box.Height <= 0 {
		return nil, false, abi.Errorf(abi.CodeNotInteractable, "the element has no box to capture (hidden or empty): take a new snapshot, or capture the page")
	}
	clip := &pw.Rect{X: box.X, Y: box.Y, Width: box.Width, Height: box.Height}
	if vs := p.ViewportSize(); vs != nil && box.X >= 0 && box.Y >= 0 && box.X+box.Width <= float64(vs.Width) && box.Y+box.Height <= float64(vs.Height) {
		return clip, false, nil
	}
	v, err := p.Evaluate(`() => [scrollX, scrollY]`)
	if err != nil {
		return nil, false, err
	}
	if a, ok := v.([]any); ok && len(a) == 2 {
		x, _ := a[0].(float64)
		y, _ := a[1].(float64)
		if xi, ok := a[0].(int); ok {
			x = float64(xi)
		}
		if yi, ok := a[1].(int); ok {
			y = float64(yi)
		}
		clip.X += x
		clip.Y += y
	}
	return clip, true, nil
}

// pdf is ww_browser_pdf.
func (s *inspector) pdf(ctx context.Context, c *hostfuncs.Caller, req abi.BrowserPDFRequest) (abi.BrowserPDFResponse, error) {
	var out abi.BrowserPDFResponse
	path, err := s.pages.workspaceFile(c.Personality(), req.Name, "page", ".pdf")
	if err != nil {
		return out, err
	}
	return onTab(ctx, c, s.sessions.pageTab, func(ss *session, t *tab) (abi.BrowserPDFResponse, error) {
		format := req.Format
		if format == "" {
			format = "A4"
		}
		secrets := s.concealer.secretValues(c.Personality(), c.Session())
		b, dialog, err := race(ss, func() ([]byte, error) {
			return conceal.Capture(t.page, secrets, "PDF", func() ([]byte, error) {
				return t.page.PDF(pw.PagePdfOptions{Format: pw.String(format), Landscape: pw.Bool(req.Landscape), PrintBackground: pw.Bool(true)})
			})
		})
		if dialog {
			return out, errDialogOpen(openDialog(ss, t))
		}
		if err != nil {
			if strings.Contains(err.Error(), "headless") {
				return out, abi.Errorf(abi.CodeNotAvailable, "PDF printing works only in headless Chromium: this browser is headed")
			}
			return out, s.sessions.mapErr(ss, err, "printing to PDF")
		}
		if err := s.pages.egressShown(ss, t); err != nil {
			return out, err
		}
		if err := writePrivate(path, b); err != nil {
			return out, abi.Errorf(abi.CodeExecutionFailed, "writing the PDF: %v", err)
		}
		out.Path, out.Bytes = path, len(b)
		out.State = s.pages.state(ss, t, false)
		return out, nil
	})
}
