package network

import (
	"context"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
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

// judgeFetched withholds a fetched page its personality's detectors flag.
func (s *Service) judgeFetched(ctx context.Context, personality, session string, out *abi.NetworkFetchResponse) error {
	j := s.judgeFn()
	if j == nil || out.Status == 0 {
		return nil
	}
	pg := hostfuncs.HTMLPage(out.URL, out.Status, out.Headers, out.Body)
	if pg == nil {
		return nil
	}
	verdict, _ := j(ctx, personality, session, pg, nil)
	if verdict == nil {
		return nil
	}
	return verdict
}
