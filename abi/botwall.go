package abi

import "strconv"

// Kinds of bot wall, the same for every vendor (Error.Details["kind"] of a
// bot_wall).
const (
	// WallChallenge is an automatic check (a script, a proof of work) that
	// a real browser passes by itself, given time.
	WallChallenge = "challenge"
	// WallCaptcha is a check that needs a person (a puzzle, a checkbox,
	// press and hold).
	WallCaptcha = "captcha"
	// WallBlock is access denied: there is nothing to pass.
	WallBlock = "block"
)

// VendorUnknown names the vendor of a wall that names none (a bare 429).
const VendorUnknown = "unknown"

// BotWall is a detector's answer for a block page: bot_wall, with the
// details every reader of a wall uses. details.vendor is the wall's maker
// as people know it ("Cloudflare", "AWS WAF", "DataDome"; VendorUnknown
// when the page names none): the agent reads it in the error's details and
// the host's log names it with the withheld page; in a detector chain, the
// first detector to flag a page names it. details.kind is WallChallenge,
// WallCaptcha or WallBlock; status and url come from pg; marker is the
// exact thing that matched. message is what the agent reads: say that the
// page was not read and what to do next.
func BotWall(vendor, kind string, pg *Page, marker, message string) *Error {
	if vendor == "" {
		vendor = VendorUnknown
	}
	d := map[string]string{"vendor": vendor, "kind": kind}
	if marker != "" {
		d["marker"] = marker
	}
	if pg != nil {
		d["url"] = pg.URL
		if pg.Status != 0 {
			d["status"] = strconv.Itoa(pg.Status)
		}
	}
	return &Error{Code: CodeBotWall, Message: message, Details: d}
}
