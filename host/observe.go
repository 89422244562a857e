package host

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/hostfuncs/browser"
	"github.com/wasmwright/wasmwright/hostfuncs/network"
)

// The kernel's events for a fleet's metrics (host/metrics counts them,
// through Options.Observe). Withheld pages and grid sessions are events
// the log keeps; an egress refusal is only counted (note), since a page's
// trackers can be refused by the hundred and the log already has a line
// for each.
const (
	EventWithheld      = "page.withheld"
	EventEgressRefused = "egress.refused"
	EventGridSession   = "browser.grid_session"
	EventGridNodeLost  = "browser.grid_node_lost"
)

// eventLog is where the kernel's own events go: the sink (the event log,
// through teeSink: each event masked, the tail kept for RecentEvents) and
// Options.Observe (the metrics), which also sees what is only counted.
type eventLog struct {
	sink    hostfuncs.Sink
	recent  eventRing
	observe func(hostfuncs.Event)
	log     *slog.Logger
}

// emit writes an event to the sink, and hands it to Options.Observe.
func (l *eventLog) emit(e hostfuncs.Event) {
	if e.Time.IsZero() {
		e.Time = time.Now().UTC()
	}
	if err := l.sink.Emit(e); err != nil {
		l.log.Warn("event sink", "err", err)
	}
	l.note(e)
}

// note hands an event to Options.Observe only, not to the event log.
func (l *eventLog) note(e hostfuncs.Event) {
	if l.observe != nil {
		l.observe(e)
	}
}

// withheld records a document a detector withheld, by vendor.
func (l *eventLog) withheld(personality, session string, flag *abi.Error) {
	vendor := flag.Details["vendor"]
	b, _ := json.Marshal(map[string]string{"code": string(flag.Code), "vendor": capBytes(vendor, 64)})
	l.emit(hostfuncs.Event{Kind: EventWithheld, Personality: personality, Session: session, Data: b})
}

// egressRefused is the network service's OnBlocked: counted by the kind
// of reason (network.ReasonClass), never the host or address it names.
func (l *eventLog) egressRefused(personality, session, reason string) {
	b, _ := json.Marshal(map[string]string{"reason": network.ReasonClass(reason)})
	l.note(hostfuncs.Event{Kind: EventEgressRefused, Personality: personality, Session: session, Data: b})
}

// gridReport is the browser's OnGrid: a grid session's wait for a node,
// or the loss of its node, as events.
func (l *eventLog) gridReport(r browser.GridReport) {
	if r.NodeLost != "" {
		b, _ := json.Marshal(map[string]string{"node": capBytes(r.NodeLost, 256), "cause": r.LostCause})
		l.emit(hostfuncs.Event{Kind: EventGridNodeLost, Personality: r.Personality, Session: r.Session, Data: b})
		return
	}
	d := map[string]any{"ms": r.Wait.Milliseconds()}
	if r.Err != nil {
		d["code"] = abi.AsError(r.Err).Code
	}
	b, _ := json.Marshal(d)
	l.emit(hostfuncs.Event{Kind: EventGridSession, Personality: r.Personality, Session: r.Session, Data: b})
}

// Ready says whether the host can serve personalities' calls now: every
// plugin they load has a version serving, and, when one of them drives
// the browser, the browser can be had (browser.Service.Reachable: the
// grid answers ready, or the local Chromium is there). It is the
// readiness probe's answer; it starts nothing.
func (h *Host) Ready(ctx context.Context, personalities ...string) error {
	var need []string
	for _, pn := range personalities {
		p, ok := h.cfg.Personalities[pn]
		if !ok {
			return fmt.Errorf("personality %s is not configured", pn)
		}
		for _, pl := range p.Plugins {
			if !slices.Contains(need, pl) {
				need = append(need, pl)
			}
		}
	}
	browsing := false
	for _, info := range h.Plugins() {
		if !slices.Contains(need, info.Name) {
			continue
		}
		if info.Serving == "none" || info.Serving == "" {
			return fmt.Errorf("plugin %s has no version serving: %v", info.Name, info.Error)
		}
		browsing = browsing || drivesBrowser(info.Imports)
	}
	if b := h.Browser(); b != nil && browsing {
		return b.Reachable(ctx)
	}
	return nil
}
