// Package visiontest is a vision model for tests: a real HTTP server on
// loopback speaking the OpenAI-compatible chat-completions API, whose
// answers each test scripts, recording every request it receives.
package visiontest

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"
)

// Server is the scripted model. Its API base URL is URL + "/v1".
type Server struct {
	*httptest.Server
	mu      sync.Mutex
	bodies  [][]byte
	headers []http.Header
	status  int
	content string
	raw     string
	hold    chan struct{}
}

// New starts a server answering content "" with HTTP 200; it stops when
// the test ends.
func New(t testing.TB) *Server {
	m := &Server{status: http.StatusOK}
	m.Server = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(func() {
		m.mu.Lock()
		if m.hold != nil {
			close(m.hold)
			m.hold = nil
		}
		m.mu.Unlock()
		m.Close()
	})
	return m
}

func (m *Server) serve(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	m.mu.Lock()
	m.bodies, m.headers = append(m.bodies, b), append(m.headers, r.Header.Clone())
	status, content, raw, hold := m.status, m.content, m.raw, m.hold
	m.mu.Unlock()
	if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
		http.NotFound(w, r)
		return
	}
	if hold != nil {
		select {
		case <-hold:
		case <-r.Context().Done():
			return
		}
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	if raw != "" {
		io.WriteString(w, raw)
		return
	}
	json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": content}}}})
}

// Endpoint is the [vision] endpoint to configure.
func (m *Server) Endpoint() string { return m.URL + "/v1" }

// HostPort is the server's host:port, for allowed_hosts.
func (m *Server) HostPort() string { return strings.TrimPrefix(m.URL, "http://") }

// Answer sets the assistant message content of the next answers.
func (m *Server) Answer(content string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.content, m.raw, m.status = content, "", http.StatusOK
}

// Reply sets the HTTP status and the whole response body of the next
// answers.
func (m *Server) Reply(status int, body string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.status, m.raw = status, body
}

// Hold makes the next answers wait until the request is abandoned (or the
// test ends).
func (m *Server) Hold() {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.hold == nil {
		m.hold = make(chan struct{})
	}
}

// Requests returns the bodies received so far.
func (m *Server) Requests() [][]byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([][]byte(nil), m.bodies...)
}

// Header returns the headers of request i.
func (m *Server) Header(i int) http.Header {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.headers[i]
}

var dataURL = regexp.MustCompile(`(data:[a-z/]+;)base64,([A-Za-z0-9+/=]*)`)

// Redact returns body byte for byte, but with the base64 data of every
// data: URL replaced by its sha256 and length: the request as a golden
// file can hold it.
func Redact(body []byte) []byte {
	return dataURL.ReplaceAllFunc(body, func(m []byte) []byte {
		sub := dataURL.FindSubmatch(m)
		raw, _ := base64.StdEncoding.DecodeString(string(sub[2]))
		sum := sha256.Sum256(raw)
		return fmt.Appendf(nil, "%ssha256=%s;bytes=%d", sub[1], hex.EncodeToString(sum[:]), len(raw))
	})
}

// Image returns the image data of the first data: URL in body, decoded.
func Image(body []byte) []byte {
	sub := dataURL.FindSubmatch(body)
	if sub == nil {
		return nil
	}
	raw, _ := base64.StdEncoding.DecodeString(string(sub[2]))
	return raw
}
