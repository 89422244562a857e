package blockdetect_test

import (
	"fmt"
	"html"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/wasmwright/wasmwright/abi"
)

// TestParitySweep is the parity harness's wide pass (parity mode only: it
// compares with the Go detector, see the package comment): every page and
// wall of the shared corpus, raw and as a browser would render it (title
// and text given), at several statuses, under each vendor header a rule
// reads, with and without takeover; and edge cases built to sit on the
// rules' thresholds (text and link counts, stub size, entities, invalid
// UTF-8, Unicode case folding, the orchestration path's 80-rune gap).
func TestParitySweep(t *testing.T) {
	if os.Getenv("BLOCKDETECT_PARITY_GO") == "" {
		t.Skip("the parity harness: set BLOCKDETECT_PARITY_GO to a Go-built blockdetect.wasm")
	}
	plugin(t)
	var files []string
	for _, sub := range []string{"pages", "walls"} {
		files = append(files, corpusFiles(t, sub)...)
	}
	headerSets := []map[string]string{
		nil,
		{"server": "cloudflare", "cf-ray": "8a1b2c3d4e5f-AMS"},
		{"cf-mitigated": "challenge"},
		{"x-amzn-waf-action": "captcha"},
		{"X-Amzn-Waf-Action": " Block "},
		{"x-datadome": "protected"},
		{"x-amz-cf-id": "q3Zp0bV2m8Lr1XyT=="},
		{"via": "1.1 0a1b2c.cloudfront.net (CloudFront)", "x-cache": "Error from CloudFront"},
		{"x-sucuri-block": "1"},
		{"server": "DDoS-Guard"},
	}
	before := compared.Load()
	for i, f := range files {
		p, _ := corpusPage(t, f)
		metaHeaders := p.Headers
		sets := headerSets
		if len(p.HTML) > 256<<10 {
			sets = headerSets[:2] // the largest pages: fewer variants, each a few MB
		}
		for _, form := range renderings(p) {
			for _, status := range []int{p.Status, 403, 429, 503} {
				for k, h := range append([]map[string]string{metaHeaders}, sets...) {
					q := form
					q.Status, q.Headers = status, h
					hookVia(t, nav(q, (i+k)%2 == 0))
				}
			}
		}
	}
	for _, c := range edgeCases() {
		for _, status := range []int{200, 429, 502} {
			c.Status = status
			hookVia(t, nav(c, status == 429))
		}
	}
	t.Logf("%d answers compared in the sweep", compared.Load()-before)
}

var (
	reDropped = regexp.MustCompile(`(?is)<(script|style|noscript|template)\b.*?</(script|style|noscript|template)\s*>|<!--.*?-->`)
	reTag     = regexp.MustCompile(`(?s)<[^>]*>`)
	reTitle   = regexp.MustCompile(`(?is)<title[^>]*>(.*?)</title>`)
)

// renderings are the forms a host sends a page in: the document alone,
// and the document with the title and text a browser renders (read here
// crudely: tags dropped, entities decoded).
func renderings(p abi.Page) []abi.Page {
	r := p
	if m := reTitle.FindStringSubmatch(p.HTML); m != nil {
		r.Title = strings.TrimSpace(html.UnescapeString(m[1]))
	}
	r.Text = html.UnescapeString(reTag.ReplaceAllString(reDropped.ReplaceAllString(p.HTML, " "), " "))
	return []abi.Page{p, r}
}

// edgeCases are pages on the rules' edges.
func edgeCases() []abi.Page {
	words := func(n int) string { return strings.Repeat("x", n) }
	links := func(n int) string { return strings.Repeat(`<a href="/x">l</a>`, n) }
	cf := `<script>window._cf_chl_opt={cType: 'managed'}</script>`
	var out []abi.Page
	add := func(title, text, doc string) {
		out = append(out, abi.Page{URL: "https://edge.test/p?q=1", Title: title, Text: text, HTML: doc})
	}
	for _, n := range []int{79, 80, 81, 2999, 3000, 3001} {
		add("", "", "<p>"+words(n)+"</p>"+cf)
		add("", words(n), cf)
		add("", "", "<p>"+strings.Repeat("é ", n/2)+"</p>"+cf)
	}
	for _, n := range []int{2, 3, 5, 6, 20, 21} {
		add("", "", links(n)+cf+`<div class="g-recaptcha"></div><p>verify you are human</p>`)
	}
	for _, gap := range []int{0, 79, 80, 81} {
		p := "/cdn-cgi/challenge-platform/" + strings.Repeat("é", gap)
		add("", "", `<script>a="`+p+`orchestrate/managed/v1"</script>`)
		add("", "", `<script>a="`+p+`orchestrate/jsch/v1"</script><p>Verifying you are human</p>`)
	}
	for _, title := range []string{"Just a moment...", "JUST A MOMENT...", "Ju\u017ft a moment...", "Robot Chec\u212a", "Attention Required! | Cloudflare", "x used Cloudflare to restrict access \u200b\x01\"q\"", "DDoS-Guard", "Pardon Our Interruption"} {
		add(title, "", "<p>Cloudflare Ray ID: 1</p>"+`<script src="/ips.js"></script>`)
		add("", "", "<title>"+html.EscapeString(title)+"</title><p>you were a bot Sorry, we just need to make sure you're not a robot</p>")
	}
	for _, doc := range []string{
		"<title>\xff\xfe Access</title><p>Error code \xe2\x82 1020 Cloudflare Ray ID \xc3</p>",
		"<p>Reference&#32;&#35;18&#46;ee82d717&#46;1613032738&#46;58852a4 You don't have permission to access</p>",
		"<p>&ampfoo; &#x80; &#0; &#xFFFFFFFFF; &NotEqualTilde; &#5a &#55a Incapsula incident ID 12-34</p>",
		"<iframe src=\"/_Incapsula_Resource?CWUDNSAI=1\">Incapsula incident ID:\t99-1</iframe>",
		"<div hidden>" + words(4000) + "</div>" + cf,
		"<p style=\"DISPLAY : NONE\">" + words(4000) + "</p><form id=\"challenge-form\"></form><p>Cloudflare</p>",
		"<p>The request could not be satisfied. Request blocked. Generated by cloudfront (CloudFront)</p>",
		"<p>The request could not be satisfied. Could not connect to the origin.</p>",
		"<span class=\"cf-error-code\">1016</span><span class=\"cf-error-code\">1020</span>",
		"<p>Access Denied - Sucuri Website Firewall</p><p>" + fmt.Sprint(strings.Repeat("\u00a0", 10)) + "</p>",
		"<div id=\"px-captcha\"></div><p>Press &amp; Hold</p>",
		"<script>KPSDK.scriptStart=1</script>",
		"<script>window.gokuProps={}</script><div id=\"captcha-container\"></div>",
		"<script src=\"https://validate.perfdrive.com/x.js\"></script>",
		"<p>ShieldSquare request unblock to the website</p><div class=\"h-captcha\"></div>",
		"<script>anubis_challenge</script><p>Making sure you're not a bot</p>",
	} {
		add("", "", doc)
	}
	out = append(out, abi.Page{URL: "https://validate.perfdrive.com/captcha?x=1", HTML: "<p>Solve it</p>"})
	out = append(out, abi.Page{URL: "", HTML: "<p>Too many</p>"})
	return out
}
