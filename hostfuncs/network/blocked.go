package network

import (
	"fmt"
	"net"
	"net/url"
	"slices"
	"strings"
)

// What the proxy refused or failed to reach, per session: kept for the
// next result (TakeBlocked) and for the browser's own errors
// (EgressFailure).

func (s *Service) record(k sessKey, b *Blocked) {
	s.refused.Add(1)
	line := b.Error()
	s.log.Info("request blocked", "personality", k.personality, "session", k.session, "url", b.URL, "reason", b.Reason)
	if on := s.opts.OnBlocked; on != nil {
		on(k.personality, k.session, b.Reason)
	}
	s.inSession(k, func() {
		bl := s.blocked[k]
		if bl == nil {
			bl = &blockedList{}
			s.blocked[k] = bl
		}
		// The same request refused twice (a retried favicon) counts once; past
		// maxSeen distinct lines every refusal counts.
		if slices.Contains(bl.lines, line) {
			return
		}
		if len(bl.lines) < maxSeen {
			bl.lines = append(bl.lines, line)
		}
		bl.group(b)
		if len(bl.groups) > s.opts.MaxBlocked {
			bl.dropped += bl.groups[0].n
			bl.groups = bl.groups[1:]
		}
	})
}

// group counts b under its origin and reason.
func (bl *blockedList) group(b *Blocked) {
	origin, path := b.URL, ""
	if u, err := url.Parse(b.URL); err == nil && u.Host != "" {
		origin = u.Scheme + "://" + u.Host
		path = capURL(strings.TrimPrefix(b.URL, origin), 40)
		if path == "" {
			path = "/"
		}
	}
	for i := range bl.groups {
		if g := &bl.groups[i]; g.origin == origin && g.reason == b.Reason {
			g.n++
			if len(g.paths) < groupPaths {
				g.paths = append(g.paths, path)
			}
			return
		}
	}
	bl.groups = append(bl.groups, blockedGroup{origin: origin, reason: b.Reason, first: b.URL, paths: []string{path}, n: 1})
}

// summary says the refusals as an agent reads them, a line per origin and
// reason: one URL as it was (its query cut past 100 bytes), or how many
// went to the origin and the paths of the first three (queries cut past
// 40 bytes). A page full of trackers blocked by the policy is a few short
// lines, not one per request (an article's ran to 1.3 KB).
func (bl *blockedList) summary() []string {
	out := make([]string, 0, len(bl.groups)+1)
	if bl.dropped > 0 {
		out = append(out, fmt.Sprintf("blocked requests: %d earlier ones not listed", bl.dropped))
	}
	for _, g := range bl.groups {
		if g.n == 1 {
			out = append(out, "blocked request: "+capURL(g.first, 100)+" ("+g.reason+")")
		} else {
			line := fmt.Sprintf("blocked requests: %d to %s (%s): %s", g.n, g.origin, g.reason, strings.Join(g.paths, ", "))
			if more := g.n - len(g.paths); more > 0 {
				line += fmt.Sprintf(" and %d more", more)
			}
			out = append(out, line)
		}
	}
	return out
}

// capURL cuts u's query and fragment when u is longer than n bytes.
func capURL(u string, n int) string {
	if len(u) <= n {
		return u
	}
	if i := strings.IndexAny(u, "?#"); i >= 0 {
		u = u[:i] + "?..."
	}
	return u
}

type egressFailure struct {
	refused bool
	reason  string
}

// maxFailures bounds the hosts a session's failures are kept for.
const maxFailures = 64

// failed keeps why a session's request to rawURL failed.
func (s *Service) failed(k sessKey, rawURL string, refused bool, reason string) {
	hp := failureKey(rawURL)
	if hp == "" {
		return
	}
	s.inSession(k, func() {
		m := s.failures[k]
		if m == nil || len(m) >= maxFailures {
			m = map[string]egressFailure{}
			s.failures[k] = m
		}
		m[hp] = egressFailure{refused, reason}
	})
}

// inSession runs f under s's lock when k is an open session's: what a
// request of no session, or of a session closed meanwhile, met is kept
// nowhere.
func (s *Service) inSession(k sessKey, f func()) {
	if k == (sessKey{}) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sessions[k] != nil {
		f()
	}
}

// failureKey is rawURL's host:port, the port explicit.
func failureKey(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil || u.Hostname() == "" {
		return ""
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443", "ws": "80", "wss": "443"}[strings.ToLower(u.Scheme)]
	}
	return strings.ToLower(net.JoinHostPort(u.Hostname(), port))
}

// EgressFailure says why the session's proxy failed a request to rawURL's
// host and port during the current call, if it did: refused under the
// policy, or unreachable (the name does not resolve, nothing answers).
// The browser asks when a page it was told to open did not load.
func (s *Service) EgressFailure(personality, session, rawURL string) (refused bool, reason string, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	f, ok := s.failures[sessKey{personality, session}][failureKey(rawURL)]
	return f.refused, f.reason, ok
}

// BeginCall starts a call of the session: refusals and failures its pages
// met since the last call ended (a favicon, a script still running) are
// dropped, so a result reports only what happened during its own call.
// They were logged when they happened.
func (s *Service) BeginCall(personality, session string) {
	k := sessKey{personality, session}
	s.mu.Lock()
	delete(s.blocked, k)
	delete(s.failures, k)
	s.mu.Unlock()
}

// TakeBlocked returns, once, the requests refused for a session's pages
// since the last call: the host appends them to the session's next result.
func (s *Service) TakeBlocked(personality, session string) []string {
	k := sessKey{personality, session}
	s.mu.Lock()
	defer s.mu.Unlock()
	bl := s.blocked[k]
	if bl == nil {
		return nil
	}
	delete(s.blocked, k)
	return bl.summary()
}
