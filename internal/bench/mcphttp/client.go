// Package mcphttp is a minimal MCP client over streamable HTTP for the
// benchmark programs: one session per Client, JSON-RPC requests POSTed to
// the server's endpoint, answers read from a JSON body or an SSE stream.
// The same code drives wasmwright and Playwright MCP.
package mcphttp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/wasmwright/wasmwright/internal/bench/jsonrpc"
)

// Client is one MCP session. Its methods are not for concurrent use: a
// session sends one request at a time, as an agent does.
type Client struct {
	url, token string
	hc         *http.Client
	session    string
	id         atomic.Int64
}

// Dial opens a session on url (the server's MCP endpoint), with a bearer
// token when token is not empty: initialize, then notifications/initialized.
func Dial(ctx context.Context, hc *http.Client, url, token string) (*Client, error) {
	c := &Client{url: url, token: token, hc: hc}
	if _, _, err := c.RPC(ctx, "initialize", map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "wasmwright-bench", "version": "1"},
	}); err != nil {
		return nil, err
	}
	if _, err := c.post(ctx, map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"}); err != nil {
		return nil, err
	}
	return c, nil
}

func (c *Client) post(ctx context.Context, msg any) (*http.Response, error) {
	body, _ := json.Marshal(msg)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	c.headers(req)
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode/100 != 2 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		return nil, fmt.Errorf("HTTP %s: %s", resp.Status, strings.TrimSpace(string(b)))
	}
	if id := resp.Header.Get("Mcp-Session-Id"); id != "" {
		c.session = id
	}
	if _, ok := msg.(map[string]any)["id"]; !ok {
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	return resp, nil
}

func (c *Client) headers(req *http.Request) {
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
}

// RPC sends one request and returns its result and the bytes of the
// message that carried it. A JSON-RPC error is an error.
func (c *Client) RPC(ctx context.Context, method string, params any) (json.RawMessage, int, error) {
	id := c.id.Add(1)
	resp, err := c.post(ctx, map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return nil, 0, err
	}
	defer resp.Body.Close()
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		return readSSE(resp.Body, id)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, 0, err
	}
	res, ok, err := jsonrpc.Answer(b, id)
	if !ok && err == nil {
		err = fmt.Errorf("the response to request %d did not answer it", id)
	}
	return res, len(b), err
}

// readSSE reads events until the one answering id.
func readSSE(r io.Reader, id int64) (json.RawMessage, int, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	var data []byte
	for sc.Scan() {
		line := sc.Bytes()
		switch {
		case bytes.HasPrefix(line, []byte("data:")):
			data = append(data, bytes.TrimPrefix(bytes.TrimPrefix(line, []byte("data:")), []byte(" "))...)
		case len(line) == 0 && len(data) > 0:
			if res, ok, err := jsonrpc.Answer(data, id); ok || err != nil {
				return res, len(data), err
			}
			data = data[:0]
		}
	}
	if len(data) > 0 {
		if res, ok, err := jsonrpc.Answer(data, id); ok || err != nil {
			return res, len(data), err
		}
	}
	if err := sc.Err(); err != nil {
		return nil, 0, err
	}
	return nil, 0, fmt.Errorf("the event stream ended without answering request %d", id)
}

// Tool calls a tool and returns its text content and the call's time; an
// isError result is an error.
func (c *Client) Tool(ctx context.Context, name string, args map[string]any) (string, time.Duration, error) {
	t0 := time.Now()
	raw, _, err := c.RPC(ctx, "tools/call", map[string]any{"name": name, "arguments": args})
	d := time.Since(t0)
	if err != nil {
		return "", d, err
	}
	text, err := ToolText(raw)
	return text, d, err
}

// ToolText is the text content of a tools/call result; an isError result
// is an error saying its first line.
func ToolText(raw json.RawMessage) (string, error) {
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		IsError bool `json:"isError"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		return "", err
	}
	var text strings.Builder
	for _, p := range res.Content {
		if p.Type == "text" {
			text.WriteString(p.Text)
		}
	}
	if res.IsError {
		first, _, _ := strings.Cut(strings.TrimSpace(text.String()), "\n")
		return text.String(), errors.New(first)
	}
	return text.String(), nil
}

// Close ends the session (DELETE), bounded by ctx.
func (c *Client) Close(ctx context.Context) error {
	if c.session == "" {
		return nil
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, c.url, nil)
	if err != nil {
		return err
	}
	c.headers(req)
	resp, err := c.hc.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	return resp.Body.Close()
}
