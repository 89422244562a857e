package abi

// What the browser host functions let a plugin do with a session rather
// than a page: profiles, storage and cookies, tabs, emulation, the
// viewport, closing, listing sessions.

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
