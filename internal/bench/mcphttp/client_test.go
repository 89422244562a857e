package mcphttp

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// server answers initialize with a session id and JSON, and tools/call
// over SSE: a notification first, then the answer. It checks the bearer
// token and, after initialize, the session id on every request.
func server(t *testing.T) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer tok" {
			http.Error(w, "no token", http.StatusUnauthorized)
			return
		}
		if r.Method == http.MethodDelete {
			if r.Header.Get("Mcp-Session-Id") != "s1" {
				http.Error(w, "unknown session", http.StatusNotFound)
			}
			return
		}
		var msg struct {
			ID     *int64          `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &msg)
		if msg.Method != "initialize" && r.Header.Get("Mcp-Session-Id") != "s1" {
			http.Error(w, "missing session id", http.StatusBadRequest)
			return
		}
		switch {
		case msg.ID == nil:
			w.WriteHeader(http.StatusAccepted)
		case msg.Method == "initialize":
			w.Header().Set("Mcp-Session-Id", "s1")
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"result":{"protocolVersion":"2025-06-18"}}`, *msg.ID)
		case strings.Contains(string(msg.Params), `"fail"`):
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%d,"result":{"content":[{"type":"text","text":"it broke\nmore"}],"isError":true}}`, *msg.ID)
		default:
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\",\"params\":{}}\n\n")
			fmt.Fprintf(w, "event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":%d,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"- button [ref=e1]\"}]}}\n\n", *msg.ID)
		}
	}))
}

func TestClientJSONAndSSE(t *testing.T) {
	srv := server(t)
	defer srv.Close()
	ctx := context.Background()
	c, err := Dial(ctx, srv.Client(), srv.URL, "tok")
	if err != nil {
		t.Fatal(err)
	}
	text, _, err := c.Tool(ctx, "browser_snapshot", map[string]any{})
	if err != nil || text != "- button [ref=e1]" {
		t.Fatalf("SSE answer: %q, %v", text, err)
	}
	if _, _, err := c.Tool(ctx, "fail", map[string]any{}); err == nil || err.Error() != "it broke" {
		t.Fatalf("isError result: %v", err)
	}
	if err := c.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := Dial(ctx, srv.Client(), srv.URL, "wrong"); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("wrong token: %v", err)
	}
}

func TestReadSSEEndsWithoutAnswer(t *testing.T) {
	_, _, err := readSSE(strings.NewReader("data: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{}}\n\n"), 8)
	if err == nil || !strings.Contains(err.Error(), "without answering request 8") {
		t.Fatalf("err = %v", err)
	}
}
