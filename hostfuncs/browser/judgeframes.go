package browser

import (
	"fmt"
	"html"
	"strings"
	"sync"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
)

// The gate beyond a tab's main document: its frames, a page the host
// fetched for the caller, and the other tabs a tab list names.

// withheldFrameHTML is what a withheld frame shows instead of its page.
const withheldFrameHTML = `<!doctype html><meta charset="utf-8"><title>withheld</title><p>This frame was withheld by the host: %s</p>`

// judgeFrames judges the documents of t's frames (a clean page's frames
// are documents of their own: a wall inside an iframe is a wall): each
// frame the detector chain withholds is withheld within the page, its
// document replaced by a host page that names the verdict (so no
// snapshot, screenshot or read of the page carries it, and its scripts
// stop). A frame whose facts cannot be read (it is loading, or detached)
// is judged at the next call (framesDirty). Blank frames have nothing to
// judge.
func (s *pages) judgeFrames(ss *session, t *tab) (replaced int, _ error) {
	detect := s.detectors(ss)
	if detect == nil {
		return 0, nil
	}
	max := s.cfg.DetectMaxMB << 20
	var frames []pw.Frame
	var urls []string
	for _, f := range t.page.Frames() {
		if f == t.page.MainFrame() || f.IsDetached() {
			continue
		}
		if u := f.URL(); u != "" && u != "about:blank" && t.judgedFrames[f] != u {
			frames, urls = append(frames, f), append(urls, u)
		}
	}
	if len(frames) == 0 {
		return 0, nil
	}
	// The frames' facts are read together (one round trip's time, not
	// one per frame: a page with ten ad frames paid 200-250 ms read one
	// by one), then judged one by one (a detector run is a few ms).
	facts := make([]map[string]any, len(frames))
	race(ss, func() (struct{}, error) {
		var wg sync.WaitGroup
		for i, f := range frames {
			wg.Add(1)
			go func() {
				defer wg.Done()
				// The facts a main document is judged on, read in the frame.
				if v, err := f.Evaluate(factsJS, max); err == nil {
					facts[i], _ = v.(map[string]any)
				}
			}()
		}
		wg.Wait()
		return struct{}{}, nil
	})
	for i, f := range frames {
		m := facts[i]
		if m == nil {
			t.framesDirty.Store(true) // loading or detached: next call
			continue
		}
		pg := &abi.Page{URL: urls[i]}
		pg.Title, _ = m["title"].(string)
		text, _ := m["text"].(string)
		src, _ := m["html"].(string)
		pg.Text, pg.HTML = capString(text, max), capString(src, max)
		if pg.Title == "" && strings.TrimSpace(pg.Text) == "" {
			continue
		}
		verdict := detect(pg, nil)
		if verdict == nil {
			if t.judgedFrames == nil {
				t.judgedFrames = map[pw.Frame]string{}
			}
			t.judgedFrames[f] = urls[i]
			continue
		}
		s.log.Info("a frame was withheld within its page", "session", ss.key.String(), "code", verdict.Code)
		page := fmt.Sprintf(withheldFrameHTML, html.EscapeString(string(verdict.Code)))
		if _, _, err := race(ss, func() (struct{}, error) {
			return struct{}{}, f.SetContent(page, pw.FrameSetContentOptions{Timeout: ms(s.cfg.actionWait())})
		}); err != nil {
			// The frame could not be replaced: the page it is in is
			// withheld whole, rather than shown with it.
			d := t.document()
			d.set(docWithheld, withheldFailure(verdict))
			s.contain(ss, t, d)
			return replaced, verdict
		}
		replaced++
	}
	return replaced, nil
}

// judgeFetched judges a page the host fetched for the caller outside the
// page (a source fetch): HTML is a document like any other.
func (s *pages) judgeFetched(ss *session, u string, status int, headers map[string]string, body []byte) error {
	detect := s.detectors(ss)
	pg := hostfuncs.HTMLPage(u, status, headers, body)
	if detect == nil || pg == nil {
		return nil
	}
	if verdict := detect(pg, nil); verdict != nil {
		return verdict
	}
	return nil
}

// judgeTabs judges the documents of ss's tabs other than t that nobody
// has judged yet (a popup, a tab a page opened), so a tab list can name
// them: a title is a read. A tab with a dialog open, or whose facts
// cannot be read, stays unjudged and unnamed.
func (s *pages) judgeTabs(ss *session, t *tab, tabs []*tab) {
	if hostfuncs.CallerFrom(ss.ctx) == nil {
		return
	}
	for _, x := range tabs {
		if x == t || x.page.IsClosed() || x.dialog.Load() != nil {
			continue
		}
		if d := x.document(); !d.clean() && !withheldDoc(d) {
			s.judge(ss, x, d, nil, nil)
		}
	}
}
