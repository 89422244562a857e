package operator

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
)

// A page's or an agent's words become one bounded plain line: no newline
// to start a line of their own, no bidi override or zero-width character
// to reorder or hide text.
func TestPlainLineAndQuoted(t *testing.T) {
	in := "  Pay\u202enow\u200b\n\n# Heading\t[x](https://evil) " + strings.Repeat("a", 200)
	got := PlainLine(in, 40)
	if strings.ContainsAny(got, "\n\t\u202e\u200b") || !strings.HasPrefix(got, "Paynow # Heading [x](https://evil) aaaa") || len([]rune(got)) != 41 || !strings.HasSuffix(got, "…") {
		t.Fatalf("PlainLine: %q", got)
	}
	if q := Quoted(`say "yes" to [this](https://evil) *now*`, 100); q != `"say \"yes\" to \[this\](https://evil) \*now\*"` {
		t.Fatalf("Quoted: %s", q)
	}
}

// A takeover reason the masker cannot check (the vault unreadable) is
// withheld, never passed on unchecked; one it can is masked before the
// console, the event log or a client sees it. An approval's target is
// masked too, its visible text kept only where it differs from its name.
func TestDeskMasksWhatPeopleSee(t *testing.T) {
	var mu sync.Mutex
	var events []string
	vaultOK := true
	d := New(Options{
		Emit: func(e hostfuncs.Event) { mu.Lock(); events = append(events, string(e.Data)); mu.Unlock() },
		Mask: func(p, s, text string) (string, bool) {
			return strings.ReplaceAll(text, "hunter22", "••••••"), vaultOK
		},
	})
	ctx, cancel := context.WithCancel(context.Background())
	go d.RequestTakeover(ctx, "p", "s", abi.TakeoverRequest{Reason: "use hunter22\nthen go", TimeoutS: 60})
	if got := pending(t, d, 1)[0].Reason; got != "use ••••••\nthen go" {
		t.Fatalf("reason: %q", got)
	}
	cancel()
	pending(t, d, 0)
	mu.Lock()
	all := strings.Join(events, " ")
	mu.Unlock()
	if strings.Contains(all, "hunter22") || !strings.Contains(all, "use ••••••") {
		t.Fatalf("an event holds the secret: %v", events)
	}

	vaultOK = false
	ctx, cancel = context.WithCancel(context.Background())
	defer cancel()
	go d.RequestTakeover(ctx, "p", "s2", abi.TakeoverRequest{Reason: "use hunter22", TimeoutS: 60})
	if got := pending(t, d, 1)[0].Reason; got != withheldText {
		t.Fatalf("an unchecked reason passed: %q", got)
	}

	vaultOK = true
	tg := d.pageTarget("p", "s", &Target{Ref: "e1", Role: "button", Name: "approve\nhunter22", Text: "Approve  HUNTER22", Title: "t", URL: "http://x/?k=hunter22"})
	if tg.Name != "approve ••••••" || tg.Text != "Approve HUNTER22" || tg.URL != "http://x/?k=••••••" {
		t.Fatalf("target: %+v", tg)
	}
	if tg = d.pageTarget("p", "s", &Target{Name: "Save", Text: " save "}); tg.Text != "" {
		t.Fatalf("a visible text equal to the name is kept: %+v", tg)
	}
}
