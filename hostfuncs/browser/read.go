package browser

import (
	"context"
	"unicode/utf8"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/hostfuncs/browser/readable"
)

// The reading family: the page's main text, of a document judged clean
// (gateTab).
func readFuncs(s *Service) []hostFunc {
	return []hostFunc{{hf(abi.HostBrowserRead, s.inspector.read), gateTab}}
}

// read is ww_browser_read.
func (s *inspector) read(ctx context.Context, c *hostfuncs.Caller, req abi.BrowserReadRequest) (abi.BrowserReadResponse, error) {
	var out abi.BrowserReadResponse
	if req.MaxBytes < 0 {
		return out, abi.Errorf(abi.CodeInputInvalid, "max_bytes = %d: give a positive byte count, at most %d", req.MaxBytes, s.cfg.ReadMaxBytes)
	}
	limit := s.cfg.ReadMaxBytes
	if req.MaxBytes > 0 && req.MaxBytes < limit {
		limit = req.MaxBytes
	}
	return onTab(ctx, c, s.sessions.pageTab, func(ss *session, t *tab) (abi.BrowserReadResponse, error) {
		var page readable.Page
		if err := s.readDOM(ss, t, &page); err != nil {
			return out, err
		}
		if page.Hidden {
			if err := s.waitShown(ss, t); err != nil {
				return out, err
			}
			if err := s.readDOM(ss, t, &page); err != nil {
				return out, err
			}
		}
		out.State = s.pages.state(ss, t, false)
		root, text := readable.Main(page, out.State.URL)
		text = visibleChars(text)
		out.Root, out.Bytes, out.Limit = root, len(text), limit
		out.Text, out.Truncated = cutUTF8(text, limit)
		return out, nil
	})
}

// waitShown waits, at most the action timeout, for a page that holds
// text but shows none to show it: an anti-flicker snippet keeps the page
// at opacity 0 until its experiments load (or its own timeout, often 2-4
// s), and some pages hide the body until a script shows it. The page's
// visible text is checked again every 100 ms (visibleDOMJS, probing);
// past the bound, what shows then is read.
func (s *inspector) waitShown(ss *session, t *tab) error {
	bound := s.cfg.actionWait()
	h, dialog, err := await(ss, bound+bound/2, true, func() (pw.JSHandle, error) {
		return t.page.WaitForFunction(visibleDOMJS, true, pw.PageWaitForFunctionOptions{Polling: 100, Timeout: ms(bound)})
	})
	if dialog {
		return errDialogOpen(openDialog(ss, t))
	}
	if err == nil {
		h.Dispose()
	}
	return nil
}

// cutUTF8 cuts s to at most n bytes without splitting a character.
func cutUTF8(s string, n int) (string, bool) {
	if len(s) <= n {
		return s, false
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n], true
}
