package network

import (
	"strings"
	"testing"
)

// Refusals are said a line per origin and reason: one URL as it was, or
// how many went to the origin and the first paths; a repeat of the same request counts once,
// and a long URL's query is cut.
func TestBlockedSummary(t *testing.T) {
	bl := &blockedList{}
	long := "https://t.example/collect?" + strings.Repeat("x=1&", 40)
	for _, b := range []*Blocked{
		{URL: "https://ads.example/a.js?id=1", Reason: "host not allowed"},
		{URL: "https://ads.example/b.js", Reason: "host not allowed"},
		{URL: "https://ads.example/b.js", Reason: "port not allowed"},
		{URL: "https://ads.example/", Reason: "host not allowed"},
		{URL: "https://ads.example/d?" + strings.Repeat("y", 60), Reason: "host not allowed"},
		{URL: "http://10.0.0.2/i.png", Reason: "private address"},
		{URL: long, Reason: "host not allowed"},
	} {
		bl.group(b)
	}
	got := strings.Join(bl.summary(), "\n")
	want := strings.Join([]string{
		"blocked requests: 4 to https://ads.example (host not allowed): /a.js?id=1, /b.js, / and 1 more",
		"blocked request: https://ads.example/b.js (port not allowed)",
		"blocked request: http://10.0.0.2/i.png (private address)",
		"blocked request: https://t.example/collect?... (host not allowed)",
	}, "\n")
	if got != want {
		t.Fatalf("summary:\n%s\nwant:\n%s", got, want)
	}
}
