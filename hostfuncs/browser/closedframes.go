package browser

import (
	"errors"
	"strings"
	"sync"
	"time"

	pw "github.com/mxschmitt/playwright-go"
)

// Closed roots in frames of other processes.
//
// The search for slots in closed roots (reachSlotted) and the stash of a
// custom element's closed root (reachClosed) run on the tab's protocol
// session, whose DOM holds the documents of the page's own process only.
// A frame of another site is, with site isolation, a document of another
// renderer process (an out-of-process iframe): a closed root there that
// slotted the frame's light text into a wrapper at opacity 0 was found
// by neither, and the text reached the snapshot (a page of ours, a frame
// from another loopback name: both sentences in). Such a frame has a
// protocol session of its own, which Playwright opens on the frame's
// target.
//
// Which frames: those whose documents the judge answered for (their URLs,
// in judgement.URLs), matched against the page's frames by URL, but for
// the browser's own error page (a frame that did not load); a frame
// of the page's own process (Playwright answers that it has no session of
// its own) is the tab's session's already. Each frame's session is
// opened once, kept while the frame is attached, and used through a
// tabProtocol (one use at a time; a session that fails is dropped and a
// new one tries once more). They run after the judge's first pass (which
// names the frames); a frame where roots new to its world are kept is
// judged again with the rest of the page. A session that cannot be opened
// for another reason, or a search that fails, fails the whole: the judge
// must not answer for a frame half reached.

// remoteFrames are the protocol sessions of a tab's frames of other
// processes, by frame.
type remoteFrames struct {
	mu sync.Mutex
	by map[pw.Frame]*remoteFrame
}

type remoteFrame struct {
	proto tabProtocol
	// local: the frame is of the page's process (no session of its own).
	local bool
}

// each runs f on the session of each frame of t's page, other than the
// main frame, whose URL is one of urls and that is of another process,
// all at the same time, within wait; it answers the sum of f's counts.
func (r *remoteFrames) each(t *tab, wait time.Duration, urls []string, f func(pw.CDPSession) (int, error)) (int, error) {
	todo, on := r.pick(t, urls)
	if len(todo) == 0 {
		return 0, nil
	}
	counts := make([]int, len(todo))
	errs := make([]error, len(todo))
	err := bounded(wait, func() error {
		var wg sync.WaitGroup
		for i, rf := range todo {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = rf.proto.do(t, func(cdp pw.CDPSession) error {
					n, err := f(cdp)
					counts[i] = n
					return err
				})
			}()
		}
		wg.Wait()
		return nil
	})
	if err != nil {
		return 0, err
	}
	total := 0
	for i, rf := range todo {
		switch {
		case errs[i] == nil:
			total += counts[i]
		case errors.Is(errs[i], errNoSession) && strings.Contains(errs[i].Error(), "does not have a separate CDP session"):
			r.mu.Lock()
			rf.local = true
			r.mu.Unlock()
		case on[i].IsDetached():
			// gone meanwhile: its content is not in the next snapshot either
		default:
			return total, errs[i]
		}
	}
	return total, nil
}

// pick is the frames of t's page each asks (with their sessions, made
// for the frames new to r), and forgets the frames no longer attached
// (their sessions with them).
func (r *remoteFrames) pick(t *tab, urls []string) (todo []*remoteFrame, on []pw.Frame) {
	want := map[string]bool{}
	for _, u := range urls {
		// (The browser's own error page, shown for a frame that did not
		// load, holds nothing a page wrote.)
		if !strings.HasPrefix(u, "chrome-error:") {
			want[u] = true
		}
	}
	if len(want) == 0 {
		return nil, nil
	}
	main := t.page.MainFrame()
	frames := t.page.Frames()
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.by == nil {
		r.by = map[pw.Frame]*remoteFrame{}
	}
	attached := map[pw.Frame]bool{}
	for _, fr := range frames {
		attached[fr] = true
		if fr == main || !want[fr.URL()] {
			continue
		}
		rf := r.by[fr]
		if rf == nil {
			rf = &remoteFrame{}
			rf.proto.frame = fr
			r.by[fr] = rf
		}
		if !rf.local {
			todo = append(todo, rf)
			on = append(on, fr)
		}
	}
	for fr, rf := range r.by {
		if !attached[fr] {
			delete(r.by, fr)
			if c := rf.proto.current(); c != nil {
				go c.Detach()
			}
		}
	}
	return todo, on
}
