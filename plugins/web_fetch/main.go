// Command web_fetch is the web_fetch tool: the readable text of a page,
// fetched by the host under the personality's network policy (no browser:
// no scripts run). Headings, paragraphs, list items and links are kept as
// text; scripts, styles, navigation, headers and footers are dropped.
//
// Build: GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o web_fetch.wasm .
package main

import (
	"encoding/json"
	"fmt"
	"mime"
	"strings"
	"unicode/utf8"

	"github.com/wasmwright/wasmwright/abi"
	sdk "github.com/wasmwright/wasmwright/plugin-sdk"
)

// Args are the tool's input.
type Args struct {
	URL      string `json:"url" desc:"the http or https URL to fetch"`
	MaxChars int    `json:"max_chars,omitempty" desc:"at most this many characters of text (default 20000, at most 100000)" min:"1"`
}

// Out is the structured part of the result.
type Out struct {
	URL       string `json:"url"`
	Status    int    `json:"status"`
	Title     string `json:"title,omitempty"`
	Truncated bool   `json:"truncated,omitempty"`
}

const (
	defaultChars = 20000
	maxChars     = 100000
	fetchBytes   = 4 << 20
)

func init() {
	sdk.Plugin("web_fetch", "1.0.0", "Fetches a web page without a browser and returns its readable text.")
	sdk.Needs("network")
	sdk.Tool("web_fetch", "Fetch a URL (http or https) without a browser and return the page's readable text: title, headings, paragraphs, list items and links as text. Scripts do not run. Private and local addresses are refused by the network policy.", run, sdk.ReadOnly(), sdk.Risk(abi.RiskNavigate)) // it loads a URL the agent names, like browser_navigate
}

func run(c *sdk.Call, in Args) (*abi.Result, error) {
	u := strings.TrimSpace(in.URL)
	if u == "" {
		return nil, abi.Errorf(abi.CodeInputInvalid, "url is empty: pass the page's URL in \"url\"")
	}
	limit := in.MaxChars
	if limit <= 0 {
		limit = defaultChars
	}
	if limit > maxChars {
		limit = maxChars
	}
	resp, err := sdk.Fetch(abi.NetworkFetchRequest{URL: u, Headers: map[string]string{"Accept": "text/html,text/plain;q=0.9,*/*;q=0.5"}, MaxBytes: fetchBytes})
	if err != nil {
		return nil, err
	}
	ct := resp.Headers["Content-Type"]
	mt, params, _ := mime.ParseMediaType(ct)
	var title, text string
	switch {
	case mt == "" || mt == "text/html" || mt == "application/xhtml+xml":
		title, text = Readable(string(resp.Body), resp.URL)
	case strings.HasPrefix(mt, "text/") || mt == "application/json" || strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml") || mt == "application/xml":
		text = string(resp.Body)
	default:
		return nil, abi.Errorf(abi.CodeInputInvalid, "%s is %s, not a text page: web_fetch reads HTML and text only", resp.URL, mt)
	}
	_ = params
	text = strings.ToValidUTF8(text, "\uFFFD")
	out := Out{URL: resp.URL, Status: resp.Status, Title: title, Truncated: resp.Truncated}
	if utf8.RuneCountInString(text) > limit {
		r := []rune(text)
		text, out.Truncated = string(r[:limit]), true
	}
	var b strings.Builder
	if title != "" {
		fmt.Fprintf(&b, "Title: %s\n", title)
	}
	fmt.Fprintf(&b, "URL: %s\n", resp.URL)
	if resp.Status >= 400 {
		fmt.Fprintf(&b, "Status: %d (the server answered with an error page)\n", resp.Status)
	}
	b.WriteString("\n")
	b.WriteString(text)
	if out.Truncated {
		fmt.Fprintf(&b, "\n\n[truncated: the page is longer than %d characters or %d bytes]", limit, fetchBytes)
	}
	data, _ := json.Marshal(out)
	return &abi.Result{Text: b.String(), Data: data, Risk: "untrusted web content", External: true, Source: resp.URL}, nil
}

func main() {}
