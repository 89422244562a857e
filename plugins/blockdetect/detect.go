package main

import (
	"regexp"
	"strconv"
	"strings"
)

// page is what a detector looks at, read once per call.
type page struct {
	url     string // where the page was loaded from (a vendor's own captcha host)
	status  int
	headers map[string]string // lower-case keys
	title   string
	html    string // the document as the host sent it
	doc     *docFacts
	// shownText is the title and the visible text (the host's rendered
	// text, else the document's), as a person would read them.
	shownText string
	textRunes int
	// searchable is set for a page that could be a wall (page.little):
	// only then are its places searched.
	searchable bool
	// found holds, per place, where each registered needle of that place
	// first occurs: in shownText for shown, in the document for built and
	// script. A place is searched when a rule first asks about it: most
	// pages that hold little never have their scripts searched.
	found [nPlaces]map[string]int
}

// wall is a detected block page.
type wall struct {
	Vendor string // "Cloudflare", or "" for an unnamed wall (bare status)
	Kind   string // challenge, captcha, block
	Marker string // the exact thing that matched
}

// Kinds, the same for every vendor:
//   - challenge: an automatic check (script, proof of work) that a real
//     browser passes by itself, given time;
//   - captcha: a check that needs a person (a puzzle, a checkbox, press
//     and hold);
//   - block: access denied; there is nothing to pass.
const (
	kindChallenge = "challenge"
	kindCaptcha   = "captcha"
	kindBlock     = "block"
)

func newPage(status int, headers map[string]string, title, text, doc string) *page {
	p := &page{status: status, headers: map[string]string{}, title: collapse(title), html: doc}
	for k, v := range headers {
		p.headers[strings.ToLower(k)] = v
	}
	// The host's rendered text (innerText) is what the page shows; without
	// it, the document's text outside scripts and hidden elements.
	text = strings.TrimSpace(text)
	if text != "" {
		p.textRunes = countRunes(text, wallMaxText)
		if p.textRunes > wallMaxText {
			p.doc = &docFacts{rich: true}
		} else {
			p.doc = readDoc(doc, false)
		}
	} else {
		p.doc = readDoc(doc, true)
		p.textRunes = p.doc.textRunes
		text = p.doc.text.String()
	}
	if p.title == "" {
		p.title = p.doc.title
	}
	if p.little() {
		p.shownText = p.title + "\n" + text
		p.searchable = true
	}
	return p
}

// little reports a page that holds no more than a wall does: little
// visible text and few links. Only such a page can be a wall, whatever
// vendor markers it carries: a vendor's script, sensor or captcha library
// on a page with content of its own is not a wall.
func (p *page) little() bool {
	return !p.doc.rich && p.textRunes <= wallMaxText && p.doc.links <= wallMaxLinks
}

// stub reports a page that shows next to nothing and loads next to
// nothing besides: a challenge shell whose only content is the vendor's
// script. An application shell (its own scripts and stylesheets, an
// element tree to fill) is not one.
func (p *page) stub() bool {
	d := p.doc
	return p.little() && p.textRunes < stubMaxText && d.links <= 2 && d.fields == 0 && d.sheets == 0 && d.srcs <= 4 && d.elements <= 40
}

// where is where the needles of place at first occur, searching the place
// on first use; nil for a page that cannot be a wall.
func (p *page) where(at place) map[string]int {
	if !p.searchable {
		return nil
	}
	if p.found[at] == nil {
		t := tables()
		if at == shown {
			p.found[at] = t[at].scan(p.shownText)
		} else {
			p.found[at] = t[at].scanSpans(p.html, p.spans(at))
		}
	}
	return p.found[at]
}

// has returns the first of ns found in its place, as found, or "".
func (p *page) has(ns needles) string {
	f := p.where(ns.at)
	if f == nil {
		return ""
	}
	for _, n := range ns.list {
		if i, ok := f[n]; ok {
			if ns.at == shown {
				return p.shownText[i : i+len(n)]
			}
			return p.html[i : i+len(n)]
		}
	}
	return ""
}

// spans are the parts of the document that make place at (built, script).
func (p *page) spans(at place) []span {
	if at == built {
		return p.doc.built
	}
	return p.doc.script
}

// re returns the first match of r in place at, or "".
func (p *page) re(at place, r *regexp.Regexp) string {
	if m := p.reSub(at, r); m != nil {
		return m[0]
	}
	return ""
}

// reSub returns the first match of r in place at with its groups, or nil.
func (p *page) reSub(at place, r *regexp.Regexp) []string {
	if !p.searchable {
		return nil
	}
	if at == shown {
		return r.FindStringSubmatch(p.shownText)
	}
	for _, s := range p.spans(at) {
		if m := r.FindStringSubmatch(p.html[s.lo:s.hi]); m != nil {
			return m
		}
	}
	return nil
}

func (p *page) header(k string) string { return p.headers[k] }

func (p *page) titleIs(ts ...string) string {
	for _, t := range ts {
		if strings.EqualFold(p.title, t) {
			return "title " + strconv.Quote(p.title)
		}
	}
	return ""
}

func both(a, b string) string {
	if a == "" || b == "" {
		return ""
	}
	return a + " with " + b
}

func either(ms ...string) string {
	for _, m := range ms {
		if m != "" {
			return m
		}
	}
	return ""
}

// The markers the rules look for, by where they must be found.
var (
	// Cloudflare's challenge and error pages: their own ids, classes and
	// form actions (the challenge form posts to a __cf_chl_ token URL).
	cfBuilt = builtMarkup("__cf_chl_captcha_tk__", "__cf_chl_jschl_tk__", "__cf_chl_f_tk=", "__cf_chl_rt_tk=",
		"cf-browser-verification", "cf-im-under-attack", "cf-challenge-running", "cf-please-wait",
		"cf-hcaptcha-container", "cf_captcha_kind", "cf-turnstile-wrapper", "cf-norobot-container",
		"trk_jschal_js", "trk_captcha_js", "cf_chl_prog",
		// the old captcha form's action, and not a longer path that
		// starts the same (a reCAPTCHA v3 endpoint chk_captcha_v3)
		`/cdn-cgi/l/chk_jschl"`, `/cdn-cgi/l/chk_jschl?`, `/cdn-cgi/l/chk_captcha"`, `/cdn-cgi/l/chk_captcha?`, `/cdn-cgi/l/chk_captcha'`)
	cfCaptchaBuilt = builtMarkup("__cf_chl_captcha_tk__", "cf_captcha_kind", "cf-hcaptcha-container", "cf-norobot-container", `/cdn-cgi/l/chk_captcha"`, `/cdn-cgi/l/chk_captcha?`, `/cdn-cgi/l/chk_captcha'`)
	// the old jschl challenge's two hidden inputs, together
	cfJschlVC, cfJschlAnswer = builtMarkup(`name="jschl_vc"`, "jschl_vc"), builtMarkup("jschl_answer")
	// ids a challenge page shares with others: Cloudflare only with
	// Cloudflare around them
	challengeBuilt = builtMarkup(`id="challenge-form"`, `id="challenge-running"`, `id="challenge-stage"`, `id="challenge-spinner"`,
		`id="challenge-error-text"`, `id="challenge-body-text"`, `id="challenge-success-text"`, `id="turnstile-wrapper"`)
	cfScript    = scriptCode("window._cf_chl_opt", "_cf_chl_opt", "__CF$cv$params", "/cdn-cgi/bm/cv/", "/cdn-cgi/challenge-platform/", "challenges.cloudflare.com")
	cfChlScript = scriptCode("window._cf_chl_opt", "_cf_chl_opt", "__CF$cv$params", "/cdn-cgi/bm/cv/")
	// only on a challenge: its options, its frame, its token URLs
	cfChlOpt         = scriptCode("window._cf_chl_opt", "_cf_chl_opt")
	cfChallengeBuilt = builtMarkup("challenges.cloudflare.com", "__cf_chl_", "/cdn-cgi/challenge-platform/h/")
	// where the orchestration path can be, so its regular expressions
	// run only there
	cfOrchestrateAt    = scriptCode("orchestrate/")
	cfOrchestrateBuilt = builtMarkup("orchestrate/")
	cfErrorCode        = builtMarkup(`class="cf-error-code"`)
	cfAround           = builtMarkup("/cdn-cgi/", "challenges.cloudflare.com", "cf-wrapper", "cf-error-details")
	cfNamed            = shownText("Cloudflare")
	cfShown            = shownText("Checking if the site connection is secure", "needs to review the security of your connection before proceeding",
		"Checking your browser before accessing", "Verifying you are human", "Enable JavaScript and cookies to continue", "DDoS protection by Cloudflare")
	cfRayID = shownText("Ray ID")

	// DataDome's captcha or device-check frame (not a preconnect link)
	ddBuilt  = builtMarkup("captcha-delivery.com/captcha", "captcha-delivery.com/interstitial")
	ddScript = scriptCode("geo.captcha-delivery.com", "ct.captcha-delivery.com", "captcha-delivery.com")

	pxAutomation = shownText("denied because we believe you are using automation tools")
	pxCaptcha    = builtMarkup(`id="px-captcha"`, "#px-captcha")
	pxScript     = scriptCode("_pxAppId", "captcha.px-cdn.net", "px-cdn.net", "perimeterx")
	pxShown      = shownText("Access to this page has been denied", "Press & Hold", "Press and hold")
	pxWhy        = builtMarkup("www.perimeterx.com/whywasiblocked", "perimeterx.net/whywasiblocked", "perimeterx.com/whywasiblocked")
	pxCaptchaJS  = scriptCode("captcha.px-cdn.net")

	akamaiPermission = shownText("You don't have permission to access")
	akamaiBuilt      = builtMarkup("sec-if-cpt-container", "/_sec/cp_challenge/")
	akamaiScript     = scriptCode("/_sec/cp_challenge/", "ak-challenge-")

	incapFrame  = builtMarkup("_Incapsula_Resource?CWUDNSAI=")
	incapScript = scriptCode("/_Incapsula_Resource")

	distilBuilt  = builtMarkup("distilCaptchaForm", "distil_r_captcha", "distilIdentificationBlock", "distil_ident", "distil_r_blocked", "cdn.distilnetworks.com/images/anomaly")
	distilScript = scriptCode("distilCallbackGuard", "distil_r_captcha", "dstl-ident", "distil_identify")
	distilShown  = shownText("made us think you were a bot", "you were a bot", "As you were browsing something about your browser")
	// Distil serves three pages under one look: the captcha (its form, a
	// captcha widget, "complete the CAPTCHA"), the identification check
	// (a block and a script that reload the page by themselves) and the
	// block (neither: nothing to pass).
	distilCaptcha   = builtMarkup("distilCaptchaForm", "distil_r_captcha")
	distilCaptchaAt = shownText("completing the CAPTCHA", "complete the CAPTCHA", "solve the CAPTCHA")
	distilIdent     = builtMarkup("distilIdentificationBlock", "distil_ident", "/distil_identify")
	distilIdentJS   = scriptCode("distilCallbackGuard", "dstl-ident", "distil_identify")

	// Radware Bot Manager (formerly ShieldSquare): its captcha page is
	// served from, posts to or loads from the vendor's validation host,
	// and names the vendor; its connector script sits on healthy pages.
	radwareTitle  = []string{"Radware Bot Manager Captcha", "Radware Captcha Page", "ShieldSquare Captcha", "Radware Bot Manager Block", "ShieldSquare Block"}
	radwareBuilt  = builtMarkup("validate.perfdrive.com", "perfdrive.com/captcha", "shieldsquare_captcha", "ShieldSquare_Captcha")
	radwareShown  = shownText("Radware Bot Manager", "ShieldSquare", "request unblock to the website")
	radwareScript = scriptCode("validate.perfdrive.com", "perfdrive.com", "shieldsquare")
	captchaSaid   = shownText("captcha", "confirm you are a human", "confirm that you are human", "ticking the box")

	kasadaScript = scriptCode("/ips.js", "KPSDK.scriptStart", "KPSDK")

	awsScript       = scriptCode("window.gokuProps", "gokuProps", "awsWafCookieDomainList")
	awsCaptchaJS    = scriptCode("captcha.awswaf.com")
	awsBuilt        = builtMarkup(`id="challenge-container"`, `id="captcha-container"`)
	cloudfrontBlock = shownText("Request blocked.")
	cloudfrontGen   = shownText("Generated by cloudfront (CloudFront)")
	// CloudFront's own error page (every variant: "Bad request.", a
	// country block, a method not allowed, a WAF block) under one title
	// and heading, with the CloudFront footer; the origin's failures
	// (502, 504: CloudFront could not reach the site) are not walls.
	cloudfrontError  = shownText("The request could not be satisfied")
	cloudfrontOrigin = shownText("connection with the origin", "connect to the origin", "origin closed the connection", "origin server did not respond")

	sucuriShown = shownText("Access Denied - Sucuri Website Firewall", "Sucuri WebSite Firewall - Access Denied", "cloudproxy@sucuri.net")
	sucuriBuilt = builtMarkup("sucuri_firewall_block.css", "sucuri-firewall-block.css")

	googleShown = shownText("Our systems have detected unusual traffic from your computer network")
	amazonShown = shownText("Sorry, we just need to make sure you're not a robot", "Enter the characters you see below")
	anubisCode  = scriptCode("anubis_challenge", "techaro.lol-anubis", "within.website/x/cmd/anubis")
	anubisShown = shownText("not a bot")

	captchaAsk = shownText("verify you are human", "verify that you are human", "verify you are a human",
		"are you a robot", "not a robot", "prove you are human", "checking your browser",
		"checking if the site connection is secure", "complete the security check")
	captchaWidget       = builtMarkup("g-recaptcha", "h-captcha", "cf-turnstile", "frc-captcha", "hcaptcha.com", "google.com/recaptcha", "arkoselabs.com", "funcaptcha")
	captchaWidgetScript = scriptCode("hcaptcha.com/1/api.js", "recaptcha/api.js", "challenges.cloudflare.com/turnstile", "arkoselabs.com", "funcaptcha")
)

var (
	reCFType        = regexp.MustCompile(`cType:\s*['"]([a-z-]+)['"]`)
	reCFCaptchaPath = regexp.MustCompile(`/cdn-cgi/challenge-platform/\S{0,80}?orchestrate/(?:captcha|managed)/`)
	reCFOrchestrate = regexp.MustCompile(`/cdn-cgi/challenge-platform/\S{0,80}?orchestrate/[a-z]+/v\d`)
	reCFErrorCode   = regexp.MustCompile(`<span class="cf-error-code">(\d{4})</span>`)
	reCFBlockError  = regexp.MustCompile(`Error\s*(?:code\s*)?(100[5-9]|101[0-2]|1015|1020|1025)\b`)
	reAkamaiRef     = regexp.MustCompile(`Reference\s*#\s*18\.[0-9a-f]+\.\d+\.[0-9a-f]+`)
	reIncapIncident = regexp.MustCompile(`Incapsula incident ID:?\s*[0-9-]+`)
)

// cfBlockCodes are Cloudflare 1xxx errors that deny the visitor (as opposed
// to edge errors such as 1016 origin DNS error).
var cfBlockCodes = map[string]bool{"1005": true, "1006": true, "1007": true, "1008": true, "1009": true, "1010": true, "1011": true, "1012": true, "1015": true, "1020": true, "1025": true}

// cfKind tells a Cloudflare challenge page that waits for a person from
// one that passes by itself: the page's cType first (interactive: an
// hCaptcha or Turnstile box to tick; managed and non-interactive pass by
// themselves), else a captcha path or form.
func cfKind(p *page) string {
	if m := p.reSub(script, reCFType); m != nil {
		if m[1] == "interactive" {
			return kindCaptcha
		}
		return kindChallenge
	}
	if p.has(cfCaptchaBuilt) != "" ||
		p.has(cfOrchestrateAt) != "" && p.re(script, reCFCaptchaPath) != "" ||
		p.has(cfOrchestrateBuilt) != "" && p.re(built, reCFCaptchaPath) != "" {
		return kindCaptcha
	}
	return kindChallenge
}

// cfOrchestrate is the path of Cloudflare's challenge orchestration script
// in the page's scripts, or "".
func cfOrchestrate(p *page) string {
	if p.has(cfOrchestrateAt) == "" {
		return "" // the regular expression only where it can match
	}
	return p.re(script, reCFOrchestrate)
}

// awsKind is the action AWS WAF's header names, else what the page loads.
func awsKind(p *page) string {
	switch strings.ToLower(strings.TrimSpace(p.header("x-amzn-waf-action"))) {
	case "captcha":
		return kindCaptcha
	case "block":
		return kindBlock
	case "challenge":
		return kindChallenge
	}
	if p.has(awsCaptchaJS) != "" || strings.Contains(p.has(awsBuilt), "captcha") {
		return kindCaptcha
	}
	return kindChallenge
}

// distilKind tells Distil's three pages apart by what they carry: a
// captcha to solve, an identification check that passes by itself, or
// neither (a block).
func distilKind(p *page) string {
	switch {
	case p.has(distilCaptcha) != "" || p.has(distilCaptchaAt) != "" || p.has(captchaWidget) != "":
		return kindCaptcha
	case p.has(distilIdent) != "" || p.has(distilIdentJS) != "":
		return kindChallenge
	}
	return kindBlock
}

// cloudfrontErrorPage is CloudFront's generated error page: its heading
// with its footer or CloudFront's response headers around it, unless it
// says the origin failed (the site is down, not walled).
func cloudfrontErrorPage(p *page) string {
	e := p.has(cloudfrontError)
	if e == "" || p.has(cloudfrontOrigin) != "" || p.status == 502 || p.status == 504 {
		return ""
	}
	return both(e, either(p.has(cloudfrontGen), cloudfrontHeaders(p)))
}

// cloudfrontHeaders is the CloudFront response header a page came with,
// or "".
func cloudfrontHeaders(p *page) string {
	for _, k := range []string{"x-amz-cf-id", "x-amz-cf-pop"} {
		if p.header(k) != "" {
			return "header " + k
		}
	}
	if v := strings.ToLower(p.header("x-cache")); strings.Contains(v, "cloudfront") {
		return "header x-cache: " + v
	}
	if v := strings.ToLower(p.header("via")); strings.Contains(v, "(cloudfront)") {
		return "header via: " + v
	}
	return ""
}

// radwareWall is Radware Bot Manager's captcha or block page: served from
// the vendor's validation host, titled by the vendor, or naming it with
// its validation host or a captcha in the markup; its connector script
// alone decides only on a stub.
func radwareWall(p *page) string {
	if h := hostOf(p.url); strings.HasSuffix(h, ".perfdrive.com") {
		return "served from " + h
	}
	if t := p.titleIs(radwareTitle...); t != "" {
		return t
	}
	if b := p.has(radwareBuilt); b != "" {
		return both(b, either(p.has(radwareShown), p.has(captchaWidget), p.has(captchaSaid)))
	}
	// Named only in the text: not on a page with fields of its own to
	// fill in (a login form that says the vendor protects it).
	if n := p.has(radwareShown); n != "" && p.doc.links <= 2 && p.doc.fields == 0 {
		return both(n, either(p.has(captchaWidget), p.has(radwareScript)))
	}
	if p.stub() {
		return p.has(radwareScript)
	}
	return ""
}

// radwareKind: a page with a captcha to solve, else a block.
func radwareKind(p *page) string {
	if p.has(captchaWidget) != "" || p.has(captchaWidgetScript) != "" || p.has(captchaSaid) != "" || p.has(radwareBuilt) != "" {
		return kindCaptcha
	}
	return kindBlock
}

// cloudflareAround is evidence that a page comes from Cloudflare: its
// server header, its name on the page, or its paths in the markup.
func cloudflareAround(p *page) string {
	if strings.HasPrefix(strings.ToLower(p.header("server")), "cloudflare") {
		return "server: cloudflare"
	}
	return either(p.has(cfAround), p.has(cfScript), p.has(cfNamed))
}

// sig is one named signature: a vendor, a kind and a test that returns the
// marker it matched. kindOf, when set, reads the kind from the page (one
// vendor page type serves both a challenge and a captcha).
type sig struct {
	vendor, kind string
	match        func(p *page) string
	kindOf       func(p *page) string
}

// headerSignatures decide from a response header that the vendor sends on
// its walls alone, so they apply to a page of any size.
var headerSignatures = []sig{
	// Cloudflare documents cf-mitigated: challenge on every challenge page.
	{"Cloudflare", kindChallenge, func(p *page) string {
		if strings.EqualFold(strings.TrimSpace(p.header("cf-mitigated")), "challenge") {
			return "header cf-mitigated: challenge"
		}
		return ""
	}, cfKind},
	{"AWS WAF", kindChallenge, func(p *page) string {
		if a := strings.ToLower(strings.TrimSpace(p.header("x-amzn-waf-action"))); a == "captcha" || a == "challenge" || a == "block" {
			return "header x-amzn-waf-action: " + a
		}
		return ""
	}, awsKind},
	{"Sucuri", kindBlock, func(p *page) string {
		if v := p.header("x-sucuri-block"); v != "" {
			return "header x-sucuri-block: " + v
		}
		return ""
	}, nil},
}

// signatures, most specific first. Each names the vendor and returns the
// exact marker it matched. Each applies only to a page that holds little
// (page.little), and decides from what it shows (title, visible text) or how it is built (a challenge form, a
// captcha frame, a wall's ids). A marker inside a script only supports:
// it decides alone only on a stub, a page that shows and loads nothing
// else (page.stub).
var signatures = []sig{
	{"Cloudflare", kindCaptcha, func(p *page) string { return p.titleIs("Attention Required! | Cloudflare") }, nil},
	{"Cloudflare", kindChallenge, func(p *page) string {
		// The title alone is a common phrase: it needs Cloudflare around it.
		if t := p.titleIs("Please Wait... | Cloudflare"); t != "" {
			return t
		}
		if t := p.titleIs("Just a moment..."); t != "" {
			if a := cloudflareAround(p); a != "" {
				if a == "server: cloudflare" {
					return t + " from server: cloudflare"
				}
				return t + " with " + a
			}
		}
		return ""
	}, cfKind},
	{"Cloudflare", kindChallenge, func(p *page) string { return p.has(cfBuilt) }, cfKind},
	{"Cloudflare", kindChallenge, func(p *page) string { return both(p.has(cfJschlVC), p.has(cfJschlAnswer)) }, cfKind},
	{"Cloudflare", kindBlock, func(p *page) string {
		// the error page's code span (read from the document: its number
		// is text)
		if p.has(cfErrorCode) != "" {
			if m := reCFErrorCode.FindStringSubmatch(p.html); m != nil && cfBlockCodes[m[1]] {
				return m[0]
			}
		}
		if strings.Contains(p.title, "used Cloudflare to restrict access") {
			return "title " + strconv.Quote(p.title)
		}
		if m := p.re(shown, reCFBlockError); m != "" && p.has(cfNamed) != "" && p.has(cfRayID) != "" {
			return m
		}
		return ""
	}, nil},
	{"Cloudflare", kindChallenge, func(p *page) string {
		// A challenge page's ids or wording, with Cloudflare's challenge
		// itself around them (its options, its frame, its token URLs): not
		// the bot-management or email-protection scripts Cloudflare puts
		// on every page of a site, where a post may quote the wording.
		said := either(p.has(challengeBuilt), p.has(cfShown))
		if said == "" {
			return ""
		}
		return both(said, either(p.has(cfChlOpt), p.has(cfChallengeBuilt), cfOrchestrate(p)))
	}, cfKind},
	{"Cloudflare", kindChallenge, func(p *page) string {
		// A challenge or Bot Fight Mode stub: the challenge script and
		// nothing else. The same script on a page with content is not a wall.
		if !p.stub() {
			return ""
		}
		return either(p.has(cfChlScript), cfOrchestrate(p))
	}, cfKind},

	{"DataDome", kindCaptcha, func(p *page) string {
		// the captcha or device-check frame
		if m := p.has(ddBuilt); m != "" {
			return m
		}
		if p.stub() {
			return p.has(ddScript)
		}
		return ""
	}, nil},
	{"DataDome", kindBlock, func(p *page) string {
		if p.header("x-datadome") != "" && p.stub() && (p.status == 403 || p.status == 405 || p.status == 429) {
			return "header x-datadome on HTTP " + strconv.Itoa(p.status) + " with an empty page"
		}
		return ""
	}, nil},

	{"PerimeterX (HUMAN)", kindCaptcha, func(p *page) string { return p.has(pxAutomation) }, nil},
	{"PerimeterX (HUMAN)", kindCaptcha, func(p *page) string { return p.has(pxWhy) }, nil},
	{"PerimeterX (HUMAN)", kindCaptcha, func(p *page) string {
		c := p.has(pxCaptcha)
		if c == "" {
			return ""
		}
		return both(c, either(p.has(pxShown), p.has(pxScript)))
	}, nil},
	{"PerimeterX (HUMAN)", kindCaptcha, func(p *page) string {
		if p.stub() {
			return p.has(pxCaptchaJS)
		}
		return ""
	}, nil},

	{"Akamai", kindBlock, func(p *page) string {
		// Akamai's edge deny page; the same Reference # on "Invalid URL"
		// (a 400-type edge error, reference #9.x) is not a wall.
		return both(p.re(shown, reAkamaiRef), p.has(akamaiPermission))
	}, nil},
	{"Akamai", kindChallenge, func(p *page) string {
		if m := p.has(akamaiBuilt); m != "" {
			return m
		}
		if p.stub() {
			return p.has(akamaiScript)
		}
		return ""
	}, nil},

	{"Imperva (Incapsula)", kindBlock, func(p *page) string { return p.re(shown, reIncapIncident) }, nil},
	{"Imperva (Incapsula)", kindBlock, func(p *page) string {
		// the block page's frame; its fallback text names the incident
		if m := p.has(incapFrame); m != "" {
			return either(p.re(built, reIncapIncident), m)
		}
		return ""
	}, nil},
	{"Imperva (Incapsula)", kindChallenge, func(p *page) string {
		if p.stub() {
			return p.has(incapScript)
		}
		return ""
	}, nil},

	{"Distil Networks (Imperva)", kindCaptcha, func(p *page) string { return p.has(distilBuilt) }, distilKind},
	{"Imperva (Distil)", kindCaptcha, func(p *page) string {
		t := p.titleIs("Pardon Our Interruption", "Pardon Our Interruption...")
		if t == "" {
			return ""
		}
		return both(t, either(p.has(distilShown), p.has(distilScript)))
	}, distilKind},

	{"Kasada", kindChallenge, func(p *page) string {
		if p.stub() || p.status == 429 {
			return p.has(kasadaScript)
		}
		return ""
	}, nil},

	{"AWS WAF", kindChallenge, func(p *page) string {
		if p.stub() {
			return p.has(awsScript)
		}
		if b := p.has(awsBuilt); b != "" {
			return both(p.has(awsScript), b)
		}
		return ""
	}, awsKind},
	{"AWS WAF (CloudFront)", kindBlock, func(p *page) string { return both(p.has(cloudfrontBlock), p.has(cloudfrontGen)) }, nil},
	{"AWS CloudFront", kindBlock, cloudfrontErrorPage, nil},

	{"Radware Bot Manager (ShieldSquare)", kindCaptcha, radwareWall, radwareKind},

	{"Sucuri", kindBlock, func(p *page) string { return either(p.has(sucuriShown), p.has(sucuriBuilt)) }, nil},

	{"DDoS-Guard", kindChallenge, func(p *page) string {
		if t := p.titleIs("DDoS-Guard", "DDOS-GUARD"); t != "" {
			return t
		}
		if strings.EqualFold(p.header("server"), "ddos-guard") && p.stub() {
			return "server: ddos-guard with an empty page"
		}
		return ""
	}, nil},

	// Captcha interstitials of the big sites.
	{"Google", kindCaptcha, func(p *page) string { return p.has(googleShown) }, nil},
	{"Amazon", kindCaptcha, func(p *page) string {
		return both(p.titleIs("Robot Check", "Amazon.com", "Sorry! Something went wrong!"), p.has(amazonShown))
	}, nil},
	{"Anubis", kindChallenge, func(p *page) string {
		if p.stub() || p.has(anubisShown) != "" {
			return p.has(anubisCode)
		}
		return ""
	}, nil},
	// An unbranded captcha interstitial: a page that asks to prove you are
	// human, carries a captcha widget, and has nothing else to fill in or
	// follow (a login or contact form with a captcha is a page).
	{"captcha interstitial", kindCaptcha, func(p *page) string {
		if p.textRunes > 600 || p.doc.links > 5 || p.doc.fields > 0 {
			return ""
		}
		ask := p.has(captchaAsk)
		if ask == "" {
			return ""
		}
		return both(ask, either(p.has(captchaWidget), p.has(captchaWidgetScript)))
	}, nil},
}

// detect returns the wall a page is, if any.
func detect(p *page) *wall {
	little := p.little()
	sigs := headerSignatures
	if little {
		sigs = append(sigs[:len(sigs):len(sigs)], signatures...)
	}
	for _, s := range sigs {
		if m := s.match(p); m != "" {
			kind := s.kind
			if s.kindOf != nil {
				kind = s.kindOf(p)
			}
			return &wall{Vendor: s.vendor, Kind: kind, Marker: clip(m, 160)}
		}
	}
	// A rate limit that says nothing else. A bare 403 or 503 is not a
	// wall: a site's own error page, or a page served with the wrong
	// status, shows content of its own.
	if p.status == 429 && little && p.textRunes < 200 {
		return &wall{Kind: kindBlock, Marker: "HTTP 429 with no vendor signature"}
	}
	return nil
}

func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
