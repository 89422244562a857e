package browser

import (
	"sync/atomic"
	"time"

	pw "github.com/mxschmitt/playwright-go"
)

// Reading a page's title for a call's state (pages.go, stateWith), each
// read bounded: a busy page does not stall the call.

// titleReads counts the round trips that read a page's title (pageTitle,
// titleSoon), for tests.
var titleReads atomic.Int64

// pageTitle reads the title without letting a busy page stall the call.
func pageTitle(p pw.Page) string {
	titleReads.Add(1)
	ch := make(chan string, 1)
	go func() {
		t, _ := p.Title()
		ch <- t
	}()
	select {
	case t := <-ch:
		return t
	case <-time.After(time.Second):
		return ""
	}
}

// titleSoon starts reading the title now, so the round trip overlaps the
// snapshot; the returned func waits for it as pageTitle would.
func titleSoon(p pw.Page) func() string {
	titleReads.Add(1)
	ch := make(chan string, 1)
	go func() {
		t, _ := p.Title()
		ch <- t
	}()
	return func() string {
		select {
		case t := <-ch:
			return t
		case <-time.After(time.Second):
			return ""
		}
	}
}

// titleBy is a titleSoon result, or "" once deadline has passed.
func titleBy(title func() string, deadline time.Time) string {
	ch := make(chan string, 1)
	go func() { ch <- title() }()
	select {
	case t := <-ch:
		return t
	case <-time.After(time.Until(deadline)):
		return ""
	}
}
