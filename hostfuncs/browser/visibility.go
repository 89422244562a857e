package browser

import (
	_ "embed"
	"strings"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
)

// Visibility: what reaches the model is what a sighted user sees on the
// page, plus the accessible names of controls (DESIGN, "Seen, not
// hidden"). One judge (visibility.js) decides it from what the renderer
// lays out and paints, for the snapshot and browser_read alike:
//
//   - the styles that pass down (display, visibility, content-visibility,
//     the product of opacities with filter opacity() and masks that hide
//     all, aria-hidden), and 3D (a face turned away, a box behind the
//     viewer);
//   - the boxes of each text node (Range.getClientRects) after the clips
//     that apply (overflow, clip, clip-path shapes, paint containment,
//     the scrollable areas: nothing left of or above a scroll origin
//     shows), word by word for a text only partly shown (a clipped
//     tail, an ellipsis, a line clamp);
//   - its colours as the browser resolves them (any colour space, drawn on
//     a 1x1 canvas), through the colour filters and blend modes on the
//     way, against the background colours below it (gradient stops
//     included; a picture by its main colours where its pixels can be
//     read, else taken to show anything), with a
//     stroke or a close shadow that shows where the fill does not, and
//     the ::first-line colour; a heavy blur hides it;
//   - what covers it, by geometry and paint order, not hit tests (a hit
//     test sees only the viewport, and a kept snapshot must not depend on
//     where the page is scrolled): a positioned box painting opaque
//     (background, picture, a backdrop filter that hides, an opaque
//     positioned ::before/::after), a wide opaque shadow or outline,
//     above the text by z-index or document order; an in-flow background
//     over a negative z-index; a modal's opaque backdrop or an opaque box
//     fixed over the whole viewport covers all the rest.
//
// The snapshot is not changed in the page: the judge runs after it, in
// Playwright's isolated world where each element keeps its snapshot ref,
// and answers the refs of elements nothing of which shows and the hidden
// text runs under the nearest element with a ref; the host takes them out
// of the snapshot's lines (filterHidden). Nothing is written to the page,
// so neither the page nor the change watcher sees the pass.
//
// Invisible format characters (tags, zero-width, bidi controls) are taken
// out of every string the page gives (visibleChars).

//go:embed authored.js
var authoredJS string

//go:embed visibility.js
var judgeJS string

// visibilityJS is the judge (visibility.js) with what it asks of the
// page's style sheets first (authored.js).
var visibilityJS = authoredJS + judgeJS

//go:embed judgesnap.js
var judgeSnapshotJS string

// visibilityEngineJS is the judge as a selector engine Playwright runs in
// its isolated world of every document: ww-visible=snapshot answers
// judgeSnapshot's result, and ww-visible=read browser_read's walk
// (visibleDOMJS) with the closed roots known in that world, each as the
// text of an element made for it, never inserted into the document. One
// engine holds the judge's code once: each engine's source is compiled
// in every new document's isolated world, and a navigate waits for that.
var visibilityEngineJS = `(() => {
` + visibilityJS + closedJS + judgeSnapshotJS + `
	const read = (probe, closed) => {` + readWalkJS + `;
	// pending: the walk of "pass;TOKEN" (judgeWalk), waiting for its
	// "finish;TOKEN;MAX;OWN" (prejudge.go), with the count of changes
	// the change watcher had seen when it began.
	let pending = null;
	const answer = v => { const e = document.createElement("span"); e.textContent = JSON.stringify(v); return [e]; };
	const split = (root, body) => {
		if (body.startsWith("pass;")) {
			// "pass;TOKEN;FAILED": FAILED, the addresses of the stylesheets
			// the host saw fail to load, each escaped, comma separated.
			const i = body.indexOf(";", 5), token = i < 0 ? body.slice(5) : body.slice(5, i);
			const urls = i < 0 ? [] : body.slice(i + 1).split(",").filter(Boolean).map(u => { try { return decodeURIComponent(u.replace(/\+/g, " ")); } catch { return ""; } });
			globalThis.__wwFailedSheets = {doc: document, urls: new Set(urls)};
			const marks = globalThis.__wwMarks, w = judgeWalk(document, null);
			pending = {token, doc: document, w, marks};
			return answer({max: w.max, prefix: w.prefix, ms: w.ms, authored: w.authored});
		}
		// "finish;TOKEN;MAXES;OWN": MAXES, the snapshot's highest ref of
		// each frame part ("f3:41,:12"; "" is a part).
		const i = body.indexOf(";", 7), j = body.indexOf(";", i + 1);
		const p = pending, token = body.slice(7, i), maxes = new Map();
		for (const x of body.slice(i + 1, j).split(",")) { const k = x.lastIndexOf(":"); if (k >= 0) maxes.set(x.slice(0, k), +x.slice(k + 1)); }
		pending = null;
		// The walk holds for this snapshot only when it met every ref the
		// snapshot gave and nothing changed since it began: whether it ran
		// before the snapshot's pass in the page or after, it saw the page
		// the snapshot saw.
		if (!p || p.token !== token || p.doc !== document) return answer({stale: "no walk"});
		const max = p.w.prefix !== null ? maxes.get(p.w.prefix) || 0 : Math.max(0, ...maxes.values());
		if (!(p.w.max >= max)) return answer({stale: "refs"});
		if (typeof p.marks !== "number" || globalThis.__wwMarks !== p.marks) return answer({stale: "changed"});
		const out = p.w.finish(body.slice(j + 1));
		return answer(out || {stale: "value"});
	};
	const queryAll = (root, body) => {
		if (body.startsWith("pass;") || body.startsWith("finish;")) return split(root, body);
		if (body === "read") {
			return answer(read(false, true));
		}
		if (!body.startsWith("snapshot")) return [];
		// "snapshot;OWN", or "snapshotw;L,T,R,B;COVERS;CTX;OWN" in a frame
		// its parent shows part of, covers part of, or changes all of
		// (frameWindow.body).
		let own = body.slice(9), win = null;
		if (body.startsWith("snapshotw;")) {
			const i = body.indexOf(";", 10), j = body.indexOf(";", i + 1), k = body.indexOf(";", j + 1), [l, t, r, b] = body.slice(10, i).split(",").map(Number);
			const covers = body.slice(i + 1, j).split("|").filter(Boolean).map(c => c.split(",").map(Number));
			win = {l, t, r, b, covers, ctx: body.slice(j + 1, k)};
			own = body.slice(k + 1);
		}
		return answer(judgeSnapshot(document, own, win));
	};
	return { query: (root, body) => queryAll(root, body)[0], queryAll };
})()`

// visibilityEngine is the selector engine's name.
const visibilityEngine = "ww-visible"

// registerVisibility installs the judge on a driver, as registerChanges
// does the change watcher.
func registerVisibility(p *pw.Playwright) error {
	return registerEngine(p, visibilityEngine, visibilityEngineJS)
}

// judgement is what the judge answers of a document: the refs of the
// elements none of whose content shows, and hidden text under refs.
type judgement struct {
	Drop []string    `json:"drop"`
	Runs []hiddenRun `json:"runs"`
	MS   float64     `json:"ms"` // the pass's time in the page
	// Unexplained are the refs whose lines show more letters than their
	// text nodes and seen generated text hold: their names are labels no
	// one sees (unseenNames).
	Unexplained []string `json:"unexplained"`
	// Closed is the text shown in closed shadow roots, Candidates the
	// elements new to the host that may hold one (closedroots.go).
	Closed     []closedText `json:"closed"`
	Candidates int          `json:"candidates"`
	// Parents maps the refs of Runs and Drop (and those above them) to the
	// ref of the nearest element above each that has one: a run whose ref
	// has no line of its own is looked for under the nearest that has.
	Parents map[string]string `json:"parents"`
	// Windows: the part of its frame each iframe (by ref) shows, where it
	// does not show all of it: that frame is judged with it.
	Windows map[string]frameWindow `json:"windows"`
	// URL is the judged document's; URLs, those of all the documents a
	// page's judgement is made of (closedframes.go).
	URL  string   `json:"url"`
	URLs []string `json:"-"`
}

// hiddenRun is hidden text (white space as one space) under the element
// of Ref (the nearest holding it that has a ref; "" for none). Tail: the
// hidden words of a text otherwise shown.
type hiddenRun struct {
	Ref  string `json:"ref"`
	Text string `json:"text"`
	Tail bool   `json:"tail,omitempty"`
	// Value: the text is the value of the field of Ref (a control), which
	// keeps its name.
	Value bool `json:"value,omitempty"`
	// Label: the text is the label (aria-label, aria-labelledby) of an
	// element under Ref that has no ref of its own (Playwright gives none
	// to an element with no box or no pointer events), which no one sees:
	// it goes from the name of a line with no ref that is exactly it.
	Label bool `json:"label,omitempty"`
	// Placeholder: the text is the placeholder of the field of Ref, which
	// does not show (the field holds a value, or its ::placeholder style
	// hides it): its /placeholder line goes.
	Placeholder bool `json:"placeholder,omitempty"`
}

// visibleChars takes out of s the characters that draw nothing and that a
// model still reads: format characters (Unicode's Cf: zero-width spaces
// and joiners, bidi controls, the tag characters U+E0000-E007F, soft
// hyphens) and blankRunes (variation selectors, fillers).
func visibleChars(s string) string {
	// Most of a page is ASCII or letters, none of it invisible: the scan
	// decodes only at the bytes that can start an invisible character
	// (invisibleLead); a large snapshot is most of a megabyte. Every
	// character starts at a byte that is no continuation byte, so stepping
	// byte by byte meets each one's start.
	first := -1
	for i := 0; i < len(s); i++ {
		if !invisibleLead[s[i]] {
			continue
		}
		if r, _ := utf8.DecodeRuneInString(s[i:]); invisibleRune(r) {
			first = i
			break
		}
	}
	if first < 0 {
		return s
	}
	if !utf8.ValidString(s) {
		// (strings.Map also turns each invalid byte into U+FFFD.)
		return strings.Map(func(r rune) rune {
			if invisibleRune(r) {
				return -1
			}
			return r
		}, s)
	}
	// The text between the invisible characters, copied as it is.
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:first])
	last := first
	for i := first; i < len(s); i++ {
		if !invisibleLead[s[i]] {
			continue
		}
		if r, n := utf8.DecodeRuneInString(s[i:]); invisibleRune(r) {
			b.WriteString(s[last:i])
			last = i + n
			i += n - 1
		}
	}
	b.WriteString(s[last:])
	return b.String()
}

// invisibleLead marks the bytes that start the UTF-8 form of an invisible
// character (invisibleRune), from Unicode's own tables.
var invisibleLead = func() (lead [256]bool) {
	var buf [utf8.UTFMax]byte
	mark := func(lo, hi rune) {
		for r := lo; r <= hi; r++ {
			utf8.EncodeRune(buf[:], r)
			lead[buf[0]] = true
		}
	}
	for _, r := range unicode.Cf.R16 {
		mark(rune(r.Lo), rune(r.Hi))
	}
	for _, r := range unicode.Cf.R32 {
		mark(rune(r.Lo), rune(r.Hi))
	}
	for _, x := range blankRunes {
		mark(x[0], x[1])
	}
	return lead
}()

// blankRunes are the characters besides Cf that draw nothing and carry
// nothing a person reads: variation selectors (which can spell bytes
// after an emoji), the combining grapheme joiner, Hangul fillers, the
// blank Braille pattern, Khmer's inherent vowels and Mongolian's free
// variation selectors. (judgesnap.js's invisible lists the same.)
var blankRunes = [][2]rune{
	{0xfe00, 0xfe0f}, {0xe0100, 0xe01ef}, {0x034f, 0x034f}, {0x115f, 0x1160}, {0x17b4, 0x17b5},
	{0x180b, 0x180d}, {0x180f, 0x180f}, {0x2800, 0x2800}, {0x3164, 0x3164}, {0xffa0, 0xffa0},
}

func invisibleRune(r rune) bool {
	if r < 0xad {
		return false
	}
	if unicode.Is(unicode.Cf, r) {
		return true
	}
	for _, x := range blankRunes {
		if r >= x[0] && r <= x[1] {
			return true
		}
	}
	return false
}

// seen judges the page of a snapshot just taken and takes out of it what
// a person cannot see. A judge that fails fails the snapshot (fail
// closed): the agent is told to take it again.
// With mark, the hidden text stays, marked (filterHidden).
func (s *pages) seen(t *tab, snap string, wait time.Duration, mark bool) (string, error) {
	t0 := time.Now()
	snap = visibleChars(snap)
	// The snapshot is parsed (once, for the answer) while the page judges:
	// the question comes from a lighter pass over it (quickOwnTexts), and
	// the parsed snapshot's own answer checks it after; where the two
	// differ, the judge is asked again with the parsed one.
	parsing := make(chan parsedOwn, 1)
	go func() {
		p := parseSnapshot(snap)
		parsing <- parsedOwn{p, p.ownTexts()}
	}()
	own := quickOwnTexts(snap)
	// The search for closed roots that hold slots runs beside the judge's
	// first pass (it costs a page with none its round trips only); a pass
	// it kept new roots for, as one asked with another question, is
	// asked again.
	type slotsKept struct {
		n   int
		err error
	}
	// (Both may have been asked behind the snapshot: prejudge.go.)
	pre := t.prejudge.Swap(nil).take()
	slots := make(chan slotsKept, 1)
	go func() {
		if n, err, ok := pre.slotsFound(wait); ok {
			slots <- slotsKept{n, err}
			return
		}
		n, err := reachSlottedCount(t, wait)
		slots <- slotsKept{n, err}
	}()
	j, err := judgePage(t, wait, own, snap, pre)
	parsed, kept := <-parsing, <-slots
	if kept.err != nil {
		return "", kept.err
	}
	if err == nil && (parsed.own != own || kept.n > 0) {
		found := j.Candidates // (each candidate is answered once)
		j, err = judgePage(t, wait, parsed.own, snap, nil)
		j.Candidates += found
	}
	if err == nil {
		// Closed roots holding slots in the frames of other processes the
		// judge answered for (closedframes.go): a frame where new ones
		// are kept is judged again, with the rest of the page.
		var kept int
		if kept, err = t.remote.each(t, wait, j.URLs, searchSlotsCount); err != nil {
			err = abi.Errorf(abi.CodeExecutionFailed, "reaching the closed shadow roots of a frame failed (%s): take a new snapshot", firstLine(err.Error()))
		} else if kept > 0 {
			found := j.Candidates
			j, err = judgePage(t, wait, parsed.own, snap, nil)
			j.Candidates += found
		}
	}
	if err == nil && j.Candidates > 0 {
		j, err = judgeClosed(t, wait, parsed.own, snap, j.URLs)
	}
	if err != nil {
		return "", err
	}
	out := withClosedText(parsed.p.filter(j, mark), j.Closed)
	judged.add(time.Since(t0), j.MS, len(snap), len(out))
	return out, nil
}

// parsedOwn is a parsed snapshot and its ownTexts.
type parsedOwn struct {
	p   *parsedSnapshot
	own string
}

// marksHidden says the call holding ss asks for hidden text marked in its
// snapshots (hidden_text = "mark"), not taken out.
func marksHidden(ss *session) bool {
	if ss.ctx == nil {
		return false
	}
	c := hostfuncs.CallerFrom(ss.ctx)
	return c != nil && c.MarkHidden()
}

// judged counts the judge's passes over snapshots, their time and the
// bytes they took out, for the cost measurement (TestVisibilityCost).
var judged judgeStats

type judgeStats struct{ passes, nanos, pageNanos, before, after atomic.Int64 }

func (j *judgeStats) add(d time.Duration, pageMS float64, before, after int) {
	j.passes.Add(1)
	j.nanos.Add(int64(d))
	j.pageNanos.Add(int64(pageMS * 1e6))
	j.before.Add(int64(before))
	j.after.Add(int64(after))
}
