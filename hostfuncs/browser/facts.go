package browser

import (
	"encoding/json"
	"fmt"
	"regexp"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/internal/spans"
)

// factsJS reads the whole document for the detect hook, up to max UTF-16
// units each (the host then caps the bytes): a wall's marker may sit
// anywhere in it. With max 0 it reads only the title: without a
// detector, nothing reads the rest (innerText lays the page out, and
// both cost a large page tens of milliseconds).
const factsJS = `(max) => ({
	title: document.title,
	text: max && document.body ? document.body.innerText.slice(0, max) : "",
	html: max && document.documentElement ? document.documentElement.outerHTML.slice(0, max) : ""
})`

// facts collects what the detect hook reads about the loaded document.
func (s *pages) facts(ss *session, t *tab, resp pw.Response) *abi.Page {
	pg, _, _, _ := s.pageFacts(ss, t, resp, false)
	return pg
}

// pageFacts collects the page facts and, when withSnap is set, the
// snapshot: the two reads are in flight together, in one race against a
// dialog. title reports the title the facts saw (nil when they failed). A
// dialog leaves the snapshot empty, as snapshot does.
func (s *pages) pageFacts(ss *session, t *tab, resp pw.Response, withSnap bool) (pg *abi.Page, snap string, title func() string, err error) {
	defer spans.Start("b.pageFacts")()
	pg = &abi.Page{URL: t.page.URL()}
	if resp != nil {
		pg.Status, pg.Headers = resp.Status(), resp.Headers()
	} else if d := t.doc.Load(); d != nil {
		pg.Status, pg.Headers = d.status, d.headers
	}
	max := s.cfg.DetectMaxMB << 20
	if c := hostfuncs.CallerFrom(ss.ctx); c != nil && c.NoDetector() {
		max = 0
	}
	type reads struct {
		v    any
		verr error
		snap string
		serr error
	}
	r, dialog, _ := race(ss, func() (reads, error) {
		var r reads
		if !withSnap {
			r.v, r.verr = detectFacts(ss, t, max)
			return r, nil
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			defer spans.Start("b.facts")()
			r.v, r.verr = detectFacts(ss, t, max)
		}()
		r.snap, r.serr = s.aria(ss, t, 0)
		<-done
		return r, nil
	})
	if dialog {
		return pg, "", nil, nil
	}
	if err := s.egressShown(ss, t); err != nil {
		return &abi.Page{URL: pg.URL}, "", nil, err
	}
	if m, ok := r.v.(map[string]any); ok && r.verr == nil {
		pg.Title, _ = m["title"].(string)
		text, _ := m["text"].(string)
		html, _ := m["html"].(string)
		pg.Text, pg.HTML = capString(text, max), capString(html, max)
		seen := pg.Title
		title = func() string { return seen }
	}
	if withSnap {
		if r.serr != nil {
			return pg, "", title, s.sessions.mapErrWithin(ss, r.serr, "taking a snapshot", s.readBudget())
		}
		s.keepRefs(t, r.snap)
		snap = s.redactKept(t, r.snap, r.snap)
	}
	return pg, snap, title, nil
}

func ms(d time.Duration) *float64 { return pw.Float(float64(d.Milliseconds())) }

func fmtBox(x, y, w, h float64) string { return fmt.Sprintf("%.0f,%.0f,%.0f,%.0f", x, y, w, h) }

var (
	refRe     = regexp.MustCompile(`^(?:f\d+)?e\d+$`)
	refInSnap = regexp.MustCompile(`\[ref=((?:f\d+)?e\d+)\]`)
	// A textbox line with a value: `- textbox "Password" [ref=e3]: s3cret`.
	textboxValue = regexp.MustCompile(`(?m)^(\s*- textbox\b[^\n]*\[ref=((?:f\d+)?e\d+)\][^:\n]*): (.+)$`)
)

// evalInto runs one of the host's own scripts and decodes its result.
func (s *pages) evalInto(ss *session, t *tab, js string, arg any, into any) error {
	v, dialog, err := race(ss, func() (any, error) { return t.page.Evaluate(js, arg) })
	if dialog {
		return errDialogOpen(openDialog(ss, t))
	}
	if err != nil {
		return s.sessions.mapErr(ss, err, "reading the page")
	}
	if err := s.egressShown(ss, t); err != nil {
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, into)
}
