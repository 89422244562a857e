//go:build wasip1

package sdk

// Browser host functions, one import each (see abi/browser.go).

//go:wasmimport extism:host/user ww_browser_navigate
func browserNavigate(ptr, n uint32) uint64

//go:wasmimport extism:host/user ww_browser_snapshot
func browserSnapshot(ptr, n uint32) uint64

//go:wasmimport extism:host/user ww_browser_act
func browserAct(ptr, n uint32) uint64

//go:wasmimport extism:host/user ww_browser_fill_form
func browserFillForm(ptr, n uint32) uint64

//go:wasmimport extism:host/user ww_browser_upload
func browserUpload(ptr, n uint32) uint64

//go:wasmimport extism:host/user ww_browser_history
func browserHistory(ptr, n uint32) uint64

//go:wasmimport extism:host/user ww_browser_wait_for
func browserWaitFor(ptr, n uint32) uint64

//go:wasmimport extism:host/user ww_browser_dialog
func browserDialog(ptr, n uint32) uint64

//go:wasmimport extism:host/user ww_browser_console
func browserConsole(ptr, n uint32) uint64

//go:wasmimport extism:host/user ww_browser_network
func browserNetwork(ptr, n uint32) uint64

//go:wasmimport extism:host/user ww_browser_images
func browserImages(ptr, n uint32) uint64

//go:wasmimport extism:host/user ww_browser_computed_style
func browserComputedStyle(ptr, n uint32) uint64

//go:wasmimport extism:host/user ww_browser_screenshot
func browserScreenshot(ptr, n uint32) uint64

//go:wasmimport extism:host/user ww_browser_pdf
func browserPdf(ptr, n uint32) uint64

//go:wasmimport extism:host/user ww_browser_evaluate
func browserEvaluate(ptr, n uint32) uint64

//go:wasmimport extism:host/user ww_browser_storage
func browserStorage(ptr, n uint32) uint64

//go:wasmimport extism:host/user ww_browser_cookies
func browserCookies(ptr, n uint32) uint64

//go:wasmimport extism:host/user ww_browser_sources
func browserSources(ptr, n uint32) uint64

//go:wasmimport extism:host/user ww_browser_tabs
func browserTabs(ptr, n uint32) uint64

//go:wasmimport extism:host/user ww_browser_emulate
func browserEmulate(ptr, n uint32) uint64

//go:wasmimport extism:host/user ww_browser_resize
func browserResize(ptr, n uint32) uint64

//go:wasmimport extism:host/user ww_browser_close
func browserClose(ptr, n uint32) uint64

//go:wasmimport extism:host/user ww_browser_sessions
func browserSessions(ptr, n uint32) uint64

//go:wasmimport extism:host/user ww_browser_read
func browserRead(ptr, n uint32) uint64

//go:wasmimport extism:host/user ww_browser_profile
func browserProfile(ptr, n uint32) uint64
