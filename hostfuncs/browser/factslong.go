package browser

import (
	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
)

// factsLongJS is factsJS for a personality whose detectors all take a
// page with a long text for no wall (abi.FeatureLongTextPage). It counts
// the characters of the text's head as the detector does (code points
// other than space, tab, CR, LF, form feed and no-break space); past
// runes of them, it answers that head and no HTML: the document's
// serialisation, the driver's relay and the host's decoding of up to
// max UTF-16 units of it were spent on every navigation of an article
// for a detector that does not read it. A page with less text is read
// whole, as factsJS reads it.
const factsLongJS = `([max, runes, head]) => {
	const title = document.title;
	if (!max) return { title, text: "", html: "" };
	const text = document.body ? document.body.innerText : "";
	const start = text.slice(0, Math.min(max, head));
	const shown = start.match(/[^ \t\r\n\f\u00a0]/gu);
	if (shown && shown.length > runes) return { title, text: start, html: "" };
	return {
		title,
		text: text.slice(0, max),
		html: document.documentElement ? document.documentElement.outerHTML.slice(0, max) : ""
	};
}`

// longTextHead is how much of the text's start factsLongJS counts in (and
// answers): 8 UTF-16 units for each character it must find, so a text
// of mostly spaces and newlines is still recognised, and a few
// kilobytes where a whole text can be megabytes.
const longTextHead = 8 * abi.LongTextRunes

// detectFacts runs the page facts read the caller's detectors need: the
// long-text read when they all ask for it, else factsJS.
func detectFacts(ss *session, t *tab, max int) (any, error) {
	if c := hostfuncs.CallerFrom(ss.ctx); max > 0 && c != nil && c.LongTextPage() {
		return t.page.Evaluate(factsLongJS, []int{max, abi.LongTextRunes, longTextHead})
	}
	return t.page.Evaluate(factsJS, max)
}
