package sdk

import "github.com/wasmwright/wasmwright/abi"

// Browser host functions: typed calls for the primitives in abi/browser.go.
// Each is its own import, so a plugin imports only the browser power it
// uses; declare the matching capability with Needs.

// BrowserNavigate loads a URL (http or https) in the current tab or a new one. Needs browser.act.
func BrowserNavigate(req abi.BrowserNavigateRequest) (abi.BrowserNavigateResponse, error) {
	return hostCall[abi.BrowserNavigateResponse](browserNavigate, req)
}

// BrowserSnapshot returns the ARIA snapshot with refs of the current tab. Needs browser.read.
func BrowserSnapshot(req abi.BrowserSnapshotRequest) (abi.BrowserSnapshotResponse, error) {
	return hostCall[abi.BrowserSnapshotResponse](browserSnapshot, req)
}

// BrowserAct performs one interaction (click, type, press...). Needs browser.act.
func BrowserAct(req abi.BrowserActRequest) (abi.BrowserActResponse, error) {
	return hostCall[abi.BrowserActResponse](browserAct, req)
}

// BrowserFillForm fills several form fields. Needs browser.act.
func BrowserFillForm(req abi.BrowserFillFormRequest) (abi.BrowserActResponse, error) {
	return hostCall[abi.BrowserActResponse](browserFillForm, req)
}

// BrowserUpload sets files from the host's upload folder on a file input. Needs browser.act.
func BrowserUpload(req abi.BrowserUploadRequest) (abi.BrowserActResponse, error) {
	return hostCall[abi.BrowserActResponse](browserUpload, req)
}

// BrowserHistory goes back or forward. Needs browser.act.
func BrowserHistory(req abi.BrowserHistoryRequest) (abi.BrowserNavigateResponse, error) {
	return hostCall[abi.BrowserNavigateResponse](browserHistory, req)
}

// BrowserWaitFor waits for text, its absence, an element or a time. Needs browser.read.
func BrowserWaitFor(req abi.BrowserWaitForRequest) (abi.BrowserWaitForResponse, error) {
	return hostCall[abi.BrowserWaitForResponse](browserWaitFor, req)
}

// BrowserDialog accepts or dismisses the open JavaScript dialog. Needs browser.act.
func BrowserDialog(req abi.BrowserDialogRequest) (abi.BrowserDialogResponse, error) {
	return hostCall[abi.BrowserDialogResponse](browserDialog, req)
}

// BrowserConsole reads console messages and page errors. Needs browser.read.
func BrowserConsole(req abi.BrowserConsoleRequest) (abi.BrowserConsoleResponse, error) {
	return hostCall[abi.BrowserConsoleResponse](browserConsole, req)
}

// BrowserNetwork lists recent requests, or one response body. Needs browser.read.
func BrowserNetwork(req abi.BrowserNetworkRequest) (abi.BrowserNetworkResponse, error) {
	return hostCall[abi.BrowserNetworkResponse](browserNetwork, req)
}

// BrowserImages lists the page's images. Needs browser.read.
func BrowserImages(req abi.BrowserImagesRequest) (abi.BrowserImagesResponse, error) {
	return hostCall[abi.BrowserImagesResponse](browserImages, req)
}

// BrowserComputedStyle reads computed styles. Needs browser.read.
func BrowserComputedStyle(req abi.BrowserComputedStyleRequest) (abi.BrowserComputedStyleResponse, error) {
	return hostCall[abi.BrowserComputedStyleResponse](browserComputedStyle, req)
}

// BrowserScreenshot captures a PNG into the workspace. Needs browser.read.
func BrowserScreenshot(req abi.BrowserScreenshotRequest) (abi.BrowserScreenshotResponse, error) {
	return hostCall[abi.BrowserScreenshotResponse](browserScreenshot, req)
}

// BrowserPDF prints the page to a PDF in the workspace. Needs browser.read.
func BrowserPDF(req abi.BrowserPDFRequest) (abi.BrowserPDFResponse, error) {
	return hostCall[abi.BrowserPDFResponse](browserPdf, req)
}

// BrowserEvaluate runs JavaScript in the page. Needs browser.eval.
func BrowserEvaluate(req abi.BrowserEvaluateRequest) (abi.BrowserEvaluateResponse, error) {
	return hostCall[abi.BrowserEvaluateResponse](browserEvaluate, req)
}

// BrowserStorage reads local/session storage and cookies. Needs browser.read.
func BrowserStorage(req abi.BrowserStorageRequest) (abi.BrowserStorageResponse, error) {
	return hostCall[abi.BrowserStorageResponse](browserStorage, req)
}

// BrowserCookies sets or clears cookies. Needs browser.act.
func BrowserCookies(req abi.BrowserCookiesRequest) (abi.BrowserCookiesResponse, error) {
	return hostCall[abi.BrowserCookiesResponse](browserCookies, req)
}

// BrowserSources lists or fetches scripts and stylesheets. Needs browser.read.
func BrowserSources(req abi.BrowserSourcesRequest) (abi.BrowserSourcesResponse, error) {
	return hostCall[abi.BrowserSourcesResponse](browserSources, req)
}

// BrowserTabs lists, opens, selects or closes tabs. Needs browser.act.
func BrowserTabs(req abi.BrowserTabsRequest) (abi.BrowserTabsResponse, error) {
	return hostCall[abi.BrowserTabsResponse](browserTabs, req)
}

// BrowserEmulate emulates a device, media, geolocation or offline mode. Needs browser.act.
func BrowserEmulate(req abi.BrowserEmulateRequest) (abi.BrowserEmulateResponse, error) {
	return hostCall[abi.BrowserEmulateResponse](browserEmulate, req)
}

// BrowserResize sets the viewport size. Needs browser.act.
func BrowserResize(req abi.BrowserResizeRequest) (abi.BrowserResizeResponse, error) {
	return hostCall[abi.BrowserResizeResponse](browserResize, req)
}

// BrowserClose closes the caller's browser session. Needs browser.act.
func BrowserClose(req abi.BrowserCloseRequest) (abi.BrowserCloseResponse, error) {
	return hostCall[abi.BrowserCloseResponse](browserClose, req)
}

// BrowserSessions lists the personality's browser sessions. Needs browser.read.
func BrowserSessions(req abi.BrowserSessionsRequest) (abi.BrowserSessionsResponse, error) {
	return hostCall[abi.BrowserSessionsResponse](browserSessions, req)
}

// BrowserRead returns the readable text of the current tab. Needs browser.read.
func BrowserRead(req abi.BrowserReadRequest) (abi.BrowserReadResponse, error) {
	return hostCall[abi.BrowserReadResponse](browserRead, req)
}

// BrowserProfile creates, lists or deletes the personality's named browser profiles. Needs browser.act.
func BrowserProfile(req abi.BrowserProfileRequest) (abi.BrowserProfileResponse, error) {
	return hostCall[abi.BrowserProfileResponse](browserProfile, req)
}
