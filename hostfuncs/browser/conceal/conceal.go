// Package conceal keeps a session's secret values out of pictures of its
// pages (the browser's screenshots, PDFs and concealed live view).
//
// Screenshots and PDFs are pixels: the secret masker, which works on text,
// cannot see into them. So before a capture of a session that holds secret
// values (the browser's Options.SecretValues), every element showing one
// is hidden in the page, and shown again afterwards:
//
//  1. collectJS reads, in every frame (iframes of any origin) and every
//     open shadow root, the text of each text node and the value of each
//     input and textarea, with whether it is rendered. No secret value goes
//     into the page: the page only returns what it already holds.
//  2. Go matches that text against the values and the forms they show in
//     (VisibleForms), across text nodes (a value split over <b>, <span>...),
//     and picks the elements to hide: the owners of the matching text, the
//     <select> showing a matching option, every password input holding a
//     value.
//  3. hideJS gives those elements visibility:hidden !important (with
//     transitions and animations off, so the change is immediate). Hiding
//     rather than painting over boxes keeps the element's place and moves
//     with the layout, so it holds for full-page and element captures, any
//     device scale factor, and print layout.
//  4. The page is read again: a matching text still rendered (a descendant
//     that sets visibility:visible, an element the page re-rendered) is
//     hidden in a second round; if any is left, the capture is refused
//     with secret_leak. After the capture the check runs once more, and a
//     capture taken while a secret showed is discarded.
//  5. The elements' style attributes are put back as they were.
//
// A closed shadow root is out of every script's reach: the hosts of those
// that show a value or hold a field are hidden through the DevTools
// protocol instead (closed.go).
//
// A session with no secrets pays nothing: none of this runs.
package conceal

import (
	"fmt"
	"strings"
	"sync"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
)

// concealment is the hidden state of one page, to restore: one state
// handle per frame where something was hidden.
type concealment struct {
	frames []pw.Frame
	states []pw.JSHandle
	// closed shows again the hosts of closed roots hidden (closed.go),
	// in the renderers of closedFrames.
	closed       func()
	closedFrames []pw.Frame
}

// errConceal is the refusal when a capture cannot be made without showing
// a secret.
func errConceal(what, why string) error {
	return abi.Errorf(abi.CodeSecretLeak, "the %s was not taken: this session holds credential values and %s. "+
		"Wait for the page to settle and retry, or navigate away from the page showing the credential first", what, why)
}

// conceal hides every element of p showing one of values (see the
// package doc) and returns what to restore. On error nothing stays hidden.
// Frames are handled at once, each in its own goroutine; a frame showing
// nothing costs one read.
func conceal(p pw.Page, m *secretMatcher, what string) (*concealment, error) {
	frames := p.Frames()
	hs := make([]pw.JSHandle, len(frames))
	whys := make([]string, len(frames))
	eachFrame(frames, func(i int, f pw.Frame) { hs[i], whys[i] = concealFrame(f, m) })
	c := &concealment{}
	why := ""
	for i, h := range hs {
		if h != nil {
			c.frames, c.states = append(c.frames, frames[i]), append(c.states, h)
		}
		if why == "" {
			why = whys[i]
		}
	}
	if why != "" {
		c.restore()
		return nil, errConceal(what, why)
	}
	if c.closed, c.closedFrames, why = closedHosts(p, m); why != "" {
		c.restore()
		return nil, errConceal(what, why)
	}
	return c, nil
}

// concealFrame hides what f shows of the values. It returns the state to
// restore (nil when nothing was hidden), and why it failed, if it did.
func concealFrame(f pw.Frame, m *secretMatcher) (pw.JSHandle, string) {
	fs, err := scanFrame(f)
	if err != nil {
		if f.IsDetached() {
			return nil, "" // gone: it shows nothing
		}
		return nil, "a frame of the page could not be checked for them (" + brief(err) + ")"
	}
	if fs.over {
		return nil, "a frame of the page holds too much text to check for them"
	}
	ids := m.match(fs, false)
	if len(ids) == 0 {
		return nil, ""
	}
	// The state's own walk finds the same elements in the same order
	// unless the page changed in between; the re-read below catches that.
	h, err := f.EvaluateHandle(stateJS, []any{captureTextBudget, ids})
	if err != nil {
		if f.IsDetached() {
			return nil, ""
		}
		return nil, "an element showing one could not be hidden (" + brief(err) + ")"
	}
	ids = nil
	for round := 0; ; round++ {
		v, err := f.Evaluate(hideJS, []any{h, ids, captureTextBudget})
		if err != nil {
			if f.IsDetached() {
				return h, ""
			}
			return h, "an element showing one could not be hidden (" + brief(err) + ")"
		}
		fs, err := decodeScan(v)
		if err != nil {
			return h, "a frame of the page could not be checked for them (" + err.Error() + ")"
		}
		if fs.over {
			return h, "a frame of the page holds too much text to check for them"
		}
		if ids = m.match(fs, true); len(ids) == 0 {
			return h, ""
		}
		if round == 2 {
			return h, fmt.Sprintf("%d element(s) kept showing one after being hidden", len(ids))
		}
	}
}

// eachFrame runs f on every frame of frames, each in its own goroutine
// (a frame's round trips wait on its own renderer), and returns when all
// have.
func eachFrame(frames []pw.Frame, f func(i int, fr pw.Frame)) {
	var wg sync.WaitGroup
	for i, fr := range frames {
		wg.Go(func() { f(i, fr) })
	}
	wg.Wait()
}

// check reads the page again and reports whether no secret is rendered.
func (c *concealment) check(p pw.Page, m *secretMatcher) bool {
	frames := p.Frames()
	ok := make([]bool, len(frames))
	eachFrame(frames, func(i int, f pw.Frame) {
		fs, err := scanFrame(f)
		if err != nil {
			ok[i] = f.IsDetached()
			return
		}
		ok[i] = !fs.over && len(m.match(fs, true)) == 0
	})
	for _, o := range ok {
		if !o {
			return false
		}
	}
	return true
}

// paintedJS resolves once the frame's renderer has drawn twice since it
// ran (the hiding is in a frame it produced), or after a bound: a frame
// that does not draw (out of view, throttled) shows nothing new either.
const paintedJS = `() => new Promise(r => {
	const t = setTimeout(() => r(false), 1000);
	requestAnimationFrame(() => requestAnimationFrame(() => { clearTimeout(t); r(true); }));
})`

// painted waits until every frame where something was hidden has drawn
// itself since: the page's capture composites each frame's last drawing,
// and a frame of another origin draws in its own renderer, which under
// load may not have drawn the hiding yet (a password in such a frame
// showed in a screenshot once, at load 30, while its text read hidden).
// The page's own world runs it (drawing is the page's), so a page that
// stalls it is waited for at most paintWait.
func (c *concealment) painted() {
	frames := append(append([]pw.Frame{}, c.frames...), c.closedFrames...)
	done := make(chan struct{}, len(frames))
	for _, f := range frames {
		go func() {
			f.Evaluate(paintedJS)
			done <- struct{}{}
		}()
	}
	timer := time.NewTimer(paintWait)
	defer timer.Stop()
	for range frames {
		select {
		case <-done:
		case <-timer.C:
			return
		}
	}
}

// paintWait bounds painted.
const paintWait = 2 * time.Second

// restore shows the hidden elements again and lets go of the page handles.
func (c *concealment) restore() {
	if c == nil {
		return
	}
	if c.closed != nil {
		c.closed()
		c.closed = nil
	}
	eachFrame(c.frames, func(i int, f pw.Frame) {
		h := c.states[i]
		if !f.IsDetached() {
			f.Evaluate(restoreJS, h)
		}
		h.Dispose()
	})
	c.frames, c.states = nil, nil
}

// Capture runs capture with every element of p showing one of values
// hidden, and checks afterwards that none showed during it: a capture that
// cannot be made without showing one is refused with secret_leak, named
// by what ("screenshot", "PDF"...). With no values it just runs capture.
func Capture[T any](p pw.Page, values []string, what string, capture func() (T, error)) (T, error) {
	var zero T
	if len(values) == 0 {
		return capture()
	}
	m := newSecretMatcher(values)
	c, err := conceal(p, m, what)
	if err != nil {
		return zero, err
	}
	defer c.restore()
	c.painted()
	v, err := capture()
	if err != nil {
		return zero, err
	}
	if !c.check(p, m) {
		return zero, errConceal(what, "the page showed one of them again during the capture")
	}
	return v, nil
}

// Holds returns why p may not be sent as pixels: one of its frames shows
// one of values or holds a filled password field, a closed shadow root of
// its shows one or holds a field (closedHolds), or it could not be checked
// (fail closed). "" when it holds none.
func Holds(p pw.Page, values []string) string {
	m := newSecretMatcher(values)
	for _, f := range p.Frames() {
		fs, err := scanFrame(f)
		switch {
		case err != nil && f.IsDetached():
			continue
		case err != nil:
			return "a frame could not be checked for filled secrets (" + brief(err) + ")"
		case fs.over:
			return "a frame holds too much text to check for filled secrets"
		case len(m.match(fs, false)) > 0:
			return "it holds a filled credential or password"
		}
	}
	return closedHolds(p, m)
}

// brief is err's first line without Playwright's prefixes, at most 500
// bytes, for a refusal's message (the parent package shapes its own
// messages the same way).
func brief(err error) string {
	l, _, _ := strings.Cut(strings.TrimSpace(err.Error()), "\n")
	if n := 500; len(l) > n {
		for n > 0 && l[n]&0xC0 == 0x80 { // cut on a rune boundary
			n--
		}
		l = l[:n] + "…"
	}
	for _, p := range []string{"playwright: ", "timeout: ", "Error: ", "TimeoutError: "} {
		l = strings.ReplaceAll(l, p, "")
	}
	return l
}
