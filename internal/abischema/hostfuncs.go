package abischema

import (
	"reflect"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
)

// HostFunction is one host function's request and response documents.
type HostFunction struct {
	Request, Response any
	// Doc says what the function does: the published schemas'
	// description, with the grant capability gives it.
	Doc string
}

// HostFunctions names, for every JSON host function, the abi types of its
// request and its response: a fresh map each call. Schemas for both are
// published in abi/schema/hostfuncs/ (NAME.request.schema.json,
// NAME.response.schema.json); a test keeps the files equal to what these
// types generate, this table equal to capability's list of host functions,
// and the host's offered functions equal to this table.
func HostFunctions() map[string]HostFunction {
	return map[string]HostFunction{
		abi.HostInfo:              {abi.Empty{}, abi.HostInfoResponse{}, "facts about the host: its ABI version, name, the calling personality, session and grants"},
		abi.HostEventsEmit:        {abi.EventsEmitRequest{}, abi.Empty{}, "records an event in the host's event sink"},
		abi.HostSecretsMaskValues: {abi.SecretsMaskValuesRequest{}, abi.SecretsMaskValuesResponse{}, "the secret values a masker must hide in a session's results"},
		abi.HostNetworkFetch:      {abi.NetworkFetchRequest{}, abi.NetworkFetchResponse{}, "fetches a URL under the personality's network policy (resolved, checked and dialled by the host)"},
		abi.HostVaultFill:         {abi.VaultFillRequest{}, abi.VaultFillResponse{}, "fills a stored credential into the current page by name and refs, never values"},
		abi.HostTakeoverRequest:   {abi.TakeoverRequest{}, abi.TakeoverResponse{}, "hands the session to a human operator and waits until they hand it back or cancel"},
		abi.HostVisionLocate:      {abi.VisionLocateRequest{}, abi.VisionLocateResponse{}, "asks the operator's vision model where an element is on the current tab (a marked screenshot); it does not act"},

		abi.HostBrowserNavigate:      {abi.BrowserNavigateRequest{}, abi.BrowserNavigateResponse{}, "loads an http(s) URL in the current tab (or a new one) and answers the page's facts and snapshot"},
		abi.HostBrowserSnapshot:      {abi.BrowserSnapshotRequest{}, abi.BrowserSnapshotResponse{}, "the ARIA snapshot of the current tab, with refs, optionally scoped to a ref"},
		abi.HostBrowserAct:           {abi.BrowserActRequest{}, abi.BrowserActResponse{}, "one interaction (click, type, press, hover, scroll, select, drag, check) on a ref or a viewport point"},
		abi.HostBrowserFillForm:      {abi.BrowserFillFormRequest{}, abi.BrowserActResponse{}, "fills several fields of the current tab in one call"},
		abi.HostBrowserUpload:        {abi.BrowserUploadRequest{}, abi.BrowserActResponse{}, "sets files from the host's upload folder on a file input"},
		abi.HostBrowserHistory:       {abi.BrowserHistoryRequest{}, abi.BrowserNavigateResponse{}, "goes back or forward one history entry"},
		abi.HostBrowserWaitFor:       {abi.BrowserWaitForRequest{}, abi.BrowserWaitForResponse{}, "waits for text to appear or go, a ref to become visible, or a time to pass"},
		abi.HostBrowserDialog:        {abi.BrowserDialogRequest{}, abi.BrowserDialogResponse{}, "accepts or dismisses the open JavaScript dialog"},
		abi.HostBrowserConsole:       {abi.BrowserConsoleRequest{}, abi.BrowserConsoleResponse{}, "the session's console messages and uncaught page errors"},
		abi.HostBrowserNetwork:       {abi.BrowserNetworkRequest{}, abi.BrowserNetworkResponse{}, "the session's recent requests, or one response body"},
		abi.HostBrowserImages:        {abi.BrowserImagesRequest{}, abi.BrowserImagesResponse{}, "the <img> elements of the current tab"},
		abi.HostBrowserComputedStyle: {abi.BrowserComputedStyleRequest{}, abi.BrowserComputedStyleResponse{}, "computed styles of a ref or of the rendered elements"},
		abi.HostBrowserScreenshot:    {abi.BrowserScreenshotRequest{}, abi.BrowserScreenshotResponse{}, "a screenshot of the viewport, the full page or an element, optionally with numbered marks"},
		abi.HostBrowserPDF:           {abi.BrowserPDFRequest{}, abi.BrowserPDFResponse{}, "prints the current tab to a PDF in the workspace"},
		abi.HostBrowserEvaluate:      {abi.BrowserEvaluateRequest{}, abi.BrowserEvaluateResponse{}, "runs a JavaScript expression or function in the page"},
		abi.HostBrowserStorage:       {abi.BrowserStorageRequest{}, abi.BrowserStorageResponse{}, "local storage, session storage and cookies of the current origin"},
		abi.HostBrowserCookies:       {abi.BrowserCookiesRequest{}, abi.BrowserCookiesResponse{}, "sets or clears cookies"},
		abi.HostBrowserSources:       {abi.BrowserSourcesRequest{}, abi.BrowserSourcesResponse{}, "the scripts and stylesheets of the current tab, or one of them"},
		abi.HostBrowserTabs:          {abi.BrowserTabsRequest{}, abi.BrowserTabsResponse{}, "lists, opens, selects or closes tabs"},
		abi.HostBrowserEmulate:       {abi.BrowserEmulateRequest{}, abi.BrowserEmulateResponse{}, "changes how the session presents itself (device, media, colour scheme, geolocation, offline)"},
		abi.HostBrowserResize:        {abi.BrowserResizeRequest{}, abi.BrowserResizeResponse{}, "sets the viewport size of the current tab"},
		abi.HostBrowserClose:         {abi.BrowserCloseRequest{}, abi.BrowserCloseResponse{}, "closes the caller's session"},
		abi.HostBrowserSessions:      {abi.BrowserSessionsRequest{}, abi.BrowserSessionsResponse{}, "the calling personality's open sessions"},
		abi.HostBrowserRead:          {abi.BrowserReadRequest{}, abi.BrowserReadResponse{}, "the readable text of the current tab's main content and the element it came from"},
		abi.HostBrowserProfile:       {abi.BrowserProfileRequest{}, abi.BrowserProfileResponse{}, "creates, lists or deletes the personality's named browser profiles"},
	}
}

// HostFunctionFiles returns the published schema files of every host
// function: file name (relative to abi/schema/) -> the type it documents.
func HostFunctionFiles() map[string]any {
	out := map[string]any{}
	for name, f := range HostFunctions() {
		base := "hostfuncs/" + strings.TrimPrefix(name, "ww_")
		out[base+".request.schema.json"] = f.Request
		out[base+".response.schema.json"] = f.Response
	}
	return out
}

// Declared reports whether a host function offered with the Go types req
// and resp documents what the table says of name: the same types, a
// pointer counting as what it points to. It returns what differs, or "".
func Declared(name string, req, resp reflect.Type) string {
	f, ok := HostFunctions()[name]
	if !ok {
		return "not in abischema.HostFunctions"
	}
	deref := func(t reflect.Type) reflect.Type {
		if t != nil && t.Kind() == reflect.Pointer {
			return t.Elem()
		}
		return t
	}
	if got, want := deref(req), reflect.TypeOf(f.Request); got != want {
		return "request is " + typeName(got) + ", published as " + typeName(want)
	}
	if got, want := deref(resp), reflect.TypeOf(f.Response); got != want {
		return "response is " + typeName(got) + ", published as " + typeName(want)
	}
	return ""
}

func typeName(t reflect.Type) string {
	if t == nil {
		return "undeclared"
	}
	return t.String()
}
