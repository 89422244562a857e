package browser

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	pw "github.com/mxschmitt/playwright-go"
)

// Prejudge: the judge's walk of the main frame's document (visibility.go)
// does not need the snapshot's text, only the refs Playwright's snapshot
// pass leaves on the elements. That pass ends in the page long before its
// text reaches the host: Playwright serializes the tree, renders it in
// the driver, snapshots each child frame (a frame of another process
// first readies its own isolated world), and sends the text. So the walk
// is asked behind the snapshot when the snapshot has not answered within
// the lead (the page's thread runs it after the snapshot's pass), and
// runs while the text travels; once the text
// is here, seen asks the walk's finish with the letters each ref shows
// (judgeWalk, judgesnap.js): one short round trip instead of the whole
// pass after the text. The search for closed roots holding slots
// (reachSlottedCount), which seen waits for as well, is asked behind the
// snapshot too (it needs no snapshot; a search that keeps new roots
// has the judge asked again, as before).
//
// A walk that ran before the snapshot's pass (the two requests crossed in
// the driver) would judge refs the snapshot then changed: the finish
// answers the walk only when the walk met every ref the snapshot gave (no
// higher ref number in the snapshot than it met) and the page's change
// watcher saw no change since the walk began (changes.go: a walk before
// the snapshot then saw the page the snapshot saw), and no field's value
// it hid has changed. Otherwise the finish answers stale and the judge
// walks again, as without a prejudge: nothing is taken from a walk that
// may not be the snapshot's.

// prejudgeLead is how long after sending the snapshot the walk (and the
// search for slots) is asked, unless seen has the snapshot by then: a
// small page's snapshot answers sooner, and its judge asked after it in
// one call costs less than a walk and a finish (two round trips). By
// then the driver has sent the snapshot's request to the page, so the
// page runs the walk after it (a walk that crosses it is only wasted).
const prejudgeLead = 15 * time.Millisecond

// leadNow is the lead in force: prejudgeLead, or what a test set (a
// short one makes even a small page's snapshot take the walk).
var leadNow atomic.Int64

func lead() time.Duration {
	if d := leadNow.Load(); d > 0 {
		return time.Duration(d)
	}
	return prejudgeLead
}

// finishBehind is how long the walk's request has been with the driver
// before the finish is sent without waiting for the walk's answer.
const finishBehind = 10 * time.Millisecond

// prejudge is a walk asked behind a snapshot of tab's main frame.
type prejudge struct {
	token string
	done  chan struct{}
	err   error
	// sent is when the lead passed, right before the walk's request
	// went to the driver (unix nanos).
	sent atomic.Int64
	// gate is 0 until the lead has passed, then 1 (the walk and the
	// search were asked), or 2 when seen took the snapshot first (neither
	// is asked: it judges in one call, as without a prejudge).
	gate atomic.Int32
	// The search for closed roots holding slots (reachSlottedCount),
	// asked behind the snapshot too: its count and error once slotsDone
	// is closed (nil: not asked).
	slotsDone chan struct{}
	slots     int
	slotsErr  error
}

var prejudgeTokens atomic.Int64

// prejudged counts the walks used (finished) and those found stale, for
// tests and the cost measurement.
var prejudged struct{ used, stale atomic.Int64 }

// prejudgeOff, set by the cost measurement (TestPrejudgeGain), asks no
// walk behind the snapshot: the judge walks after it, as it did before.
var prejudgeOff atomic.Bool

// startPrejudge asks the walk of t's main frame behind the snapshot about
// to be sent, and keeps it on t for seen (a newer one replaces it).
func startPrejudge(t *tab, wait time.Duration) *prejudge {
	if prejudgeOff.Load() {
		t.prejudge.Store(nil)
		return nil
	}
	p := &prejudge{token: strconv.FormatInt(prejudgeTokens.Add(1), 10), done: make(chan struct{})}
	t.prejudge.Store(p)
	main := t.page.MainFrame()
	failed := t.sheets.failedList()
	slots := !slotsAfter.Load()
	if slots {
		p.slotsDone = make(chan struct{})
	}
	go func() {
		defer close(p.done)
		time.Sleep(lead())
		// (Nothing is asked of a page holding a dialog: its renderer
		// answers nothing until the dialog is answered, and the search
		// would hold the tab's protocol session meanwhile.)
		if t.dialog.Load() != nil {
			p.gate.CompareAndSwap(0, 2)
		}
		// (Set before the gate opens: a prejudge seen takes has it.)
		p.sent.Store(time.Now().UnixNano())
		if !p.gate.CompareAndSwap(0, 1) {
			if slots {
				close(p.slotsDone)
			}
			return
		}
		if slots {
			go func() {
				defer close(p.slotsDone)
				p.slots, p.slotsErr = reachSlottedCount(t, wait)
			}()
		}
		var text string
		text, p.err = main.Locator(visibilityEngine + "=pass;" + p.token + ";" + failed).TextContent(pw.LocatorTextContentOptions{Timeout: pw.Float(float64(wait.Milliseconds()))})
		if p.err == nil {
			var w struct {
				Max *int `json:"max"`
			}
			if p.err = json.Unmarshal([]byte(text), &w); p.err == nil && w.Max == nil {
				p.err = errStaleWalk
			}
		}
	}()
	return p
}

// slotsAfter, set by the cost measurement (TestPrejudgeGain), asks the
// search for slots when the snapshot is here, not behind it.
var slotsAfter atomic.Bool

// take is the prejudge seen uses for its snapshot: p, when the walk was
// asked; nil when it was not (seen came first and it never will be).
func (p *prejudge) take() *prejudge {
	if p == nil || p.gate.CompareAndSwap(0, 2) || p.gate.Load() != 1 {
		return nil
	}
	return p
}

// slotsFound is the count and error of the search for slots asked
// behind the snapshot (ok false when there is none, or it has not
// answered within wait: the search is then asked again).
func (p *prejudge) slotsFound(wait time.Duration) (n int, err error, ok bool) {
	if p == nil || p.slotsDone == nil {
		return 0, nil, false
	}
	select {
	case <-p.slotsDone:
		return p.slots, p.slotsErr, true
	case <-time.After(wait):
		return 0, nil, false
	}
}

// dropPrejudge forgets p when it is still t's (its snapshot failed), and
// asks nothing for it when nothing was asked yet.
func dropPrejudge(t *tab, p *prejudge) {
	if p != nil {
		p.gate.CompareAndSwap(0, 2)
	}
	t.prejudge.CompareAndSwap(p, nil)
}

type staleWalk struct{}

func (staleWalk) Error() string { return "the walk is not the snapshot's" }

var errStaleWalk error = staleWalk{}

// finishPrejudge answers the main frame's judgement of snap from the walk
// kept on t, when there is one and it holds for snap (see above); ok is
// false otherwise, and the judge is to be asked whole.
func finishPrejudge(t *tab, p *prejudge, snap, own string, wait time.Duration) (j judgement, ok bool) {
	// The finish goes without waiting for the walk's answer once the
	// walk's request has been with the driver for finishBehind: the page
	// runs the finish after the walk, so neither waits for the other (a
	// finish that overtook the walk is asked again below). It carries the snapshot's highest ref of each frame
	// part; the walk takes its own document's.
	select {
	case <-p.done:
	case <-time.After(finishBehind - time.Since(time.Unix(0, p.sent.Load()))):
	}
	body := visibilityEngine + "=finish;" + p.token + ";" + refMaxes(snap) + ";" + own
	out, err := askFinish(t, body, wait)
	if err == nil && out.Stale == "no walk" {
		// The finish overtook the walk in a busy driver: once the walk has
		// answered, the finish is asked again.
		select {
		case <-p.done:
			if p.err == nil {
				out, err = askFinish(t, body, wait)
			}
		case <-time.After(wait):
		}
	}
	if err != nil || out.Stale != "" {
		prejudged.stale.Add(1)
		return j, false
	}
	prejudged.used.Add(1)
	t.prejudges.Add(1)
	return out.judgement, true
}

// finished is the finish's answer: the judgement, or why the walk is
// stale.
type finished struct {
	judgement
	Stale string `json:"stale"`
}

func askFinish(t *tab, body string, wait time.Duration) (finished, error) {
	var out finished
	text, err := t.page.MainFrame().Locator(body).TextContent(pw.LocatorTextContentOptions{Timeout: pw.Float(float64(wait.Milliseconds()))})
	if err == nil {
		err = json.Unmarshal([]byte(text), &out)
	}
	return out, err
}

// refMaxes is the highest number of snap's refs of each frame part
// ("e12" has "", "f3e12" has "f3"), as "PART:MAX" joined by commas, for
// the walk to take its own document's (a walk that met no ref takes the
// highest of all: it holds only for a snapshot with none). A ref written
// in a page's text can only raise one (the walk is then refused, and the
// judge walks again).
func refMaxes(snap string) string {
	maxes := map[string]int{}
	for rest := snap; ; {
		i := strings.Index(rest, "[ref=")
		if i < 0 {
			break
		}
		rest = rest[i+len("[ref="):]
		r, _ := refAt(rest)
		part := framePart(r)
		if n, err := strconv.Atoi(r[min(len(r), len(part)+1):]); err == nil && n > maxes[part] {
			maxes[part] = n
		}
	}
	parts := make([]string, 0, len(maxes))
	for part, n := range maxes {
		parts = append(parts, part+":"+strconv.Itoa(n))
	}
	slices.Sort(parts)
	return strings.Join(parts, ",")
}
