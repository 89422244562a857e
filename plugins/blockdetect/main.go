// Command blockdetect is the wasmwright detect hook: it recognises bot walls
// (challenge, captcha and block pages of Cloudflare, DataDome, PerimeterX,
// Akamai, Imperva, Kasada, AWS WAF, Sucuri, CloudFront, Distil, Radware and
// captcha interstitials) in a navigation's result and turns the result into a
// bot_wall error, so an agent never mistakes a block page for the page.
//
// It decides from what the page shows and how it is built: only a page that
// holds little (little visible text, few links) can be a wall, and then only
// with its vendor's title, wording, challenge form or frame; a marker inside
// a script only supports, and decides alone only on a page that shows and
// loads nothing else. A vendor's header, script, sensor or captcha library on
// a healthy page (server: cloudflare, a sensor script) is not a wall, nor is
// a page with content served with an error status; a near-empty 429 is an
// unnamed wall.
//
// Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o blockdetect.wasm .
package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
	sdk "github.com/wasmwright/wasmwright/plugin-sdk"
)

func init() {
	sdk.Plugin("blockdetect", "1.0.0", "Detects bot walls (challenge, captcha and block pages) in navigation results.")
	sdk.Hook(hook, abi.HookDetect)
	// The whole page (megabytes) arrives raw, not as JSON strings.
	sdk.Features(abi.FeatureRawPage)
	sdk.SelfTest(selfTest)
	// The host runs the real hook on these besides its own wall and
	// normal page (abi.SelfTestCase).
	sdk.SelfTestCases(
		abi.SelfTestCase{Name: "DataDome block", Role: abi.HookDetect, Want: abi.CodeBotWall, Result: &abi.Result{Page: &abi.Page{
			URL: "https://shop.example/", Status: 403, Headers: map[string]string{"x-datadome": "protected"}, Title: "shop.example"}}},
		abi.SelfTestCase{Name: "healthy page behind Cloudflare", Role: abi.HookDetect, Result: &abi.Result{Page: &abi.Page{
			URL: "https://shop.example/", Status: 200, Headers: map[string]string{"server": "cloudflare", "cf-ray": "8a1b2c3d4e5f-AMS"},
			Title: "Shop", Text: "Welcome to the shop."}}},
	)
}

func hook(c *sdk.Call, req *abi.HookRequest) (*abi.HookResponse, error) {
	if req.Result == nil || req.Result.Page == nil {
		// Not a navigation: nothing to look at.
		return &abi.HookResponse{}, nil
	}
	pg := req.Result.Page
	p := newPage(pg.Status, pg.Headers, pg.Title, pg.Text, pg.HTML)
	p.url = pg.URL
	w := detect(p)
	if w == nil {
		return &abi.HookResponse{}, nil
	}
	return &abi.HookResponse{Error: wallError(w, pg, req.HasTakeover)}, nil
}

// wallError is the bot_wall error an agent reads: who blocked, how we know,
// what was not done, and what to do next.
func wallError(w *wall, pg *abi.Page, takeover bool) *abi.Error {
	var b strings.Builder
	status := "unknown status"
	if pg.Status != 0 {
		status = "HTTP " + strconv.Itoa(pg.Status)
	}
	if w.Vendor != "" {
		fmt.Fprintf(&b, "%s is showing a bot wall (%s %s, %s) instead of the page", hostOf(pg.URL), w.Vendor, w.Kind, status)
	} else {
		fmt.Fprintf(&b, "%s answered %s with no content we can trust: treated as a bot wall from an unnamed vendor", hostOf(pg.URL), status)
	}
	fmt.Fprintf(&b, "; matched %s. The page was not read and nothing was retried.", quoteMarker(w.Marker))
	if takeover {
		b.WriteString(" A person can pass it: call browser_request_takeover so the user completes the check in the live browser, then take a new snapshot.")
	} else {
		b.WriteString(" Do not retry in a loop: try another source for this information, or tell the user this site blocks automated browsing.")
	}
	e := &abi.Error{Code: abi.CodeBotWall, Message: b.String(), Details: map[string]string{
		"vendor": vendorOrUnknown(w.Vendor),
		"kind":   w.Kind,
		"status": strconv.Itoa(pg.Status),
		"marker": w.Marker,
		"url":    pg.URL,
	}}
	return e
}

func vendorOrUnknown(v string) string {
	if v == "" {
		return "unknown"
	}
	return v
}

func quoteMarker(m string) string {
	if strings.HasPrefix(m, "title ") || strings.HasPrefix(m, "header ") || strings.HasPrefix(m, "HTTP ") || strings.HasPrefix(m, "server: ") {
		return m
	}
	return "`" + strings.ReplaceAll(m, "`", "'") + "`"
}

func hostOf(u string) string {
	s := u
	if i := strings.Index(s, "://"); i >= 0 {
		s = s[i+3:]
	}
	if i := strings.IndexAny(s, "/?#"); i >= 0 {
		s = s[:i]
	}
	if s == "" {
		return "the site"
	}
	return s
}

// selfTest runs a known wall and a known clean page.
func selfTest() error {
	wallPage := newPage(403, map[string]string{"server": "cloudflare", "cf-mitigated": "challenge"},
		"Just a moment...", "Verifying you are human.",
		`<html><head><title>Just a moment...</title></head><body><script>window._cf_chl_opt={cType:'managed'}</script></body></html>`)
	w := detect(wallPage)
	if w == nil || w.Vendor != "Cloudflare" {
		return fmt.Errorf("blockdetect self-test: a Cloudflare challenge was not detected (got %+v)", w)
	}
	clean := newPage(200, map[string]string{"server": "cloudflare", "cf-ray": "8a1b2c3d4e5f-AMS"},
		"Example Domain", "Example Domain. This domain is for use in illustrative examples in documents.",
		`<html><head><title>Example Domain</title><script src="/cdn-cgi/challenge-platform/scripts/jsd/main.js"></script></head><body><h1>Example Domain</h1><p>This domain is for use in illustrative examples in documents.</p></body></html>`)
	if w := detect(clean); w != nil {
		return fmt.Errorf("blockdetect self-test: a clean page behind Cloudflare was called a wall (%+v)", w)
	}
	return nil
}

func main() {}
