package hostfuncs

import (
	"html"
	"mime"
	"regexp"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
)

// judgedMaxBytes is how much of a fetched page a detector reads.
const judgedMaxBytes = 1 << 20

var (
	scriptOrStyle = regexp.MustCompile(`(?is)<(script|style|noscript|template)\b.*?</(script|style|noscript|template)\s*>`)
	anyTag        = regexp.MustCompile(`(?s)<[^>]*>`)
	titleTag      = regexp.MustCompile(`(?is)<title\b[^>]*>(.*?)</title\s*>`)
	spaces        = regexp.MustCompile(`\s+`)
)

// HTMLPage is the facts a detector judges of a page fetched outside the
// browser (ww_network_fetch, a source fetch): its URL, status, headers
// (names in lower case), title, text and the start of its HTML; nil when
// the answer is not HTML (JSON, text, images: not what a wall is served
// as; no Content-Type counts as HTML).
func HTMLPage(url string, status int, headers map[string]string, body []byte) *abi.Page {
	ct := ""
	for k, v := range headers {
		if strings.EqualFold(k, "Content-Type") {
			ct = v
		}
	}
	mt, _, _ := mime.ParseMediaType(ct)
	if ct != "" && mt != "text/html" && mt != "application/xhtml+xml" {
		return nil
	}
	if len(body) > judgedMaxBytes {
		body = body[:judgedMaxBytes]
	}
	src := string(body)
	pg := &abi.Page{URL: url, Status: status, HTML: src, Headers: map[string]string{}}
	for k, v := range headers {
		pg.Headers[strings.ToLower(k)] = v
	}
	if m := titleTag.FindStringSubmatch(src); m != nil {
		pg.Title = strings.TrimSpace(html.UnescapeString(spaces.ReplaceAllString(m[1], " ")))
	}
	text := scriptOrStyle.ReplaceAllString(src, " ")
	text = anyTag.ReplaceAllString(text, " ")
	pg.Text = strings.TrimSpace(spaces.ReplaceAllString(html.UnescapeString(text), " "))
	return pg
}
