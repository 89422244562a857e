package network

import (
	"context"
	"html"
	"mime"
	"regexp"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
)

// A fetched page is a document too: every HTML answer ww_network_fetch
// gives a plugin is judged by the personality's detector chain first, as
// the browser's gate judges every document (hostfuncs/browser/gate.go), so
// a wall the browser would withhold is not read by fetching its URL
// instead (web_fetch, or any plugin with the network grant).

// JudgeFunc is the kernel's verdict on a document's facts: the failure it
// is withheld with, nil when it passes (browser.Options.Judge's shape).
type JudgeFunc func(ctx context.Context, personality, session string, pg *abi.Page, unread error) (*abi.Error, []string)

// SetJudge sets the kernel's judge of fetched pages (nil: none).
func (s *Service) SetJudge(j JudgeFunc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.judge = j
}

func (s *Service) judgeFn() JudgeFunc {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.judge
}

// judgedMaxBytes is how much of a page the detector reads.
const judgedMaxBytes = 1 << 20

var (
	scriptOrStyle = regexp.MustCompile(`(?is)<(script|style|noscript|template)\b.*?</(script|style|noscript|template)\s*>`)
	anyTag        = regexp.MustCompile(`(?s)<[^>]*>`)
	titleTag      = regexp.MustCompile(`(?is)<title\b[^>]*>(.*?)</title\s*>`)
	spaces        = regexp.MustCompile(`\s+`)
)

// fetchedPage is the facts of a fetched HTML page, nil for anything else
// (JSON, text, images: not a page a wall is served as).
func fetchedPage(out *abi.NetworkFetchResponse) *abi.Page {
	ct := ""
	for k, v := range out.Headers {
		if strings.EqualFold(k, "Content-Type") {
			ct = v
		}
	}
	mt, _, _ := mime.ParseMediaType(ct)
	if ct != "" && mt != "text/html" && mt != "application/xhtml+xml" {
		return nil
	}
	body := out.Body
	if len(body) > judgedMaxBytes {
		body = body[:judgedMaxBytes]
	}
	src := string(body)
	pg := &abi.Page{URL: out.URL, Status: out.Status, HTML: src, Headers: map[string]string{}}
	for k, v := range out.Headers {
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

// judgeFetched withholds a fetched page its personality's detectors flag.
func (s *Service) judgeFetched(ctx context.Context, personality, session string, out *abi.NetworkFetchResponse) error {
	j := s.judgeFn()
	if j == nil || out.Status == 0 {
		return nil
	}
	pg := fetchedPage(out)
	if pg == nil {
		return nil
	}
	verdict, _ := j(ctx, personality, session, pg, nil)
	if verdict == nil {
		return nil
	}
	return verdict
}
