package browser

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
)

// The judge asked in each frame of a page (visibility.go): which frames,
// and what each is told of the part of it its page shows.

// judgePage asks the judge of each frame of t's page whose content snap
// (the snapshot judged) holds, at the same time: the main frame and the
// frames of snap's iframe lines (iframeRefs), each reached by its
// iframe's ref as Playwright reached it to snapshot it. A frame the
// snapshot does not hold has no line in it to judge, and asking it would
// ready Playwright's isolated world there (on a page of ads, dozens of
// frames: seconds). When an iframe line cannot be read for sure, every
// frame is asked. A frame whose judge does not answer fails the whole:
// its hidden text would reach the agent unchecked. A frame its iframe
// shows only part of is asked again with that part (Windows).
//
// own is what the snapshot shows as each ref's own text (ownTexts): the
// judge looks for generated text (::before, ::after) where a ref shows
// more than its document holds.
func judgePage(t *tab, wait time.Duration, own, snap string, pre *prejudge) (judgement, error) {
	asks := judgeAsks(t, snap)
	framesJudged.Add(int64(len(asks)))
	answers := make([]judgement, len(asks))
	todo := make([]int, len(asks))
	for i := range asks {
		todo[i] = i
	}
	// The main frame's walk asked behind the snapshot, when it holds.
	if i := slices.IndexFunc(asks, func(a *judgeAsk) bool { return a.main }); i >= 0 && pre != nil {
		if j, ok := finishPrejudge(t, pre, snap, own, wait); ok {
			answers[i] = j
			todo = slices.Delete(todo, i, i+1)
		}
	}
	// A frame its iframe shows only part of is judged again with that
	// part (a frame in it, with the part its own iframe shows of it then:
	// a few rounds at most).
	for round := 0; len(todo) > 0; round++ {
		if err := askFrames(asks, answers, todo, own, wait); err != nil {
			return judgement{}, err
		}
		var err error
		if todo, err = nextWindows(asks, answers, round); err != nil {
			return judgement{}, err
		}
	}
	var all judgement
	for _, a := range answers {
		all.add(a)
	}
	return all, nil
}

// judgeAsk is one frame's judge: ref is its iframe's ("" for the main
// frame, and for each frame when every frame is asked), win the part of
// it its iframe shows, when not all.
type judgeAsk struct {
	ref      string
	at       func(body string) pw.Locator
	detached func() bool
	win      *frameWindow
	// byIframe, when set, asks through the iframe's ref: what at asks
	// through (an element of the frame, for a quarter of the wait: a ref
	// a snapshot just gave is found at once unless it is gone) may be
	// gone while the frame is not.
	byIframe func(body string) pw.Locator
	// main: the ask is the main frame's (a walk asked behind the snapshot
	// may answer it: prejudge.go).
	main bool
}

// judgeAsks are the frames judgePage asks (see there). A frame whose
// content the snapshot holds is asked through the first element of it
// that has a ref (a ref of a frame's document, "f3e1", is resolved in
// that frame): asked through its iframe's ref, it waited behind the main
// frame's judge (the ref resolved in the main frame's world) instead of
// judging beside it when it is another process's (on a page of ad
// frames, tens of milliseconds a navigate). A frame with no line of its
// own in the snapshot is asked through its iframe's ref, as before.
func judgeAsks(t *tab, snap string) []*judgeAsk {
	var asks []*judgeAsk
	main := t.page.MainFrame()
	lines, ok := iframeLines(snap)
	if !ok {
		for _, f := range t.page.Frames() {
			asks = append(asks, &judgeAsk{at: func(b string) pw.Locator { return f.Locator(b) }, detached: f.IsDetached, main: f == main})
		}
		return asks
	}
	asks = append(asks, &judgeAsk{at: func(b string) pw.Locator { return main.Locator(b) }, detached: main.IsDetached, main: true})
	for _, l := range lines {
		in := t.page.Locator("aria-ref=" + l.ref).ContentFrame()
		a := &judgeAsk{ref: l.ref, detached: func() bool { return false }, at: func(b string) pw.Locator { return in.Locator(b) }}
		// (Never an element of the iframe's own document, which no line
		// under it should be: in doubt, the frame is reached through
		// the iframe.)
		if in := framePart(l.first); in != "" && in != framePart(l.ref) {
			first := t.page.Locator("aria-ref=" + l.first)
			a.at, a.byIframe = func(b string) pw.Locator { return first.Locator(b) }, a.at
		}
		asks = append(asks, a)
	}
	return asks
}

// framePart is the frame part of a ref (refAt's): "f3" of "f3e12", ""
// of "e12" (an element of the main frame's document).
func framePart(ref string) string {
	if i := strings.LastIndexByte(ref, 'e'); i > 0 {
		return ref[:i]
	}
	return ""
}

// body is the judge's selector for a: with the part of its frame its
// iframe shows, when it is known not to be all.
func (a *judgeAsk) body(own string) string {
	if a.win == nil {
		return visibilityEngine + "=snapshot;" + own
	}
	return visibilityEngine + "=snapshotw;" + a.win.body() + own
}

// askFrames judges the frames of todo (indexes of asks) at the same time,
// into answers. A frame whose judge does not answer fails the whole.
func askFrames(asks []*judgeAsk, answers []judgement, todo []int, own string, wait time.Duration) error {
	errs := make([]error, len(asks))
	var wg sync.WaitGroup
	for _, i := range todo {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := asks[i]
			if a.byIframe == nil {
				answers[i], errs[i] = judgeFrame(a.at(a.body(own)), wait)
				return
			}
			framesAskedInside.Add(1)
			if answers[i], errs[i] = judgeFrame(a.at(a.body(own)), wait/4); errs[i] != nil {
				a.at, a.byIframe = a.byIframe, nil
				answers[i], errs[i] = judgeFrame(a.at(a.body(own)), wait)
			}
		}()
	}
	wg.Wait()
	for _, i := range todo {
		a := asks[i]
		if errs[i] != nil && !a.detached() {
			// Once more: a frame loading another document meanwhile
			// loses its judge's context.
			answers[i], errs[i] = judgeFrame(a.at(a.body(own)), wait)
		}
		if errs[i] != nil {
			if a.detached() {
				answers[i] = judgement{} // gone meanwhile: its content is not in the next snapshot either
				continue
			}
			return abi.Errorf(abi.CodeExecutionFailed, "judging what the page shows failed (%s): take a new snapshot", firstLine(errs[i].Error()))
		}
	}
	return nil
}

// nextWindows sets on each ask the part of its frame its iframe shows,
// as the answers of round say it, and answers the asks whose part is new
// (to ask again).
func nextWindows(asks []*judgeAsk, answers []judgement, round int) ([]int, error) {
	windows := map[string]frameWindow{}
	for i := range answers {
		for ref, w := range answers[i].Windows {
			windows[ref] = w
		}
	}
	var todo []int
	for i, a := range asks {
		w, ok := windows[a.ref]
		if a.ref == "" || !ok || a.win != nil && a.win.body() == w.body() {
			continue
		}
		if round >= maxFrameDepth {
			return nil, abi.Errorf(abi.CodeExecutionFailed, "judging what the page shows failed (the part of a frame its iframe shows kept changing): take a new snapshot")
		}
		a.win = &w
		todo = append(todo, i)
	}
	return todo, nil
}

// maxFrameDepth bounds the rounds of judgePage: frames in frames that
// their iframes show only part of, as deep as that.
const maxFrameDepth = 6

// framesJudged counts the frames the judge was asked in (judgePage), and
// framesAskedInside those asked through an element of their own
// (judgeAsks), for tests.
var framesJudged, framesAskedInside atomic.Int64

func judgeFrame(at pw.Locator, wait time.Duration) (judgement, error) {
	var j judgement
	text, err := at.TextContent(pw.LocatorTextContentOptions{Timeout: pw.Float(float64(wait.Milliseconds()))})
	if err == nil {
		err = json.Unmarshal([]byte(text), &j)
	}
	return j, err
}

// frameWindow is the part of a frame's viewport the iframe shows, in the
// frame's CSS pixels.
type frameWindow struct {
	L float64 `json:"l"`
	T float64 `json:"t"`
	R float64 `json:"r"`
	B float64 `json:"b"`
	// Covers are the parts of it a painter above the iframe covers.
	Covers [][4]float64 `json:"covers"`
	// Ctx is what the page does to all of the frame's document (its
	// opacity, blur, filters, and the colours under it: frameContext).
	Ctx string `json:"ctx"`
}

// body is the window as the judge's selector takes it after
// "snapshotw;": "L,T,R,B;" then the covers as "L,T,R,B|...;".
func (w frameWindow) body() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%g,%g,%g,%g;", w.L, w.T, w.R, w.B)
	for i, c := range w.Covers {
		if i > 0 {
			b.WriteByte('|')
		}
		fmt.Fprintf(&b, "%g,%g,%g,%g", c[0], c[1], c[2], c[3])
	}
	b.WriteByte(';')
	b.WriteString(frameCtxChars.Replace(w.Ctx))
	b.WriteByte(';')
	return b.String()
}

// frameCtxChars keeps a frame context to the characters frameContext
// writes (digits, letters, and . , _ | -): it goes into a selector.
var frameCtxChars = strings.NewReplacer(";", "", ">", "", "\"", "", "'", "", " ", "", "\\", "")

// add merges the judgement of one frame into j.
func (j *judgement) add(a judgement) {
	if a.URL != "" {
		j.URLs = append(j.URLs, a.URL)
	}
	j.MS += a.MS
	j.Drop = append(j.Drop, a.Drop...)
	j.Runs = append(j.Runs, a.Runs...)
	j.Unexplained = append(j.Unexplained, a.Unexplained...)
	j.Closed = append(j.Closed, a.Closed...)
	j.Candidates += a.Candidates
	for k, v := range a.Parents {
		if j.Parents == nil {
			j.Parents = map[string]string{}
		}
		j.Parents[k] = v
	}
}
