package main

import (
	"html"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// page is what a detector looks at, prepared once per call.
type page struct {
	status  int
	headers map[string]string // lower-case keys
	title   string
	text    string   // rendered text
	html    string   // start of the document, raw
	decoded string   // html with entities decoded (markers hidden as &#46;...)
	visible string   // text, or when absent a crude extraction from html
	hays    []string // html, decoded (when it differs), text
	markup  []string // html, decoded (when it differs)
	// found holds, per haystack, where each registered needle first
	// occurs (exact, or ignoring ASCII case): one pass per haystack
	// for all needles instead of one strings.Index per needle.
	found, foundFold  []map[string]int
	exactSet, foldSet *needleSet
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

// sig is one named signature: a vendor, a kind and a test that returns the
// marker it matched. kindOf, when set, reads the kind from the page (one
// vendor page type serves both a challenge and a captcha).
type sig struct {
	vendor, kind string
	match        func(p *page) string
	kindOf       func(p *page) string
}

var (
	reCFInteractive = regexp.MustCompile(`cType:\s*['"]interactive['"]`)
	reCFCaptchaPath = regexp.MustCompile(`/cdn-cgi/challenge-platform/\S{0,80}?orchestrate/captcha/`)
)

// cfKind tells a Cloudflare challenge page that waits for a person (cType
// interactive: an hCaptcha or Turnstile box to tick) from one that passes
// by itself (non-interactive, managed, the old jschl).
func cfKind(p *page) string {
	if p.re(reCFInteractive) != "" || p.re(reCFCaptchaPath) != "" {
		return kindCaptcha
	}
	return kindChallenge
}

// awsKind is the action AWS WAF's header names.
func awsKind(p *page) string {
	switch strings.ToLower(strings.TrimSpace(p.header("x-amzn-waf-action"))) {
	case "captcha":
		return kindCaptcha
	case "block":
		return kindBlock
	}
	return kindChallenge
}

func newPage(status int, headers map[string]string, title, text, doc string) *page {
	p := &page{status: status, headers: map[string]string{}, title: strings.TrimSpace(title), text: text, html: doc}
	for k, v := range headers {
		p.headers[strings.ToLower(k)] = v
	}
	if strings.Contains(doc, "&") {
		p.decoded = html.UnescapeString(doc)
	} else {
		p.decoded = doc
	}
	if p.title == "" {
		p.title = htmlTitle(p.decoded)
	}
	p.visible = strings.TrimSpace(text)
	if p.visible == "" {
		p.visible = crudeText(p.decoded, visibleEnough)
	}
	p.markup = []string{doc}
	if p.decoded != doc {
		p.markup = append(p.markup, p.decoded)
	}
	p.hays = append(append([]string{}, p.markup...), text)
	p.exactSet, p.foldSet = exactNeedles.snapshot(), foldNeedles.snapshot()
	for _, h := range p.hays {
		exact, fold := scan(h, p.exactSet, p.foldSet)
		p.found, p.foundFold = append(p.found, exact), append(p.foundFold, fold)
	}
	return p
}

// index finds needle n in haystack k of the page, from the page's scan
// when n was registered before it, else directly (and registers it, so the
// next page finds it in its scan).
func (p *page) index(k int, n string, fold bool) int {
	set, found := p.exactSet, p.found
	if fold {
		set, found = p.foldSet, p.foundFold
	}
	if set.has(n) {
		if i, ok := found[k][n]; ok {
			return i
		}
		return -1
	}
	if fold {
		foldNeedles.add(n)
		return indexFold(p.hays[k], n)
	}
	exactNeedles.add(n)
	return strings.Index(p.hays[k], n)
}

func lowerByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 32
	}
	return c
}

// hasPrefixFold reports whether s starts with lower (lower-case ASCII),
// ignoring ASCII case.
func hasPrefixFold(s, lower string) bool {
	if len(s) < len(lower) {
		return false
	}
	for i := 0; i < len(lower); i++ {
		if lowerByte(s[i]) != lower[i] {
			return false
		}
	}
	return true
}

// indexFold is strings.Index ignoring ASCII case; lower is lower-case.
func indexFold(s, lower string) int {
	for i := 0; i+len(lower) <= len(s); i++ {
		if hasPrefixFold(s[i:], lower) {
			return i
		}
	}
	return -1
}

// asciiLower lower-cases ASCII letters only, so offsets stay valid.
func asciiLower(s string) string {
	i := 0
	for i < len(s) && !(s[i] >= 'A' && s[i] <= 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	b := []byte(s)
	for ; i < len(b); i++ {
		if c := b[i]; c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

// in returns the first of needles found in the document (raw or decoded)
// or the rendered text, as found.
func (p *page) in(needles ...string) string {
	for _, n := range needles {
		for k, hay := range p.hays {
			if i := p.index(k, n, false); i >= 0 {
				return hay[i : i+len(n)]
			}
		}
	}
	return ""
}

// code returns the first of needles found in the document's markup but not
// in its rendered text: a script, id or path marker. A page that merely
// talks about the marker (a blog post on scrapers) shows it as text.
func (p *page) code(needles ...string) string {
	for _, n := range needles {
		if p.index(len(p.hays)-1, n, false) >= 0 {
			continue // in the rendered text
		}
		for k, hay := range p.markup {
			if i := p.index(k, n, false); i >= 0 {
				return hay[i : i+len(n)]
			}
		}
	}
	return ""
}

// inFold is in, ignoring case.
func (p *page) inFold(needles ...string) string {
	for _, n := range needles {
		ln := asciiLower(n)
		for k := range p.hays {
			if i := p.index(k, ln, true); i >= 0 {
				return p.hays[k][i : i+len(n)]
			}
		}
	}
	return ""
}

func (p *page) re(r *regexp.Regexp) string {
	for _, hay := range p.hays {
		if m := r.FindString(hay); m != "" {
			return m
		}
	}
	return ""
}

func (p *page) header(k string) string { return p.headers[k] }

// empty reports a page with next to no visible text: a challenge stub that
// only loads a vendor script.
func (p *page) empty() bool { return utf8.RuneCountInString(p.visible) < 40 }

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

var (
	reCFOrchestrate = regexp.MustCompile(`/cdn-cgi/challenge-platform/\S{0,80}?orchestrate/[a-z]+/v\d`)
	reCFErrorCode   = regexp.MustCompile(`<span class="cf-error-code">(\d{4})</span>`)
	reCFBlockError  = regexp.MustCompile(`Error\s*(?:<[^>]*>\s*)*(100[5-9]|101[0-2]|1015|1020|1025)\b`)
	reAkamaiRef     = regexp.MustCompile(`Reference\s*#\s*18\.[0-9a-f]+\.\d+\.[0-9a-f]+`)
	reIncapIncident = regexp.MustCompile(`Incapsula incident ID:?\s*[0-9-]+`)
)

// cfBlockCodes are Cloudflare 1xxx errors that deny the visitor (as opposed
// to edge errors such as 1016 origin DNS error).
var cfBlockCodes = map[string]bool{"1005": true, "1006": true, "1007": true, "1008": true, "1009": true, "1010": true, "1011": true, "1012": true, "1015": true, "1020": true, "1025": true}

// signatures, most specific first. Each names the vendor and returns the
// exact marker it matched. A vendor's script or header on a healthy page is
// not enough: every signature needs a marker only a wall carries, or a
// vendor marker on a page with no content of its own.
var signatures = []sig{
	// Cloudflare documents cf-mitigated: challenge on every challenge page.
	{"Cloudflare", "challenge", func(p *page) string {
		if strings.EqualFold(strings.TrimSpace(p.header("cf-mitigated")), "challenge") {
			return "header cf-mitigated: challenge"
		}
		return ""
	}, cfKind},
	{"Cloudflare", "challenge", func(p *page) string { return p.code("window._cf_chl_opt", "_cf_chl_opt") }, cfKind},
	{"Cloudflare", "challenge", func(p *page) string { return p.re(reCFOrchestrate) }, cfKind},
	{"Cloudflare", "challenge", func(p *page) string { return both(p.code("jschl_vc"), p.code("jschl_answer")) }, nil},
	{"Cloudflare", "challenge", func(p *page) string {
		return p.code("cf-browser-verification", "__cf_chl_jschl_tk__", "__cf_chl_f_tk=", "__cf_chl_rt_tk=", "cf_chl_prog", "cf-challenge-running", "cf-please-wait")
	}, nil},
	{"Cloudflare", "captcha", func(p *page) string {
		return p.code("cf-hcaptcha-container", "cf_captcha_kind", "__cf_chl_captcha_tk__", "/cdn-cgi/l/chk_captcha", "cf-turnstile-wrapper", "cf-norobot-container")
	}, nil},
	{"Cloudflare", "captcha", func(p *page) string { return p.titleIs("Attention Required! | Cloudflare") }, nil},
	{"Cloudflare", "challenge", func(p *page) string {
		// The title alone is a common word: it needs Cloudflare around it.
		t := p.titleIs("Just a moment...", "Please Wait... | Cloudflare")
		if t == "" {
			return ""
		}
		if strings.HasPrefix(strings.ToLower(p.header("server")), "cloudflare") {
			return t + " from server: cloudflare"
		}
		return both(t, p.in("/cdn-cgi/", "cloudflare", "Cloudflare"))
	}, nil},
	{"Cloudflare", "block", func(p *page) string {
		if m := reCFErrorCode.FindStringSubmatch(p.html); m != nil && cfBlockCodes[m[1]] {
			return m[0]
		}
		if strings.Contains(p.title, "used Cloudflare to restrict access") {
			return "title " + strconv.Quote(p.title)
		}
		if m := p.re(reCFBlockError); m != "" && p.in("Cloudflare", "cloudflare") != "" && p.in("Ray ID") != "" {
			return strings.Join(strings.Fields(stripTags(m)), " ")
		}
		return ""
	}, nil},
	{"Cloudflare", "challenge", func(p *page) string {
		// Bot Fight Mode stub: the bot-management script and nothing else.
		// The same script on a page with content is not a wall.
		if !p.empty() {
			return ""
		}
		return p.code("__CF$cv$params", "/cdn-cgi/bm/cv/")
	}, nil},

	{"DataDome", "captcha", func(p *page) string {
		return p.code("geo.captcha-delivery.com", "ct.captcha-delivery.com", "captcha-delivery.com")
	}, nil},
	{"DataDome", "block", func(p *page) string {
		if p.header("x-datadome") != "" && (p.status == 403 || p.status == 405 || p.status == 429) {
			return "header x-datadome on HTTP " + strconv.Itoa(p.status)
		}
		return ""
	}, nil},

	{"PerimeterX (HUMAN)", "captcha", func(p *page) string {
		return p.inFold("denied because we believe you are using automation tools")
	}, nil},
	{"PerimeterX (HUMAN)", "captcha", func(p *page) string {
		return p.code("captcha.px-cdn.net", "www.perimeterx.com/whywasiblocked", "perimeterx.net/whywasiblocked")
	}, nil},
	{"PerimeterX (HUMAN)", "captcha", func(p *page) string {
		return both(p.code(`id="px-captcha"`, "#px-captcha"), p.code("_pxAppId", "Press & Hold", "Press &amp; Hold"))
	}, nil},

	{"Akamai", "block", func(p *page) string {
		// Akamai's edge deny page; the same Reference # on "Invalid URL"
		// (a 400-type edge error, reference #9.x) is not a wall.
		return both(p.re(reAkamaiRef), p.inFold("You don't have permission to access"))
	}, nil},
	{"Akamai", "challenge", func(p *page) string {
		return p.code("/_sec/cp_challenge/", "sec-if-cpt-container", "ak-challenge-")
	}, nil},

	{"Imperva (Incapsula)", "block", func(p *page) string { return p.re(reIncapIncident) }, nil},
	{"Imperva (Incapsula)", "block", func(p *page) string { return p.code("_Incapsula_Resource?CWUDNSAI=") }, nil},
	{"Imperva (Incapsula)", "challenge", func(p *page) string {
		if !p.empty() {
			return ""
		}
		return p.code("/_Incapsula_Resource")
	}, nil},

	{"Distil Networks (Imperva)", "captcha", func(p *page) string {
		return p.code("distilCaptchaForm", "distilCallbackGuard", "cdn.distilnetworks.com/images/anomaly", "distil_r_captcha")
	}, nil},
	{"Imperva (Distil)", "captcha", func(p *page) string {
		t := p.titleIs("Pardon Our Interruption", "Pardon Our Interruption...")
		if t == "" {
			return ""
		}
		return both(t, p.inFold("made us think you were a bot", "you were a bot", "As you were browsing something about your browser"))
	}, nil},

	{"Kasada", "challenge", func(p *page) string {
		if m := p.code("KPSDK.scriptStart"); m != "" {
			return m
		}
		if p.code("KPSDK") != "" && (p.status == 429 || p.empty()) {
			return p.code("/ips.js", "KPSDK")
		}
		return ""
	}, nil},

	{"AWS WAF", "challenge", func(p *page) string {
		if a := strings.ToLower(strings.TrimSpace(p.header("x-amzn-waf-action"))); a == "captcha" || a == "challenge" || a == "block" {
			return "header x-amzn-waf-action: " + a
		}
		return ""
	}, awsKind},
	{"AWS WAF", "challenge", func(p *page) string {
		if m := p.code("window.gokuProps", "gokuProps", "awsWafCookieDomainList"); m != "" {
			return m
		}
		if p.empty() {
			return p.code("token.awswaf.com", "captcha.awswaf.com")
		}
		return ""
	}, nil},
	{"AWS WAF (CloudFront)", "block", func(p *page) string {
		return both(p.in("Request blocked."), p.in("Generated by cloudfront (CloudFront)"))
	}, nil},

	{"Sucuri", "block", func(p *page) string {
		if v := p.header("x-sucuri-block"); v != "" {
			return "header x-sucuri-block: " + v
		}
		return p.inFold("Access Denied - Sucuri Website Firewall", "Sucuri WebSite Firewall - Access Denied", "cloudproxy@sucuri.net", "sucuri_firewall_block.css", "sucuri-firewall-block.css")
	}, nil},

	{"DDoS-Guard", "challenge", func(p *page) string {
		if t := p.titleIs("DDoS-Guard", "DDOS-GUARD"); t != "" {
			return t
		}
		if strings.EqualFold(p.header("server"), "ddos-guard") && (p.status == 403 || p.empty()) {
			return "server: ddos-guard on HTTP " + strconv.Itoa(p.status)
		}
		return ""
	}, nil},

	// Captcha interstitials of the big sites.
	{"Google", "captcha", func(p *page) string {
		return p.inFold("Our systems have detected unusual traffic from your computer network")
	}, nil},
	{"Amazon", "captcha", func(p *page) string {
		return both(p.titleIs("Robot Check", "Amazon.com", "Sorry! Something went wrong!"), p.inFold("Sorry, we just need to make sure you're not a robot", "Enter the characters you see below"))
	}, nil},
	{"Anubis", "challenge", func(p *page) string {
		return p.code("techaro.lol-anubis", "anubis_challenge", "within.website/x/cmd/anubis")
	}, nil},
	// An unbranded captcha interstitial: a page that asks to prove you are
	// human, carries a captcha widget and little else.
	{"captcha interstitial", "captcha", func(p *page) string {
		if utf8.RuneCountInString(p.visible) > 1500 {
			return ""
		}
		ask := p.inFold("verify you are human", "verify that you are human", "verify you are a human",
			"are you a robot", "not a robot", "prove you are human", "checking your browser",
			"checking if the site connection is secure", "complete the security check")
		widget := p.in("g-recaptcha", "h-captcha", "hcaptcha.com/1/api.js", "cf-turnstile", "recaptcha/api.js", "funcaptcha", "arkoselabs.com")
		return both(ask, widget)
	}, nil},
}

// detect returns the wall a page is, if any.
func detect(p *page) *wall {
	for _, s := range signatures {
		if m := s.match(p); m != "" {
			kind := s.kind
			if s.kindOf != nil {
				kind = s.kindOf(p)
			}
			return &wall{Vendor: s.vendor, Kind: kind, Marker: clip(m, 160)}
		}
	}
	switch p.status {
	case 403, 429, 503:
		return &wall{Kind: "block", Marker: "HTTP " + strconv.Itoa(p.status) + " with no vendor signature"}
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

var reTitle = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)

func htmlTitle(doc string) string {
	if m := reTitle.FindStringSubmatch(doc); m != nil {
		return strings.Join(strings.Fields(m[1]), " ")
	}
	return ""
}

var reTag = regexp.MustCompile(`(?s)<[^>]*>`)

// visibleEnough is as much crude text as any signature needs to judge a
// page's size (empty below 40 runes, too long for an interstitial above
// 1500).
const visibleEnough = 2000

// hiddenElems hold no visible text: their content is skipped whole.
var hiddenElems = []string{"script", "style", "noscript", "template", "head"}

// crudeText is the text of an HTML document without scripts, styles or the
// head, whitespace collapsed, up to about max runes: enough to tell a stub
// from a page. One pass, however long the document.
func crudeText(doc string, max int) string {
	var b strings.Builder
	n, space := 0, false
	for i := 0; i < len(doc) && n < max; {
		c := doc[i]
		if c != '<' {
			if c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f' {
				space = b.Len() > 0
			} else {
				if space {
					b.WriteByte(' ')
					space = false
				}
				b.WriteByte(c)
				if c < 0x80 || c >= 0xC0 {
					n++
				}
			}
			i++
			continue
		}
		space = b.Len() > 0
		end := strings.IndexByte(doc[i:], '>')
		if end < 0 {
			break
		}
		name := tagName(doc[i+1 : i+end])
		i += end + 1
		for _, h := range hiddenElems {
			if name == h {
				i = skipTo(doc, i, "</"+h)
				break
			}
		}
	}
	return b.String()
}

// tagName is the lower-cased name of an opening tag ("" for closing tags,
// comments and the rest).
func tagName(t string) string {
	j := 0
	for j < len(t) && (t[j] >= 'a' && t[j] <= 'z' || t[j] >= 'A' && t[j] <= 'Z') {
		j++
	}
	if j < len(t) && t[j] != ' ' && t[j] != '\t' && t[j] != '\n' && t[j] != '\r' && t[j] != '/' {
		return ""
	}
	return asciiLower(t[:j])
}

// skipTo returns the index just past the tag that starts with closing
// (case-insensitive) at or after i, or len(doc).
func skipTo(doc string, i int, closing string) int {
	for i < len(doc) {
		k := strings.Index(doc[i:], "</")
		if k < 0 {
			return len(doc)
		}
		i += k
		if len(doc)-i >= len(closing) && strings.EqualFold(doc[i:i+len(closing)], closing) {
			if e := strings.IndexByte(doc[i:], '>'); e >= 0 {
				return i + e + 1
			}
			return len(doc)
		}
		i += 2
	}
	return len(doc)
}

func stripTags(s string) string { return reTag.ReplaceAllString(s, " ") }

// needleSet is a growing set of needles found in one pass over a text: a
// bitset of their first two bytes, then the needles by those bytes.
type needleSet struct {
	mu   sync.Mutex
	list []string
	idx  []uint16   // by first two bytes: 0, or 1 + the group in groups
	grp  [][]string // needles sharing their first two bytes
	set  map[string]bool
	snap *needleSet
}

var exactNeedles, foldNeedles = &needleSet{}, &needleSet{}

func (s *needleSet) add(n string) {
	if len(n) < 2 {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.set[n] {
		return
	}
	s.list = append(s.list, n)
	s.snap = nil
	if s.set == nil {
		s.set = map[string]bool{}
	}
	s.set[n] = true
}

// snapshot is an immutable copy to scan with.
func (s *needleSet) snapshot() *needleSet {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.snap != nil {
		return s.snap
	}
	c := &needleSet{idx: make([]uint16, 1<<16), set: map[string]bool{}}
	for _, n := range s.list {
		k := uint16(n[0])<<8 | uint16(n[1])
		if c.idx[k] == 0 {
			c.grp = append(c.grp, nil)
			c.idx[k] = uint16(len(c.grp))
		}
		g := c.idx[k] - 1
		c.grp[g] = append(c.grp[g], n)
		c.set[n] = true
	}
	s.snap = c
	return c
}

func (s *needleSet) has(n string) bool { return s.set[n] }

// scan returns where each needle of exact first occurs in h, and each of
// fold (lower-case needles) ignoring ASCII case: one pass for both sets,
// with no lower-cased copy of h.
func scan(h string, exact, fold *needleSet) (map[string]int, map[string]int) {
	foundExact, foundFold := map[string]int{}, map[string]int{}
	if len(exact.grp) == 0 && len(fold.grp) == 0 {
		return foundExact, foundFold
	}
	ei, fi := exact.idx, fold.idx
	for i := 0; i+1 < len(h); i++ {
		a, b := h[i], h[i+1]
		if g := ei[uint16(a)<<8|uint16(b)]; g != 0 {
			for _, n := range exact.grp[g-1] {
				if _, seen := foundExact[n]; !seen && strings.HasPrefix(h[i:], n) {
					foundExact[n] = i
				}
			}
		}
		if g := fi[uint16(lowerByte(a))<<8|uint16(lowerByte(b))]; g != 0 {
			for _, n := range fold.grp[g-1] {
				if _, seen := foundFold[n]; !seen && hasPrefixFold(h[i:], n) {
					foundFold[n] = i
				}
			}
		}
	}
	return foundExact, foundFold
}
