package browser

import (
	"context"

	"github.com/wasmwright/wasmwright/hostfuncs"
)

// pages is what the host functions that act on a page and those that read
// one share: the page's state, locating a ref, snapshots, the facts of a
// load, and mapping Playwright's errors to coded ones.
type pages struct {
	*env
	sessions  *sessions
	concealer *concealer
}

// findTab finds the caller's session and its current tab, the session
// locked (sessions.pageTab, sessions.beginWith).
type findTab func(ctx context.Context, c *hostfuncs.Caller) (*session, *tab, error)

// onTab is the setup the page host functions share: find the caller's
// session and tab, then run fn with the session locked until fn returns.
func onTab[R any](ctx context.Context, c *hostfuncs.Caller, find findTab, fn func(ss *session, t *tab) (R, error)) (R, error) {
	ss, t, err := find(ctx, c)
	if err != nil {
		var none R
		return none, err
	}
	defer ss.mu.Unlock()
	return fn(ss, t)
}
