package host

import (
	"encoding/json"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/hostfuncs/weborigin"
)

// EventTool is the kind of the event every tool call writes.
const EventTool = "tool.call"

// ToolEvent is the data of an EventTool event: what was called, how the
// host judged it and how it ended. Never a value: no argument, no typed
// text, no result.
type ToolEvent struct {
	Tool     string   `json:"tool"`
	Risk     abi.Risk `json:"risk,omitempty"`
	Origin   string   `json:"origin,omitempty"`
	Decision string   `json:"decision,omitempty"`
	MS       int64    `json:"ms"`
	Outcome  string   `json:"outcome"` // ok or error
	Code     abi.Code `json:"code,omitempty"`
	// Target is the origin a call was sent to (its url argument: a
	// navigate, a fetch), the URL's scheme alone when it has no origin:
	// a refused navigate names where it was refused, not the page it
	// left (Origin). Never the path or query.
	Target string `json:"target,omitempty"`
}

// call writes the one event of a finished call.
func (l *eventLog) call(p *personality, req Request, j *judgment, plugin string, d time.Duration, err error) {
	ev := ToolEvent{Tool: capBytes(req.Tool, 128), Risk: j.risk, Origin: j.origin, Decision: j.decision, MS: d.Milliseconds(), Outcome: "ok", Target: targetOf(req.Args)}
	if err != nil {
		ev.Outcome, ev.Code = "error", abi.AsError(err).Code
	}
	b, _ := json.Marshal(ev)
	l.emit(hostfuncs.Event{Kind: EventTool, Personality: p.name, Session: req.Session, Plugin: plugin, Data: b})
}

// targetOf is the origin of a call's url argument, or its scheme ("file:")
// when it has none; "" without one.
func targetOf(args json.RawMessage) string {
	var a struct {
		URL string `json:"url"`
	}
	if json.Unmarshal(args, &a) != nil || a.URL == "" {
		return ""
	}
	if o := weborigin.Of(a.URL); o != weborigin.Opaque {
		return o
	}
	if u, err := url.Parse(a.URL); err == nil && u.Scheme != "" {
		return capBytes(strings.ToLower(u.Scheme), 32) + ":"
	}
	return ""
}

// capBytes shortens what an agent may have made up (an unknown tool's
// name) before it reaches the log.
func capBytes(s string, n int) string {
	if len(s) > n {
		return strings.ToValidUTF8(s[:n], "") + "…"
	}
	return s
}

// recentEvents is how many events RecentEvents keeps.
// The console pages and filters through all of them.
const recentEvents = 2000

// eventRing keeps the latest events in memory, for the console's tail.
type eventRing struct {
	mu   sync.Mutex
	buf  []hostfuncs.Event
	next int
	full bool
}

func (r *eventRing) add(e hostfuncs.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.buf == nil {
		r.buf = make([]hostfuncs.Event, recentEvents)
	}
	r.buf[r.next] = e
	r.next = (r.next + 1) % len(r.buf)
	r.full = r.full || r.next == 0
}

// last returns up to n events, oldest first.
func (r *eventRing) last(n int) []hostfuncs.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var all []hostfuncs.Event
	if r.full {
		all = append(all, r.buf[r.next:]...)
	}
	all = append(all, r.buf[:r.next]...)
	if n >= 0 && len(all) > n {
		all = all[len(all)-n:]
	}
	return all
}

// teeSink writes to the host's sink and keeps the tail in memory, each
// event masked first (masker.event): people read both.
type teeSink struct {
	next hostfuncs.Sink
	ring *eventRing
	mask func(hostfuncs.Event) hostfuncs.Event
}

func (t teeSink) Emit(e hostfuncs.Event) error {
	e = t.mask(e)
	t.ring.add(e)
	return t.next.Emit(e)
}

// RecentEvents returns the host's last n events (at most 2000), oldest
// first: tool calls, approvals, takeovers, credential fills and what
// plugins emit. Never a value: events hold names, codes and origins.
func (h *Host) RecentEvents(n int) []hostfuncs.Event { return h.events.recent.last(n) }
