package browser

import (
	"errors"
	"testing"

	pw "github.com/mxschmitt/playwright-go"
)

// countingBrowser counts the contexts asked of it and opens none.
type countingBrowser struct {
	pw.Browser
	contexts int
}

func (b *countingBrowser) NewContext(...pw.BrowserNewContextOptions) (pw.BrowserContext, error) {
	b.contexts++
	return nil, errors.New("no contexts here")
}

// The warm-up opens its page only while no call has asked for the
// browser: a call already waiting opens its own first page, and a warm-up
// page beside it would only take the cores that call waits for.
func TestWarmUpYieldsToACall(t *testing.T) {
	t.Parallel()
	l := &launcher{}
	b := &countingBrowser{}
	l.warmUp(b)
	if b.contexts != 1 {
		t.Fatalf("with no call waiting the warm-up opened %d contexts, want 1", b.contexts)
	}
	l.asked.Store(true) // as startedBrowser and startedDriver do
	l.warmUp(b)
	if b.contexts != 1 {
		t.Fatalf("with a call waiting the warm-up opened a context")
	}
}
