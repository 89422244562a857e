// Command browser is wasmwright's browser tool set: the browser_* tools an
// agent calls, built only from plugin-sdk like any third-party plugin.
//
// The host holds the power (a real Chromium per personality and session,
// refs, files); this plugin holds the tool logic: argument shaping,
// defaults, and the wording agents read. Every tool that may change the
// page returns the page's new snapshot in Result.Snapshot.
//
// Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o browser.wasm .
package main

import (
	"github.com/wasmwright/wasmwright/abi"
	sdk "github.com/wasmwright/wasmwright/plugin-sdk"
)

const (
	read = "browser.read"
	act  = "browser.act"
	eval = "browser.eval"
)

func init() {
	sdk.Plugin("browser", "1.0.0", "Drive a real Chromium browser: navigate, read pages as ARIA snapshots with refs, click, type, fill forms, and inspect.")
	sdk.Needs(read, act, eval)
	// Snapshots, page facts and screenshots are only passed through: take
	// them as blob tokens, so they never cross the sandbox.
	sdk.Features(abi.FeatureBlobs)

	// Navigation.
	sdk.Tool("browser_navigate", descNavigate, navigate, sdk.Requires(act), sdk.Risk(abi.RiskNavigate))
	sdk.Tool("browser_back", descBack, back, sdk.Requires(act), sdk.Risk(abi.RiskNavigate))
	sdk.Tool("browser_forward", descForward, forward, sdk.Requires(act), sdk.Risk(abi.RiskNavigate))
	sdk.Tool("browser_tabs", descTabs, tabs, sdk.Requires(act), sdk.Risk(abi.RiskNavigate))

	// Reading.
	sdk.Tool("browser_snapshot", descSnapshot, snapshot, sdk.Requires(read), sdk.ReadOnly())
	sdk.Tool("browser_read", descRead, readText, sdk.Requires(read), sdk.ReadOnly())
	sdk.Tool("browser_wait_for", descWaitFor, waitFor, sdk.Requires(read), sdk.ReadOnly())
	sdk.Tool("browser_screenshot", descScreenshot, screenshot, sdk.Requires(read), sdk.ReadOnly())
	sdk.Tool("browser_pdf", descPDF, pdf, sdk.Requires(read), sdk.ReadOnly(), sdk.Risk(abi.RiskDownload)) // it writes a file
	sdk.Tool("browser_console", descConsole, console, sdk.Requires(read), sdk.ReadOnly())
	sdk.Tool("browser_network", descNetwork, network, sdk.Requires(read), sdk.ReadOnly())
	sdk.Tool("browser_get_images", descImages, images, sdk.Requires(read), sdk.ReadOnly())
	sdk.Tool("browser_computed_style", descComputedStyle, computedStyle, sdk.Requires(read), sdk.ReadOnly())
	sdk.Tool("browser_storage", descStorage, storage, sdk.Requires(read), sdk.ReadOnly())
	// A source fetch goes out with the session's cookies: an act.
	sdk.Tool("browser_sources", descSources, sources, sdk.Requires(read), sdk.ReadOnly(), sdk.RiskWhen("fetch", abi.RiskAct))
	sdk.Tool("browser_sessions", descSessions, sessions, sdk.Requires(read), sdk.ReadOnly())

	// Interaction.
	sdk.Tool("browser_click", descClick, click, sdk.Requires(act))
	sdk.Tool("browser_type", descType, typeText, sdk.Requires(act))
	sdk.Tool("browser_fill_form", descFillForm, fillForm, sdk.Requires(act))
	sdk.Tool("browser_press", descPress, press, sdk.Requires(act))
	sdk.Tool("browser_hover", descHover, hover, sdk.Requires(act))
	sdk.Tool("browser_scroll", descScroll, scroll, sdk.Requires(act))
	sdk.Tool("browser_select", descSelect, selectOption, sdk.Requires(act))
	sdk.Tool("browser_drag", descDrag, drag, sdk.Requires(act))
	// An upload sets a file input or clicks the control that opens the
	// chooser: an act on the page as well as an upload.
	sdk.Tool("browser_upload", descUpload, upload, sdk.Requires(act), sdk.Risk(abi.RiskUpload), sdk.RiskWhen("ref", abi.RiskAct))
	sdk.Tool("browser_dialog", descDialog, dialog, sdk.Requires(act))

	// Session.
	sdk.Tool("browser_cookies", descCookies, cookies, sdk.Requires(act), sdk.Risk(abi.RiskAct))      // it reads and sets session cookies
	sdk.Tool("browser_emulate", descEmulate, emulate, sdk.Requires(act), sdk.Risk(abi.RiskNavigate)) // how pages are shown, never what they do
	sdk.Tool("browser_resize", descResize, resize, sdk.Requires(act), sdk.Risk(abi.RiskNavigate))
	sdk.Tool("browser_close", descClose, closeSession, sdk.Requires(act), sdk.Risk(abi.RiskNavigate))
	sdk.Tool("browser_profile", descProfile, profile, sdk.Requires(act), sdk.Risk(abi.RiskAct)) // it creates and deletes stored logins

	// Scripts.
	sdk.Tool("browser_evaluate", descEvaluate, evaluate, sdk.Requires(eval))
}

func main() {}
