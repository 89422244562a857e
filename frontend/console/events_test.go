package console

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/wasmwright/wasmwright/hostfuncs"
)

// The log is filtered and paged over every event the host keeps, not
// over the newest few the state stream carries: an old refused call is
// found under "refused" (a call that failed with code refused is filed
// there, not under "error"), pages follow one another without a gap or a
// repeat, and the filters offer the tools of old events too.
func TestEventLogFiltersAndPagesTheWholeRing(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	ev := func(i int, kind, data string) hostfuncs.Event {
		return hostfuncs.Event{Time: t0.Add(time.Duration(i) * time.Millisecond), Kind: kind, Personality: "p", Session: "s1", Data: json.RawMessage(data)}
	}
	var events []hostfuncs.Event
	events = append(events, ev(0, "tool.call", `{"tool":"browser_navigate","outcome":"error","code":"refused","target":"http://far.test"}`))
	events = append(events, ev(1, "vault.fill", `{"credential":"shop","outcome":"refused_origin","code":"refused"}`))
	events = append(events, ev(2, "tool.call", `{"tool":"browser_click","outcome":"error","code":"timeout"}`))
	for i := 3; i < 1500; i++ {
		events = append(events, ev(i, "tool.call", `{"tool":"browser_snapshot","outcome":"ok"}`))
	}

	refused := pageEvents(events, eventQuery{outcome: outcomeRefused, limit: 50})
	if len(refused.Events) != 2 || refused.More || toolOf(refused.Events[1].Event) != "browser_navigate" || refused.Events[0].Kind != "vault.fill" {
		t.Fatalf("refused: %+v", refused.Events)
	}
	if errs := pageEvents(events, eventQuery{outcome: outcomeError, limit: 50}); len(errs.Events) != 1 || toolOf(errs.Events[0].Event) != "browser_click" {
		t.Fatalf("error: %+v", errs.Events)
	}
	if fmt.Sprint(refused.Tools) != "[browser_click browser_navigate browser_snapshot]" || len(refused.Sessions) != 1 {
		t.Fatalf("choices: %v %v", refused.Tools, refused.Sessions)
	}

	// Page through everything, 50 at a time, oldest shown as the cursor.
	var seen int
	q := eventQuery{limit: 50}
	for {
		pg := pageEvents(events, q)
		for i, e := range pg.Events {
			want := len(events) - 1 - seen - i
			if !e.Time.Equal(events[want].Time) {
				t.Fatalf("page after %d: event %d is %v, want %v", seen, i, e.Time, events[want].Time)
			}
		}
		seen += len(pg.Events)
		if !pg.More {
			break
		}
		q.before = pg.Events[len(pg.Events)-1].Time
	}
	if seen != len(events) {
		t.Fatalf("paged through %d of %d events", seen, len(events))
	}
	if pg := pageEvents(events, eventQuery{tool: "browser_navigate", limit: 50}); len(pg.Events) != 1 {
		t.Fatalf("tool filter: %d events", len(pg.Events))
	}
}
