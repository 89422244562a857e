package console

import (
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/host"
)

// The event log reads the host's whole ring (host.RecentEvents, 2000
// events), filtered and paged here: the state stream carries only the
// newest events, so a filter set in the page reaches every event the host
// still keeps, not just the few it was sent.

const (
	// eventPageSize is a page of the log; maxEventPage bounds what one
	// request may ask.
	eventPageSize = 50
	maxEventPage  = 500
	// eventRing is how many events the console asks the host for.
	eventRing = 2000
)

// Outcomes an event is filed under (the log's filter).
const (
	outcomeOK      = "ok"
	outcomeError   = "error"
	outcomeRefused = "refused"
	outcomeWaiting = "pending"
)

// shownEvent is an event as the log lists it, with the outcome it is
// filed under ("" for a note that has none).
type shownEvent struct {
	host.Event
	Outcome string `json:"outcome,omitempty"`
}

// eventOutcome files an event: a call that failed with code refused is
// refused, not an error; a fill refused by its policy likewise.
func eventOutcome(e host.Event) string {
	var d struct {
		Outcome string `json:"outcome"`
		Code    string `json:"code"`
		Verdict string `json:"verdict"`
	}
	json.Unmarshal(e.Data, &d) // a plugin's event may be anything: no outcome then
	switch e.Kind {
	case "tool.call":
		switch {
		case d.Outcome == "ok":
			return outcomeOK
		case d.Code == string(abi.CodeRefused):
			return outcomeRefused
		}
		return outcomeError
	case "vault.fill":
		switch {
		case d.Outcome == abi.VaultFilled:
			return outcomeOK
		case strings.HasPrefix(d.Outcome, "refused") || d.Code == string(abi.CodeRefused):
			return outcomeRefused
		}
		return outcomeError
	case "approval.decided":
		if d.Verdict == "once" || d.Verdict == "origin" {
			return outcomeOK
		}
		return outcomeRefused
	case "takeover.ended":
		if d.Outcome == abi.TakeoverUser {
			return outcomeOK
		}
		return outcomeRefused
	case "approval.requested", "takeover.requested":
		return outcomeWaiting
	}
	return ""
}

// eventQuery is a filter of the log and a page of it.
type eventQuery struct {
	personality, session string // both "" for every session
	tool, outcome        string
	before               time.Time // only events older than this; zero: from the newest
	limit                int
}

// eventPage is one page of the log, newest first, with the choices the
// filters offer over every event kept (not only this page's).
type eventPage struct {
	Events []shownEvent `json:"events"`
	// More says older events match beyond this page.
	More     bool        `json:"more"`
	Sessions [][2]string `json:"sessions"` // [personality, session]
	Tools    []string    `json:"tools"`
}

// toolOf is the tool an event names, "" when none.
func toolOf(e host.Event) string {
	var d struct {
		Tool string `json:"tool"`
	}
	json.Unmarshal(e.Data, &d)
	return d.Tool
}

// pageEvents filters events (oldest first, as the host keeps them) by q
// and returns the page q asks for, newest first.
func pageEvents(events []host.Event, q eventQuery) eventPage {
	out := eventPage{Events: []shownEvent{}, Sessions: [][2]string{}, Tools: []string{}}
	seenS, seenT := map[[2]string]bool{}, map[string]bool{}
	for i := len(events) - 1; i >= 0; i-- {
		e := events[i]
		tool := toolOf(e)
		if k := [2]string{e.Personality, e.Session}; e.Session != "" && !seenS[k] {
			seenS[k] = true
			out.Sessions = append(out.Sessions, k)
		}
		if tool != "" && !seenT[tool] {
			seenT[tool] = true
			out.Tools = append(out.Tools, tool)
		}
		if q.session != "" && (e.Personality != q.personality || e.Session != q.session) || q.tool != "" && tool != q.tool {
			continue
		}
		if !q.before.IsZero() && !e.Time.Before(q.before) {
			continue
		}
		o := eventOutcome(e)
		if q.outcome != "" && o != q.outcome {
			continue
		}
		if len(out.Events) == q.limit {
			out.More = true
			continue
		}
		out.Events = append(out.Events, shownEvent{Event: e, Outcome: o})
	}
	slices.Sort(out.Tools)
	return out
}

// parseEventQuery reads GET /api/events' query: session
// ("personality\nsession"), tool, outcome, before (RFC 3339, the time of
// the oldest event shown) and limit.
func parseEventQuery(r *http.Request) (eventQuery, error) {
	v := r.URL.Query()
	q := eventQuery{tool: v.Get("tool"), outcome: v.Get("outcome"), limit: eventPageSize}
	if s := v.Get("session"); s != "" {
		p, sess, ok := strings.Cut(s, "\n")
		if !ok {
			return q, abi.Errorf(abi.CodeInputInvalid, "session must be the personality and the session id, separated by a newline")
		}
		q.personality, q.session = p, sess
	}
	if b := v.Get("before"); b != "" {
		t, err := time.Parse(time.RFC3339Nano, b)
		if err != nil {
			return q, abi.Errorf(abi.CodeInputInvalid, "before must be an event's time (RFC 3339), like 2026-01-02T15:04:05.123Z")
		}
		q.before = t
	}
	if l := v.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n < 1 || n > maxEventPage {
			return q, abi.Errorf(abi.CodeInputInvalid, "limit must be 1 to %d", maxEventPage)
		}
		q.limit = n
	}
	return q, nil
}

// eventLog is GET /api/events: a filtered page of the events the operator
// may see (their personalities' and the host's own), newest first.
func (c *Console) eventLog(w http.ResponseWriter, r *http.Request, o *operatorEntry) {
	q, err := parseEventQuery(r)
	if err != nil {
		writeError(w, err)
		return
	}
	src, ok := any(c.h).(eventSource)
	if !ok {
		writeJSON(w, http.StatusOK, pageEvents(nil, q))
		return
	}
	var mine []host.Event
	for _, e := range src.RecentEvents(eventRing) {
		if e.Personality == "" || o.sees(e.Personality) {
			mine = append(mine, e)
		}
	}
	writeJSON(w, http.StatusOK, pageEvents(mine, q))
}
