package abischema

import (
	"reflect"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
)

// HostFunction is one host function's request and response documents.
type HostFunction struct {
	Request, Response any
}

// HostFunctions names, for every JSON host function, the abi types of its
// request and its response: a fresh map each call. Schemas for both are
// published in abi/schema/hostfuncs/ (NAME.request.schema.json,
// NAME.response.schema.json); a test keeps the files equal to what these
// types generate, this table equal to capability's list of host functions,
// and the host's offered functions equal to this table.
func HostFunctions() map[string]HostFunction {
	return map[string]HostFunction{
		abi.HostInfo:              {abi.Empty{}, abi.HostInfoResponse{}},
		abi.HostEventsEmit:        {abi.EventsEmitRequest{}, abi.Empty{}},
		abi.HostSecretsMaskValues: {abi.SecretsMaskValuesRequest{}, abi.SecretsMaskValuesResponse{}},
		abi.HostNetworkFetch:      {abi.NetworkFetchRequest{}, abi.NetworkFetchResponse{}},
		abi.HostVaultFill:         {abi.VaultFillRequest{}, abi.VaultFillResponse{}},
		abi.HostTakeoverRequest:   {abi.TakeoverRequest{}, abi.TakeoverResponse{}},
		abi.HostVisionLocate:      {abi.VisionLocateRequest{}, abi.VisionLocateResponse{}},

		abi.HostBrowserNavigate:      {abi.BrowserNavigateRequest{}, abi.BrowserNavigateResponse{}},
		abi.HostBrowserSnapshot:      {abi.BrowserSnapshotRequest{}, abi.BrowserSnapshotResponse{}},
		abi.HostBrowserAct:           {abi.BrowserActRequest{}, abi.BrowserActResponse{}},
		abi.HostBrowserFillForm:      {abi.BrowserFillFormRequest{}, abi.BrowserActResponse{}},
		abi.HostBrowserUpload:        {abi.BrowserUploadRequest{}, abi.BrowserActResponse{}},
		abi.HostBrowserHistory:       {abi.BrowserHistoryRequest{}, abi.BrowserNavigateResponse{}},
		abi.HostBrowserWaitFor:       {abi.BrowserWaitForRequest{}, abi.BrowserWaitForResponse{}},
		abi.HostBrowserDialog:        {abi.BrowserDialogRequest{}, abi.BrowserDialogResponse{}},
		abi.HostBrowserConsole:       {abi.BrowserConsoleRequest{}, abi.BrowserConsoleResponse{}},
		abi.HostBrowserNetwork:       {abi.BrowserNetworkRequest{}, abi.BrowserNetworkResponse{}},
		abi.HostBrowserImages:        {abi.BrowserImagesRequest{}, abi.BrowserImagesResponse{}},
		abi.HostBrowserComputedStyle: {abi.BrowserComputedStyleRequest{}, abi.BrowserComputedStyleResponse{}},
		abi.HostBrowserScreenshot:    {abi.BrowserScreenshotRequest{}, abi.BrowserScreenshotResponse{}},
		abi.HostBrowserPDF:           {abi.BrowserPDFRequest{}, abi.BrowserPDFResponse{}},
		abi.HostBrowserEvaluate:      {abi.BrowserEvaluateRequest{}, abi.BrowserEvaluateResponse{}},
		abi.HostBrowserStorage:       {abi.BrowserStorageRequest{}, abi.BrowserStorageResponse{}},
		abi.HostBrowserCookies:       {abi.BrowserCookiesRequest{}, abi.BrowserCookiesResponse{}},
		abi.HostBrowserSources:       {abi.BrowserSourcesRequest{}, abi.BrowserSourcesResponse{}},
		abi.HostBrowserTabs:          {abi.BrowserTabsRequest{}, abi.BrowserTabsResponse{}},
		abi.HostBrowserEmulate:       {abi.BrowserEmulateRequest{}, abi.BrowserEmulateResponse{}},
		abi.HostBrowserResize:        {abi.BrowserResizeRequest{}, abi.BrowserResizeResponse{}},
		abi.HostBrowserClose:         {abi.BrowserCloseRequest{}, abi.BrowserCloseResponse{}},
		abi.HostBrowserSessions:      {abi.BrowserSessionsRequest{}, abi.BrowserSessionsResponse{}},
		abi.HostBrowserRead:          {abi.BrowserReadRequest{}, abi.BrowserReadResponse{}},
		abi.HostBrowserProfile:       {abi.BrowserProfileRequest{}, abi.BrowserProfileResponse{}},
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
