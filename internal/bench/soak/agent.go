package main

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/internal/bench/mcphttp"
)

// tally counts what the agents did: calls per tool, their latency, and
// every failure by tool and abi error code, the expected ones (a wall
// answered bot_wall, a refused host answered refused) apart.
type tally struct {
	mu                 sync.Mutex
	calls              map[string]int
	lat                map[string][]time.Duration
	expected           map[string]int // "tool: code"
	unexpected         map[string]int // "tool: code"
	example            map[string]string
	opened, closed     int
	takeovers, handed  int
	laps, checkedForms int
	// warm is when as many laps as agents were done (since the start):
	// every agent has warmed up, or near enough.
	warm  time.Duration
	start time.Time
}

func newTally() *tally {
	return &tally{calls: map[string]int{}, lat: map[string][]time.Duration{}, expected: map[string]int{},
		unexpected: map[string]int{}, example: map[string]string{}}
}

// fail counts an unexpected failure under key, keeping its first message.
func (t *tally) fail(key, msg string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.unexpected[key]++
	if _, ok := t.example[key]; !ok {
		t.example[key] = clip(msg, 300)
		fmt.Fprintf(os.Stderr, "soak: unexpected failure, %s: %s\n", key, t.example[key])
	}
}

func (t *tally) add(f func(t *tally)) {
	t.mu.Lock()
	defer t.mu.Unlock()
	f(t)
}

func (t *tally) unexpectedTotal() int {
	return t.total(func(t *tally) map[string]int { return t.unexpected })
}

// total sums the counts of one of t's maps (which, read under t's lock).
func (t *tally) total(which func(t *tally) map[string]int) int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, v := range which(t) {
		n += v
	}
	return n
}

// codeOf is the abi error code of a failed call: the tool's "error CODE:
// message", else "transport" (the HTTP exchange or JSON-RPC failed).
func codeOf(err error) string {
	var rpc *toolError
	if errors.As(err, &rpc) {
		return rpc.code
	}
	return "transport"
}

type toolError struct{ code, msg string }

func (e *toolError) Error() string { return e.code + ": " + e.msg }

var errLine = regexp.MustCompile(`^error ([a-z_]+): `)

// asToolError reads a tool's "error CODE: message" answer as a toolError.
func asToolError(err error) error {
	if err != nil {
		if m := errLine.FindStringSubmatch(err.Error()); m != nil {
			return &toolError{code: m[1], msg: strings.TrimPrefix(err.Error(), m[0])}
		}
	}
	return err
}

// run is one soak: the server, the site, the clock and what was counted.
type run struct {
	ctx         context.Context
	hc          *http.Client
	url, token  string
	site        *site
	t           *tally
	end         time.Time
	takeoverDue atomic.Int32 // takeovers asked for and not yet claimed by an agent
	agents      int
	// pause is an agent's wait before each call (a model thinking); 0:
	// none. callWait bounds one call (default 5m: a fleet's call may wait
	// in the grid's queue longer). shortSessions: an MCP session does one
	// or two laps, not 3-7, so a grid slot goes back to the queue sooner.
	pause         time.Duration
	callWait      time.Duration
	shortSessions bool
}

func (r *run) over() bool { return time.Now().After(r.end) || r.ctx.Err() != nil }

// agent opens a session, does a few laps of work, closes it and opens the
// next, until the run is over.
func (r *run) agent(i int) {
	for k := 0; !r.over(); {
		ctx, cancel := context.WithTimeout(r.ctx, time.Minute)
		c, err := mcphttp.Dial(ctx, r.hc, r.url, r.token)
		cancel()
		if err != nil {
			r.t.fail("session open: transport", err.Error())
			time.Sleep(time.Second) // not a synchronisation: a failing server is not hammered
			continue
		}
		r.t.add(func(t *tally) { t.opened++ })
		a := &session{r: r, c: c, name: fmt.Sprintf("agent %d", i)}
		laps := 3 + (i+k)%5
		if r.shortSessions {
			laps = 1 + (i+k)%2
		}
		for ; laps > 0 && !r.over(); laps-- {
			a.lap(i, k)
			k++
		}
		ctx, cancel = context.WithTimeout(context.Background(), 30*time.Second)
		if err := c.Close(ctx); err != nil {
			r.t.fail("session close: transport", err.Error())
		} else {
			r.t.add(func(t *tally) { t.closed++ })
		}
		cancel()
	}
}

// session is one MCP session of an agent.
type session struct {
	r    *run
	c    *mcphttp.Client
	name string
}

// call calls a tool and counts it. expect is the abi code the call must
// fail with ("" when it must succeed); it returns the call's text and
// whether it went as expected.
func (s *session) call(tool string, args map[string]any, expect abi.Code) (string, bool) {
	if s.r.pause > 0 {
		// The agent's model reading the last answer: the workload, not a
		// synchronisation.
		select {
		case <-s.r.ctx.Done():
		case <-time.After(s.r.pause):
		}
	}
	wait := s.r.callWait
	if wait == 0 {
		wait = 5 * time.Minute
	}
	ctx, cancel := context.WithTimeout(s.r.ctx, wait)
	defer cancel()
	text, d, err := s.c.Tool(ctx, tool, args)
	err = asToolError(err)
	s.r.t.add(func(t *tally) { t.calls[tool]++; t.lat[tool] = append(t.lat[tool], d) })
	switch {
	case err == nil && expect == "":
		return text, true
	case err == nil:
		s.r.t.fail(tool+": succeeded, "+string(expect)+" expected", firstLine(text, 160))
		return text, false
	case codeOf(err) == string(expect):
		s.r.t.add(func(t *tally) { t.expected[tool+": "+string(expect)]++ })
		return text, true
	case codeOf(err) == string(abi.CodeExecutionFailed) && strings.Contains(err.Error(), "dialog is open") && tool != "browser_dialog":
		// The page opened an alert (a corpus page does): the answer says
		// to accept or dismiss it, and an agent does.
		s.r.t.add(func(t *tally) { t.expected[tool+": execution_failed (the page opened a dialog; answered)"]++ })
		s.answerDialogs()
		return text, false
	}
	where := ""
	if u, ok := args["url"].(string); ok {
		where = " [" + u + "]"
	}
	s.r.t.fail(tool+": "+codeOf(err), err.Error()+where)
	return text, false
}

// answerDialogs accepts the dialogs the page holds open, one after the
// other, until none is left (dialog_gone, expected) or five were answered.
func (s *session) answerDialogs() {
	for range 5 {
		ctx, cancel := context.WithTimeout(s.r.ctx, 5*time.Minute)
		_, d, err := s.c.Tool(ctx, "browser_dialog", map[string]any{"accept": true, "snapshot": "none"})
		cancel()
		err = asToolError(err)
		s.r.t.add(func(t *tally) {
			t.calls["browser_dialog"]++
			t.lat["browser_dialog"] = append(t.lat["browser_dialog"], d)
		})
		switch {
		case err == nil:
			continue
		case codeOf(err) == string(abi.CodeDialogGone):
			s.r.t.add(func(t *tally) { t.expected["browser_dialog: dialog_gone (none left)"]++ })
		default:
			s.r.t.fail("browser_dialog: "+codeOf(err), err.Error())
		}
		return
	}
}

var (
	textboxRef = regexp.MustCompile(`textbox "Name"[^\n]*\[ref=([^\]\s]+)\]`)
	buttonRef  = regexp.MustCompile(`button "Send"[^\n]*\[ref=([^\]\s]+)\]`)
)

// lap is one round of an agent's work: a corpus page read, the form filled
// in and sent by refs, now and then a wall and a refused host (expected
// failures), and a takeover when one is due.
func (s *session) lap(i, k int) {
	pages := s.r.site.pages
	if _, ok := s.call("browser_navigate", map[string]any{"url": pages[(i*17+k)%len(pages)]}, ""); ok {
		s.call("browser_snapshot", map[string]any{}, "")
	}
	if s.r.over() {
		return
	}
	s.form(fmt.Sprintf("%s lap %d", s.name, k))
	if k%3 == i%3 && !s.r.over() {
		s.call("browser_navigate", map[string]any{"url": s.r.site.url("/wall")}, abi.CodeBotWall)
		s.call("browser_navigate", map[string]any{"url": "http://10.255.0.1/"}, abi.CodeRefused)
	}
	if n := s.r.takeoverDue.Load(); n > 0 && !s.r.over() && s.r.takeoverDue.CompareAndSwap(n, n-1) {
		s.takeover()
	}
	s.r.t.add(func(t *tally) {
		t.laps++
		if t.laps == s.r.agents {
			t.warm = time.Since(t.start)
		}
	})
}

// form navigates to the form, types into its field and clicks its button
// by the refs of the snapshot the navigation answered with, and checks that
// the page then shows what was typed.
func (s *session) form(text string) {
	snap, ok := s.call("browser_navigate", map[string]any{"url": s.r.site.url("/form")}, "")
	if !ok {
		return
	}
	box, btn := textboxRef.FindStringSubmatch(snap), buttonRef.FindStringSubmatch(snap)
	if box == nil || btn == nil {
		s.r.t.fail("browser_navigate: no ref for the form's field or button", snap)
		return
	}
	if _, ok := s.call("browser_type", map[string]any{"ref": box[1], "text": text}, ""); !ok {
		return
	}
	if _, ok := s.call("browser_click", map[string]any{"ref": btn[1]}, ""); !ok {
		return
	}
	after, ok := s.call("browser_snapshot", map[string]any{"snapshot": "full"}, "")
	if ok && !strings.Contains(after, "Thanks, "+text) {
		s.r.t.fail("browser_click: the page does not show what was typed", after)
		return
	}
	s.r.t.add(func(t *tally) { t.checkedForms++ })
}

// takeover asks for a human on the form page and waits for the operator
// (the soak's console client) to hand the session back.
func (s *session) takeover() {
	s.r.t.add(func(t *tally) { t.takeovers++ })
	if _, ok := s.call("browser_navigate", map[string]any{"url": s.r.site.url("/form?takeover=1")}, ""); !ok {
		s.r.t.fail("browser_request_takeover: not asked (its navigation failed)", "")
		return
	}
	text, ok := s.call("browser_request_takeover", map[string]any{"reason": "soak: hand it back at once", "timeout_s": 300}, "")
	if ok && !strings.Contains(text, `"handed_back":true`) {
		s.r.t.fail("browser_request_takeover: not handed back", text)
		return
	}
	if ok {
		s.r.t.add(func(t *tally) { t.handed++ })
		s.call("browser_snapshot", map[string]any{}, "") // the session serves again
	}
}

func firstLine(s string, n int) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	if len(l) > n {
		l = l[:n] + "..."
	}
	return l
}

func sortedKeys(m map[string]int) []string {
	return slices.Sorted(maps.Keys(m))
}

// clip keeps the first n bytes of s on one line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "..."
	}
	return s
}
