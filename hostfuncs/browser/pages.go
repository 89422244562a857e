package browser

// pages is what the host functions that act on a page and those that read
// one share: the page's state, locating a ref, snapshots, the facts of a
// load, and mapping Playwright's errors to coded ones.
type pages struct {
	*env
	sessions  *sessions
	concealer *concealer
}
