package host

// pageJudged tells the browser what the detector decided about the page a
// browser call landed on (Browser.Withhold, Browser.Release): a page
// withheld from this call stays withheld from every later call that would
// read or act on it (hostfuncs/browser/withheld.go), until a navigation
// the detector passes or a human's hand-back. A tool that does not use the
// browser judges no browser page: its verdict leaves the browser alone.
func (run *hookRun) pageJudged() {
	r := run.p.tools[run.req.Tool]
	if r == nil || !usesBrowser(r.grants) {
		return
	}
	b := run.h.Browser()
	if b == nil {
		return
	}
	if run.callErr != nil {
		b.Withhold(run.p.name, run.req.Session, run.callErr)
		return
	}
	b.Release(run.p.name, run.req.Session)
}
