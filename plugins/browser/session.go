package main

import (
	"fmt"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
	sdk "github.com/wasmwright/wasmwright/plugin-sdk"
)

// The tools of this file, each declared with its description, its
// arguments (their struct) and its handler below.
func init() {
	sdk.Tool("browser_sessions", descSessions, sessions, sdk.Requires(read), sdk.ReadOnly())
	sdk.Tool("browser_cookies", descCookies, cookies, sdk.Requires(act), sdk.Risk(abi.RiskAct))      // it reads and sets session cookies
	sdk.Tool("browser_emulate", descEmulate, emulate, sdk.Requires(act), sdk.Risk(abi.RiskNavigate)) // how pages are shown, never what they do
	sdk.Tool("browser_resize", descResize, resize, sdk.Requires(act), sdk.Risk(abi.RiskNavigate))
	sdk.Tool("browser_close", descClose, closeSession, sdk.Requires(act), sdk.Risk(abi.RiskNavigate))
	sdk.Tool("browser_profile", descProfile, profile, sdk.Requires(act), sdk.Risk(abi.RiskAct)) // it creates and deletes stored logins
}

// The session: cookies, emulation, the viewport, profiles, the sessions
// list, closing.

const descSessions = `List this agent's open browser sessions: name, tab count, current URL, idle time, whether it keeps a persistent profile, and which is the current one. Also says how the browser runs (local headless, headed, remote).`

func sessions(c *sdk.Call, _ NoArgs) (*abi.Result, error) {
	r, err := sdk.BrowserSessions(abi.BrowserSessionsRequest{})
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Browser: %s. %d open session(s):", r.Browser, len(r.Sessions))
	for _, s := range r.Sessions {
		mark := " "
		if s.Current {
			mark = "*"
		}
		fmt.Fprintf(&b, "\n %s %s: %d tab(s), %s, idle %ds", mark, s.Session, s.Tabs, orDash(s.URL), s.IdleMS/1000)
		if s.Persistent {
			b.WriteString(", persistent profile")
		}
		if s.Driving {
			b.WriteString(", a human is driving it")
		}
	}
	return withData(&abi.Result{Text: b.String()}, r), nil
}

type CookieArg struct {
	Name     string  `json:"name" desc:"the cookie's name"`
	Value    string  `json:"value" desc:"the cookie's value"`
	Domain   string  `json:"domain,omitempty" desc:"default: the current page's site"`
	Path     string  `json:"path,omitempty" desc:"default /"`
	Expires  float64 `json:"expires,omitempty" desc:"unix seconds; default: a session cookie"`
	HTTPOnly bool    `json:"http_only,omitempty" desc:"true: hidden from page scripts (HttpOnly)"`
	Secure   bool    `json:"secure,omitempty" desc:"true: sent over https only (Secure)"`
	SameSite string  `json:"same_site,omitempty" enum:"Strict|Lax|None" desc:"the SameSite attribute (default: the browser's, Lax)"`
}

const descCookies = `Set or clear cookies of this session. set: cookies with name and value (domain and path optional: without a domain the cookie is for the current page's site; expires is unix seconds). clear: remove all cookies, or only those matching name and/or domain. To read cookies use browser_storage.`

type CookiesArgs struct {
	Set    []CookieArg `json:"set,omitempty" desc:"cookies to add or overwrite"`
	Clear  bool        `json:"clear,omitempty" desc:"remove cookies (all, or those matching name/domain)"`
	Name   string      `json:"name,omitempty" desc:"with clear: only cookies of this name"`
	Domain string      `json:"domain,omitempty" desc:"with clear: only cookies of this domain"`
}

func cookies(c *sdk.Call, in CookiesArgs) (*abi.Result, error) {
	req := abi.BrowserCookiesRequest{Clear: in.Clear, Name: in.Name, Domain: in.Domain}
	for _, k := range in.Set {
		req.Set = append(req.Set, abi.BrowserCookie{Name: k.Name, Value: k.Value, Domain: k.Domain, Path: k.Path, Expires: k.Expires, HTTPOnly: k.HTTPOnly, Secure: k.Secure, SameSite: k.SameSite})
	}
	r, err := sdk.BrowserCookies(req)
	if err != nil {
		return nil, err
	}
	var parts []string
	if r.Cleared {
		what := "all cookies"
		if in.Name != "" || in.Domain != "" {
			what = strings.TrimSpace("cookies " + in.Name + " " + in.Domain)
		}
		parts = append(parts, "Cleared "+what)
	}
	if r.Set > 0 {
		parts = append(parts, fmt.Sprintf("Set %d cookie(s)", r.Set))
	}
	return result(strings.Join(parts, "; ")+".", r.State, ""), nil
}

const descEmulate = `Change how this session presents itself: device (a Playwright device such as "iPhone 15", "Pixel 7", "iPad Mini": viewport, user agent, touch; this opens a new browser context: every tab is reopened at its URL with cookies and local storage kept, but tab history, session storage and unsaved form input are lost, as the result says), media "print" or "screen", color_scheme "dark"/"light", reduced_motion, geolocation (latitude and longitude; pages may then read the position), clear_geolocation, or offline true/false to test offline behaviour.`

type EmulateArgs struct {
	Device           string   `json:"device,omitempty" desc:"a Playwright device name, e.g. \"iPhone 15\", \"Pixel 7\", \"iPad Mini\""`
	Media            string   `json:"media,omitempty" enum:"screen|print" desc:"the CSS media type pages see"`
	ColorScheme      string   `json:"color_scheme,omitempty" enum:"light|dark|no-preference" desc:"the prefers-color-scheme pages see"`
	ReducedMotion    string   `json:"reduced_motion,omitempty" enum:"reduce|no-preference" desc:"the prefers-reduced-motion pages see"`
	Latitude         *float64 `json:"latitude,omitempty" min:"-90" max:"90" desc:"with longitude: the position pages see"`
	Longitude        *float64 `json:"longitude,omitempty" min:"-180" max:"180" desc:"with latitude: the position pages see"`
	ClearGeolocation bool     `json:"clear_geolocation,omitempty" desc:"true: pages see no position again"`
	Offline          *bool    `json:"offline,omitempty" desc:"true cuts the session's network, false restores it"`
}

func emulate(c *sdk.Call, in EmulateArgs) (*abi.Result, error) {
	req := abi.BrowserEmulateRequest{Device: in.Device, Media: in.Media, ColorScheme: in.ColorScheme, ReducedMotion: in.ReducedMotion, ClearGeolocation: in.ClearGeolocation, Offline: in.Offline}
	if (in.Latitude == nil) != (in.Longitude == nil) {
		return nil, abi.Errorf(abi.CodeInputInvalid, "give both latitude and longitude")
	}
	if in.Latitude != nil {
		req.Geolocation = &abi.BrowserGeolocation{Latitude: *in.Latitude, Longitude: *in.Longitude}
	}
	r, err := sdk.BrowserEmulate(req)
	if err != nil {
		return nil, err
	}
	return result("Now emulating: "+strings.Join(r.Applied, ", ")+".", r.State, ""), nil
}

const descResize = `Resize the browser viewport to width x height CSS pixels (e.g. 390x844 for a phone, 1920x1080 for a desktop), to see responsive layouts. Returns the size.`

type ResizeArgs struct {
	Width  int `json:"width" min:"200" max:"7680" desc:"viewport width in CSS pixels"`
	Height int `json:"height" min:"200" max:"4320" desc:"viewport height in CSS pixels"`
}

func resize(c *sdk.Call, in ResizeArgs) (*abi.Result, error) {
	r, err := sdk.BrowserResize(abi.BrowserResizeRequest{Width: in.Width, Height: in.Height})
	if err != nil {
		return nil, err
	}
	return result(fmt.Sprintf("Viewport is now %dx%d.", r.Width, r.Height), r.State, ""), nil
}

const descClose = `Close this browser session: every tab, cookie and form state is dropped (a persistent profile keeps its cookies for next time). The next browser_navigate starts a fresh session. Close when done to free memory.`

func closeSession(c *sdk.Call, _ NoArgs) (*abi.Result, error) {
	r, err := sdk.BrowserClose(abi.BrowserCloseRequest{})
	if err != nil {
		return nil, err
	}
	if !r.Closed {
		return &abi.Result{Text: "No browser session was open."}, nil
	}
	return &abi.Result{Text: "Closed the browser session. The next browser_navigate starts a fresh one."}, nil
}

const descProfile = `Manage this agent's browser profiles: a profile keeps cookies and storage (logins) across sessions and restarts. action "create" makes profile name, "list" lists them (and which session has each open), "delete" removes one with its cookies (close the session using it first). Names are letters, digits, _ and -. Open a session on a profile with browser_navigate profile=name as the session's first call; a profile is open in one session at a time.`

type ProfileArgs struct {
	Action string `json:"action" enum:"create|list|delete" desc:"what to do"`
	Name   string `json:"name,omitempty" desc:"the profile's name: letters, digits, _ and - (create, delete)"`
}

func profile(c *sdk.Call, in ProfileArgs) (*abi.Result, error) {
	r, err := sdk.BrowserProfile(abi.BrowserProfileRequest{Action: in.Action, Name: in.Name})
	if err != nil {
		return nil, err
	}
	var b strings.Builder
	switch in.Action {
	case "create":
		fmt.Fprintf(&b, "Profile %s is ready: open a session on it with browser_navigate profile=%q.\n", in.Name, in.Name)
	case "delete":
		fmt.Fprintf(&b, "Deleted profile %s and its cookies and storage.\n", in.Name)
	}
	fmt.Fprintf(&b, "%d profile(s):", len(r.Profiles))
	for _, p := range r.Profiles {
		b.WriteString("\n " + p.Name)
		if p.InUse != "" {
			b.WriteString(" (open in session " + p.InUse + ")")
		}
	}
	return withData(&abi.Result{Text: b.String()}, r.Profiles), nil
}
