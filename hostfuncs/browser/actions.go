package browser

// actions are the host functions that change a page: navigate, act, fill
// a form, upload, history, wait, dialogs, tabs and emulation.
type actions struct {
	*env
	sessions  *sessions
	pages     *pages
	concealer *concealer
	// launcher gives a device context (emulate) the session's proxy.
	launcher *launcher
}
