package abi

import "encoding/json"

// Browser host functions. They are primitives: the host holds the power (a
// browser context per personality and session, refs, dialogs, files), and
// the tool plugin holds the tool logic (argument shaping, defaults, wording).
// Each is one import with its own capability:
//
//	browser.read  snapshot, wait_for, console, network, images, computed_style,
//	              screenshot, pdf, storage, sources, sessions, read
//	browser.act   navigate, act, fill_form, upload, history, dialog, cookies,
//	              tabs, emulate, resize, close, profile
//	browser.eval  evaluate
//
// Elements are named by refs from the latest snapshot of the current tab
// ("e5", "@e5", or "f1e4" inside frames). A ref that is not in the latest
// snapshot, or whose element left the page, fails at once with stale_ref; a
// CSS selector is refused with input_invalid. Every response carries the
// BrowserState of the session after the call.
const (
	HostBrowserNavigate      = "ww_browser_navigate"
	HostBrowserSnapshot      = "ww_browser_snapshot"
	HostBrowserAct           = "ww_browser_act"
	HostBrowserFillForm      = "ww_browser_fill_form"
	HostBrowserUpload        = "ww_browser_upload"
	HostBrowserHistory       = "ww_browser_history"
	HostBrowserWaitFor       = "ww_browser_wait_for"
	HostBrowserDialog        = "ww_browser_dialog"
	HostBrowserConsole       = "ww_browser_console"
	HostBrowserNetwork       = "ww_browser_network"
	HostBrowserImages        = "ww_browser_images"
	HostBrowserComputedStyle = "ww_browser_computed_style"
	HostBrowserScreenshot    = "ww_browser_screenshot"
	HostBrowserPDF           = "ww_browser_pdf"
	HostBrowserEvaluate      = "ww_browser_evaluate"
	HostBrowserStorage       = "ww_browser_storage"
	HostBrowserCookies       = "ww_browser_cookies"
	HostBrowserSources       = "ww_browser_sources"
	HostBrowserTabs          = "ww_browser_tabs"
	HostBrowserEmulate       = "ww_browser_emulate"
	HostBrowserResize        = "ww_browser_resize"
	HostBrowserClose         = "ww_browser_close"
	HostBrowserSessions      = "ww_browser_sessions"
	HostBrowserRead          = "ww_browser_read"
	HostBrowserProfile       = "ww_browser_profile"
)

// BrowserState is the session as a call left it. Every browser response
// carries it.
type BrowserState struct {
	// Tab is the index of the current tab.
	Tab   int    `json:"tab"`
	URL   string `json:"url,omitempty"`
	Title string `json:"title,omitempty"`
	// Tabs lists every tab when there is more than one.
	Tabs []BrowserTab `json:"tabs,omitempty"`
	// NewTabs are tabs this call opened (popups, target=_blank links).
	NewTabs []BrowserTab `json:"new_tabs,omitempty"`
	// Dialog is a JavaScript dialog blocking the page: answer it with
	// HostBrowserDialog before anything else touches the page.
	Dialog *BrowserDialog `json:"dialog,omitempty"`
	// Warnings are one-time notices: headless fallback, an ephemeral
	// session where a profile was wanted, a fresh session after a crash.
	Warnings []string `json:"warnings,omitempty"`
}

// BrowserTab is one tab of a session.
type BrowserTab struct {
	Index   int    `json:"index"`
	URL     string `json:"url"`
	Title   string `json:"title,omitempty"`
	Current bool   `json:"current,omitempty"`
}

// BrowserDialog is an alert, confirm, prompt or beforeunload dialog.
type BrowserDialog struct {
	Type         string `json:"type"`
	Message      string `json:"message"`
	DefaultValue string `json:"default_value,omitempty"`
}

// BrowserNavigateRequest loads a URL in the current tab (or a new one).
// Only http and https URLs are accepted.
type BrowserNavigateRequest struct {
	URL string `json:"url"`
	// WaitUntil is load (default), domcontentloaded, networkidle or commit.
	WaitUntil string `json:"wait_until,omitempty" enum:"load|domcontentloaded|networkidle|commit"`
	// TimeoutMS overrides the host's navigation timeout (capped by it).
	TimeoutMS int  `json:"timeout_ms,omitempty"`
	NewTab    bool `json:"new_tab,omitempty"`
	// NoSnapshot skips the snapshot of the loaded page.
	NoSnapshot bool `json:"no_snapshot,omitempty"`
	// Profile opens the session, when this call opens it, on the named
	// profile of the personality (HostBrowserProfile): its cookies and
	// storage persist. A session already open on another profile (or
	// none) is refused with input_invalid: close it first.
	Profile string `json:"profile,omitempty"`
}

// BrowserNavigateResponse answers navigate and history. Page holds the
// facts the detect hook reads; the plugin copies it into Result.Page.
type BrowserNavigateResponse struct {
	State    BrowserState `json:"state"`
	Page     Page         `json:"page"`
	Snapshot string       `json:"snapshot,omitempty"`
	// Moved is false when history had no entry in that direction.
	Moved bool `json:"moved"`
}

// BrowserSnapshotRequest asks for the ARIA snapshot of the current tab,
// optionally scoped to the subtree of Ref.
type BrowserSnapshotRequest struct {
	Ref   string `json:"ref,omitempty"`
	Depth int    `json:"depth,omitempty"`
}

// BrowserSnapshotResponse carries the snapshot. Password values are
// replaced by a placeholder.
type BrowserSnapshotResponse struct {
	State    BrowserState `json:"state"`
	Snapshot string       `json:"snapshot"`
}

// Actions of BrowserActRequest.
const (
	ActClick    = "click"
	ActDblClick = "dblclick"
	ActType     = "type"  // key by key; Append keeps the current value
	ActFill     = "fill"  // replace the value at once
	ActPress    = "press" // a key or chord (Enter, Control+A) on Ref or the focused element
	ActHover    = "hover"
	ActScroll   = "scroll" // Ref into view, or the page by Direction and Amount
	ActSelect   = "select" // options of a <select> by value or label
	ActDrag     = "drag"   // Ref onto TargetRef, or (X,Y) to (ToX,ToY)
	ActCheck    = "check"  // a checkbox or radio to Checked (default true)
)

// BrowserActRequest is one interaction with the current tab. The target is
// Ref, or the viewport point (X, Y) when Ref is empty.
type BrowserActRequest struct {
	Action string   `json:"action" enum:"click|dblclick|type|fill|press|hover|scroll|select|drag|check"`
	Ref    string   `json:"ref,omitempty"`
	X      *float64 `json:"x,omitempty"`
	Y      *float64 `json:"y,omitempty"`
	// Text for type and fill; Key for press. Type and fill at (X, Y) click
	// there and type through the keyboard (selecting the focused
	// element's content first unless Append).
	Text   string `json:"text,omitempty"`
	Key    string `json:"key,omitempty"`
	Append bool   `json:"append,omitempty"`
	// Submit presses Enter after type or fill.
	Submit bool `json:"submit,omitempty"`
	// Button is left (default), right or middle; Modifiers are Alt,
	// Control, ControlOrMeta, Meta, Shift.
	Button    string   `json:"button,omitempty" enum:"left|right|middle"`
	Modifiers []string `json:"modifiers,omitempty" enum:"Alt|Control|ControlOrMeta|Meta|Shift"`
	// Values for select.
	Values []string `json:"values,omitempty"`
	// Drag target.
	TargetRef string   `json:"target_ref,omitempty"`
	ToX       *float64 `json:"to_x,omitempty"`
	ToY       *float64 `json:"to_y,omitempty"`
	// Scroll: up, down, left or right by Amount pixels (default: most of a
	// viewport).
	Direction string `json:"direction,omitempty" enum:"up|down|left|right"`
	Amount    int    `json:"amount,omitempty"`
	// Checked for check; nil means true.
	Checked    *bool `json:"checked,omitempty"`
	NoSnapshot bool  `json:"no_snapshot,omitempty"`
}

// BrowserActResponse answers act, fill_form and upload.
type BrowserActResponse struct {
	State    BrowserState `json:"state"`
	Snapshot string       `json:"snapshot,omitempty"`
	// Navigated is true when the action loaded a new document; Page then
	// holds its facts.
	Navigated bool  `json:"navigated,omitempty"`
	Page      *Page `json:"page,omitempty"`
	// Detail is what the action found (selected options, scroll offset).
	Detail string `json:"detail,omitempty"`
}

// BrowserFormField is one field of fill_form. Kind is textbox (default),
// checkbox, radio, combobox or slider; Value is the text, "true"/"false",
// or the option's label or value.
type BrowserFormField struct {
	Ref   string `json:"ref"`
	Kind  string `json:"kind,omitempty" enum:"textbox|checkbox|radio|combobox|slider"`
	Value string `json:"value"`
}

// BrowserFillFormRequest fills several fields in one call.
type BrowserFillFormRequest struct {
	Fields     []BrowserFormField `json:"fields"`
	NoSnapshot bool               `json:"no_snapshot,omitempty"`
}

// BrowserUploadRequest sets files on a file input, or on the chooser a
// button opens. Paths are relative to the host's upload folder; anything
// outside it fails with path_refused.
type BrowserUploadRequest struct {
	Ref        string   `json:"ref"`
	Paths      []string `json:"paths"`
	NoSnapshot bool     `json:"no_snapshot,omitempty"`
}

// BrowserHistoryRequest goes back or forward one entry.
type BrowserHistoryRequest struct {
	Direction  string `json:"direction" enum:"back|forward"`
	TimeoutMS  int    `json:"timeout_ms,omitempty"`
	NoSnapshot bool   `json:"no_snapshot,omitempty"`
}

// BrowserWaitForRequest waits for one condition: Text to appear, TextGone
// to disappear, Ref to become visible, or TimeMS to pass.
type BrowserWaitForRequest struct {
	Text       string `json:"text,omitempty"`
	TextGone   string `json:"text_gone,omitempty"`
	Ref        string `json:"ref,omitempty"`
	TimeMS     int    `json:"time_ms,omitempty"`
	TimeoutMS  int    `json:"timeout_ms,omitempty"`
	NoSnapshot bool   `json:"no_snapshot,omitempty"`
}

// BrowserWaitForResponse says how long it waited.
type BrowserWaitForResponse struct {
	State    BrowserState `json:"state"`
	WaitedMS int64        `json:"waited_ms"`
	Snapshot string       `json:"snapshot,omitempty"`
}

// BrowserDialogRequest answers the open dialog. PromptText fills a prompt
// before accepting it.
type BrowserDialogRequest struct {
	Accept     bool    `json:"accept"`
	PromptText *string `json:"prompt_text,omitempty"`
	NoSnapshot bool    `json:"no_snapshot,omitempty"`
}

// BrowserDialogResponse says which dialog was answered.
type BrowserDialogResponse struct {
	State    BrowserState  `json:"state"`
	Handled  BrowserDialog `json:"handled"`
	Snapshot string        `json:"snapshot,omitempty"`
}

// BrowserConsoleRequest reads the session's console log (all tabs) and
// uncaught page errors. Level filters to that level and more severe
// (error, warning, info, debug). Since returns entries after that Seq.
type BrowserConsoleRequest struct {
	Level string `json:"level,omitempty" enum:"error|warning|info|debug"`
	Since int64  `json:"since,omitempty"`
	Limit int    `json:"limit,omitempty"`
	Clear bool   `json:"clear,omitempty"`
}

// BrowserConsoleMessage is one console line; Type "pageerror" is an
// uncaught exception.
type BrowserConsoleMessage struct {
	Seq  int64  `json:"seq"`
	Type string `json:"type"`
	Text string `json:"text"`
	URL  string `json:"url,omitempty"`
	Line int    `json:"line,omitempty"`
	Tab  int    `json:"tab"`
}

// BrowserConsoleResponse lists messages, oldest first; Dropped counts
// older ones that no longer fit the buffer.
type BrowserConsoleResponse struct {
	State    BrowserState            `json:"state"`
	Messages []BrowserConsoleMessage `json:"messages"`
	Dropped  int64                   `json:"dropped,omitempty"`
}

// BrowserNetworkRequest lists recent requests of the session. Static
// includes images, fonts, stylesheets and media (off by default). A
// non-zero BodyOf returns that request's response body, capped.
type BrowserNetworkRequest struct {
	Filter       string `json:"filter,omitempty"` // substring of the URL
	Limit        int    `json:"limit,omitempty"`
	Static       bool   `json:"static,omitempty"`
	FailedOnly   bool   `json:"failed_only,omitempty"`
	BodyOf       int64  `json:"body_of,omitempty"`
	MaxBodyBytes int    `json:"max_body_bytes,omitempty"`
}

// BrowserNetworkEntry is one request.
type BrowserNetworkEntry struct {
	ID           int64  `json:"id"`
	Method       string `json:"method"`
	URL          string `json:"url"`
	ResourceType string `json:"resource_type"`
	Status       int    `json:"status,omitempty"`
	Failure      string `json:"failure,omitempty"`
	MIME         string `json:"mime,omitempty"`
	DurationMS   int64  `json:"duration_ms,omitempty"`
	Tab          int    `json:"tab"`
}

// BrowserBody is a fetched body: Text when it is text, else Base64.
type BrowserBody struct {
	URL       string `json:"url"`
	MIME      string `json:"mime,omitempty"`
	Text      string `json:"text,omitempty"`
	Base64    string `json:"base64,omitempty"`
	Size      int    `json:"size"`
	Truncated bool   `json:"truncated,omitempty"`
}

// BrowserNetworkResponse lists requests, oldest first.
type BrowserNetworkResponse struct {
	State    BrowserState          `json:"state"`
	Requests []BrowserNetworkEntry `json:"requests"`
	Body     *BrowserBody          `json:"body,omitempty"`
}

// BrowserImagesRequest lists the <img> elements of the current tab.
type BrowserImagesRequest struct {
	Limit int `json:"limit,omitempty"`
}

// BrowserImage is one image.
type BrowserImage struct {
	Src     string `json:"src"`
	Alt     string `json:"alt"`
	Width   int    `json:"width"`
	Height  int    `json:"height"`
	Natural string `json:"natural,omitempty"` // "WxH" of the image file
	Visible bool   `json:"visible"`
	Loaded  bool   `json:"loaded"`
}

// BrowserImagesResponse lists them in document order.
type BrowserImagesResponse struct {
	State  BrowserState   `json:"state"`
	Images []BrowserImage `json:"images"`
	Total  int            `json:"total"`
}

// BrowserComputedStyleRequest reads getComputedStyle: of Ref, or of the
// rendered elements of the page (those with text or a box), up to Limit.
// Properties default to colour, background, typography, border and shadow.
type BrowserComputedStyleRequest struct {
	Ref        string   `json:"ref,omitempty"`
	Properties []string `json:"properties,omitempty"`
	Limit      int      `json:"limit,omitempty"`
}

// BrowserStyledElement is one element's computed style.
type BrowserStyledElement struct {
	Tag    string            `json:"tag"`
	Text   string            `json:"text,omitempty"`
	Box    string            `json:"box,omitempty"` // "x,y,w,h"
	Styles map[string]string `json:"styles"`
}

// BrowserComputedStyleResponse lists the elements.
type BrowserComputedStyleResponse struct {
	State    BrowserState           `json:"state"`
	Elements []BrowserStyledElement `json:"elements"`
	Total    int                    `json:"total"`
}

// BrowserScreenshotRequest captures the viewport, the full page or the
// element Ref as PNG (default), JPEG or WebP. The file goes to the
// personality's workspace folder (Name is a file name there; default a
// timestamped one). Marks draws numbered boxes over the viewport's
// candidate targets (set-of-marks) and lists them in the response: viewport
// only, PNG or JPEG.
type BrowserScreenshotRequest struct {
	Mode     string `json:"mode,omitempty" enum:"viewport|full|element"`
	Ref      string `json:"ref,omitempty"`
	Name     string `json:"name,omitempty"`
	NoInline bool   `json:"no_inline,omitempty"`
	Format   string `json:"format,omitempty" enum:"png|jpeg|jpg|webp"` // png (default)
	Quality  int    `json:"quality,omitempty"`                         // 1-100, jpeg and webp (default 80)
	Marks    bool   `json:"marks,omitempty"`
}

// BrowserScreenshotResponse gives the file and, unless NoInline, the image.
type BrowserScreenshotResponse struct {
	State  BrowserState `json:"state"`
	Path   string       `json:"path"`
	MIME   string       `json:"mime"`
	Data   string       `json:"data,omitempty"` // base64
	Bytes  int          `json:"bytes"`
	Width  int          `json:"width,omitempty"`
	Height int          `json:"height,omitempty"`
	// Marks is the legend of a marked screenshot, in mark order;
	// MarksTotal counts the candidates found, more than len(Marks) when
	// the list was capped (MaxScreenMarks).
	Marks      []ScreenMark `json:"marks,omitempty"`
	MarksTotal int          `json:"marks_total,omitempty"`
}

// MaxScreenMarks caps the marks of one marked screenshot.
const MaxScreenMarks = 200

// ScreenMark is one numbered box of a marked screenshot. Ref is the
// element's ref from the page's snapshot (click it with it), empty for a
// region without one (a canvas, an element that only looks clickable:
// click the box's centre). Role is the snapshot's role, or "canvas" or
// "clickable" for a region without a ref; Name is its accessible name or
// label, page content, cut at 60 characters. Box is x, y, width, height in
// CSS pixels, viewport coordinates, clipped to the viewport; the marked
// image is captured at CSS scale, so its pixels are the same coordinates.
type ScreenMark struct {
	Mark int    `json:"mark"`
	Ref  string `json:"ref,omitempty"`
	Role string `json:"role"`
	Name string `json:"name,omitempty"`
	Box  [4]int `json:"box"`
}

// BrowserReadRequest asks for the current tab's readable text: the
// visible text of the main content, chosen as Mozilla's Readability
// chooses it (text and link density, class and id weights, siblings that
// belong with it), without navigation, forms, comments and boilerplate,
// its title first. MaxBytes lowers the host's cap
// (browser.read_max_bytes); it cannot raise it.
type BrowserReadRequest struct {
	MaxBytes int `json:"max_bytes,omitempty"`
}

// BrowserReadResponse holds the text, cut at a UTF-8 boundary when it
// exceeds the cap. Bytes is its size before the cut. It is page content:
// untrusted.
type BrowserReadResponse struct {
	State     BrowserState `json:"state"`
	Text      string       `json:"text"`
	Bytes     int          `json:"bytes"`
	Limit     int          `json:"limit"`
	Truncated bool         `json:"truncated,omitempty"`
	// Root is the tag of the smallest element of the page that holds the
	// text read ("article", "main", "div"...), "body" for the whole page.
	Root string `json:"root"`
}

// BrowserProfileRequest manages the caller's personality's named browser
// profiles (folders of cookies and storage under its profile root).
// Action is create, list or delete; Name matches [A-Za-z0-9_-]+.
type BrowserProfileRequest struct {
	Action string `json:"action" enum:"create|list|delete"`
	Name   string `json:"name,omitempty"`
}

// BrowserProfileInfo is one profile.
type BrowserProfileInfo struct {
	Name string `json:"name"`
	// InUse names the session that has it open.
	InUse string `json:"in_use,omitempty"`
}

// BrowserProfileResponse lists the profiles after the change.
type BrowserProfileResponse struct {
	Profiles []BrowserProfileInfo `json:"profiles"`
}

// BrowserPDFRequest prints the current tab to a PDF in the workspace.
type BrowserPDFRequest struct {
	Name      string `json:"name,omitempty"`
	Landscape bool   `json:"landscape,omitempty"`
	Format    string `json:"format,omitempty" enum:"Letter|Legal|Tabloid|Ledger|A0|A1|A2|A3|A4|A5|A6"` // A4 (default)
}

// BrowserPDFResponse gives the file.
type BrowserPDFResponse struct {
	State BrowserState `json:"state"`
	Path  string       `json:"path"`
	Bytes int          `json:"bytes"`
}

// BrowserEvaluateRequest runs a JavaScript expression or function in the
// page, or a function of the element Ref. Needs browser.eval.
type BrowserEvaluateRequest struct {
	Expression string `json:"expression"`
	Ref        string `json:"ref,omitempty"`
	MaxBytes   int    `json:"max_bytes,omitempty"`
}

// BrowserEvaluateResponse holds the JSON of the value. It is page content:
// untrusted.
type BrowserEvaluateResponse struct {
	State     BrowserState    `json:"state"`
	Result    json.RawMessage `json:"result"`
	Truncated bool            `json:"truncated,omitempty"`
}

// BrowserStorageRequest reads local storage, session storage and cookies of
// the current tab's origin (cookies: every cookie the page would send).
// Values are returned only when Values is set.
type BrowserStorageRequest struct {
	Kind   string `json:"kind,omitempty" enum:"all|local|session|cookies"` // all (default)
	Values bool   `json:"values,omitempty"`
}

// BrowserStorageItem is one key (and value, when asked for).
type BrowserStorageItem struct {
	Name  string `json:"name"`
	Value string `json:"value,omitempty"`
	Size  int    `json:"size"`
}

// BrowserCookie is a cookie; Value only when asked for.
type BrowserCookie struct {
	Name     string  `json:"name"`
	Value    string  `json:"value,omitempty"`
	Domain   string  `json:"domain"`
	Path     string  `json:"path"`
	Expires  float64 `json:"expires,omitempty"` // unix seconds; 0 = session
	HTTPOnly bool    `json:"http_only,omitempty"`
	Secure   bool    `json:"secure,omitempty"`
	SameSite string  `json:"same_site,omitempty" enum:"Strict|Lax|None"`
	Size     int     `json:"size,omitempty"`
}

// BrowserStorageResponse lists what was asked for.
type BrowserStorageResponse struct {
	State   BrowserState         `json:"state"`
	Origin  string               `json:"origin"`
	Local   []BrowserStorageItem `json:"local,omitempty"`
	Session []BrowserStorageItem `json:"session,omitempty"`
	Cookies []BrowserCookie      `json:"cookies,omitempty"`
}

// BrowserCookiesRequest sets cookies and/or clears them. Clear with Name
// and/or Domain clears only matching cookies. Set cookies without Domain
// apply to the current tab's URL.
type BrowserCookiesRequest struct {
	Set    []BrowserCookie `json:"set,omitempty"`
	Clear  bool            `json:"clear,omitempty"`
	Name   string          `json:"name,omitempty"`
	Domain string          `json:"domain,omitempty"`
}

// BrowserCookiesResponse counts the changes.
type BrowserCookiesResponse struct {
	State   BrowserState `json:"state"`
	Set     int          `json:"set"`
	Cleared bool         `json:"cleared,omitempty"`
}

// BrowserSourcesRequest lists the scripts and stylesheets of the current
// tab, or, with Fetch, returns one of them (an http(s) URL the page loaded,
// or "inline:<kind>:<n>"), capped at MaxBytes.
type BrowserSourcesRequest struct {
	Kind     string `json:"kind,omitempty" enum:"script|stylesheet"` // absent: both
	Fetch    string `json:"fetch,omitempty"`
	MaxBytes int    `json:"max_bytes,omitempty"`
}

// BrowserSource is one script or stylesheet.
type BrowserSource struct {
	Kind  string `json:"kind"`
	URL   string `json:"url"` // inline:<kind>:<n> for inline ones
	Bytes int    `json:"bytes,omitempty"`
}

// BrowserSourcesResponse lists sources or carries the fetched one.
type BrowserSourcesResponse struct {
	State   BrowserState    `json:"state"`
	Sources []BrowserSource `json:"sources,omitempty"`
	Fetched *BrowserBody    `json:"fetched,omitempty"`
}

// BrowserTabsRequest lists, opens, selects or closes tabs.
type BrowserTabsRequest struct {
	Action string `json:"action" enum:"list|open|select|close"`
	Index  *int   `json:"index,omitempty"`
	URL    string `json:"url,omitempty"` // for open
}

// BrowserTabsResponse lists the tabs after the change (State.Tabs is
// always filled here).
type BrowserTabsResponse struct {
	State    BrowserState `json:"state"`
	Page     *Page        `json:"page,omitempty"`
	Snapshot string       `json:"snapshot,omitempty"`
}

// BrowserGeolocation is a position to report to pages.
type BrowserGeolocation struct {
	Latitude  float64 `json:"latitude"`
	Longitude float64 `json:"longitude"`
	Accuracy  float64 `json:"accuracy,omitempty"`
}

// BrowserEmulateRequest changes how the session presents itself. Device
// names a Playwright device ("iPhone 15", "Pixel 7"); it recreates the
// session's browser context with that device, keeping cookies and storage
// and reloading the current URL.
type BrowserEmulateRequest struct {
	Device           string              `json:"device,omitempty"`
	Media            string              `json:"media,omitempty" enum:"screen|print"`
	ColorScheme      string              `json:"color_scheme,omitempty" enum:"light|dark|no-preference"`
	ReducedMotion    string              `json:"reduced_motion,omitempty" enum:"reduce|no-preference"`
	Geolocation      *BrowserGeolocation `json:"geolocation,omitempty"`
	ClearGeolocation bool                `json:"clear_geolocation,omitempty"`
	Offline          *bool               `json:"offline,omitempty"`
}

// BrowserEmulateResponse lists what changed.
type BrowserEmulateResponse struct {
	State   BrowserState `json:"state"`
	Applied []string     `json:"applied"`
}

// BrowserResizeRequest sets the viewport size of the current tab.
type BrowserResizeRequest struct {
	Width  int `json:"width"`
	Height int `json:"height"`
}

// BrowserResizeResponse confirms the size.
type BrowserResizeResponse struct {
	State  BrowserState `json:"state"`
	Width  int          `json:"width"`
	Height int          `json:"height"`
}

// BrowserCloseRequest closes the caller's session (every tab). A
// persistent profile keeps its cookies and storage.
type BrowserCloseRequest struct{}

// BrowserCloseResponse says whether there was a session to close.
type BrowserCloseResponse struct {
	Closed bool `json:"closed"`
}

// BrowserSessionsRequest lists the calling personality's sessions.
type BrowserSessionsRequest struct{}

// BrowserSessionInfo is one open session.
type BrowserSessionInfo struct {
	Personality string `json:"personality,omitempty"`
	Session     string `json:"session"`
	Tabs        int    `json:"tabs"`
	URL         string `json:"url,omitempty"`
	Title       string `json:"title,omitempty"`
	IdleMS      int64  `json:"idle_ms"`
	Persistent  bool   `json:"persistent,omitempty"`
	Driving     bool   `json:"driving,omitempty"` // a human is driving it
	Current     bool   `json:"current,omitempty"` // the caller's own session
}

// BrowserSessionsResponse lists them.
type BrowserSessionsResponse struct {
	Sessions []BrowserSessionInfo `json:"sessions"`
	// Browser says how the browser runs: "not started", "local headless",
	// "local headed", "remote ws", "remote cdp".
	Browser string `json:"browser"`
}

// RedactedValue replaces password values in snapshots.
const RedactedValue = "[redacted]"
