//go:build !wasip1

package sdk

// Off wasm there is no host: browser imports answer nothing (invoke reports
// not_available before they are reached).

func browserNavigate(ptr, n uint32) uint64      { return 0 }
func browserSnapshot(ptr, n uint32) uint64      { return 0 }
func browserAct(ptr, n uint32) uint64           { return 0 }
func browserFillForm(ptr, n uint32) uint64      { return 0 }
func browserUpload(ptr, n uint32) uint64        { return 0 }
func browserHistory(ptr, n uint32) uint64       { return 0 }
func browserWaitFor(ptr, n uint32) uint64       { return 0 }
func browserDialog(ptr, n uint32) uint64        { return 0 }
func browserConsole(ptr, n uint32) uint64       { return 0 }
func browserNetwork(ptr, n uint32) uint64       { return 0 }
func browserImages(ptr, n uint32) uint64        { return 0 }
func browserComputedStyle(ptr, n uint32) uint64 { return 0 }
func browserScreenshot(ptr, n uint32) uint64    { return 0 }
func browserPdf(ptr, n uint32) uint64           { return 0 }
func browserEvaluate(ptr, n uint32) uint64      { return 0 }
func browserStorage(ptr, n uint32) uint64       { return 0 }
func browserCookies(ptr, n uint32) uint64       { return 0 }
func browserSources(ptr, n uint32) uint64       { return 0 }
func browserTabs(ptr, n uint32) uint64          { return 0 }
func browserEmulate(ptr, n uint32) uint64       { return 0 }
func browserResize(ptr, n uint32) uint64        { return 0 }
func browserClose(ptr, n uint32) uint64         { return 0 }
func browserSessions(ptr, n uint32) uint64      { return 0 }
func browserRead(ptr, n uint32) uint64          { return 0 }
func browserProfile(ptr, n uint32) uint64       { return 0 }
