package abi

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

// RedactedValue replaces password values in snapshots.
const RedactedValue = "[redacted]"
