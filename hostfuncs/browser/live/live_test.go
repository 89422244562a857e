package live

import "testing"

// A viewer that falls behind skips frames but gets the newest: each frame
// replaced while it waited is acknowledged, and the one left is the last.
func TestLatestFrameKeepsTheNewest(t *testing.T) {
	var acked []any
	l := &latestFrame{ch: make(chan map[string]any, 1), ack: func(ev map[string]any) { acked = append(acked, ev["n"]) }}
	for i := 1; i <= 4; i++ {
		l.put(map[string]any{"n": i})
	}
	if got := <-l.ch; got["n"] != 4 {
		t.Fatalf("the viewer got frame %v, want the newest, 4", got["n"])
	}
	if len(acked) != 3 || acked[0] != 1 || acked[2] != 3 {
		t.Fatalf("replaced frames acknowledged: %v, want 1 2 3", acked)
	}
	select {
	case ev := <-l.ch:
		t.Fatalf("a second frame waits: %v", ev)
	default:
	}
}
