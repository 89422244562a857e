// Package vision asks the operator's vision model where an element is on a
// screenshot. The model is any endpoint speaking the OpenAI-compatible
// chat-completions API with image input (a hosted API, or a local server
// such as Ollama, vLLM or llama.cpp); the request is plain net/http and
// encoding/json, sent through the client the host gives per personality
// (the egress policy's, so the endpoint must be one the personality may
// reach).
//
// The model gets the screenshot with numbered marks over candidate targets,
// the legend of those marks, and the description, and must answer one JSON
// object: {"mark": N}, {"x": X, "y": Y} or {"none": "why"}. The answer is
// read leniently in form (code fences, white space) and strictly in
// content: a mark must be in the legend and a point inside the viewport.
// Anything else is an error, never a guess: the caller acts only on a
// checked answer.
package vision

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/network"
)

// Model is a configured vision model. Safe for concurrent use.
type Model struct {
	cfg Config
	// client returns the HTTP client for a personality's requests.
	client func(personality string) *http.Client
}

// New returns the model for cfg; client gives the personality's egress
// client (network.Service.Client).
func New(cfg Config, client func(personality string) *http.Client) (*Model, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	if cfg.Timeout.Duration == 0 {
		cfg.Timeout.Duration = DefaultTimeout
	}
	if cfg.MaxImageBytes == 0 {
		cfg.MaxImageBytes = DefaultMaxImageBytes
	}
	cfg.Endpoint = strings.TrimRight(cfg.Endpoint, "/")
	return &Model{cfg: cfg, client: client}, nil
}

// Query is one question to the model.
type Query struct {
	Personality string
	// Image is the marked screenshot (PNG) of the viewport, Width x Height
	// CSS pixels; Marks its legend.
	Image         []byte
	Width, Height int
	Marks         []abi.ScreenMark
	Description   string
	Action        string
}

// Locate asks the model where q's element is. The response's State is left
// for the caller.
func (m *Model) Locate(ctx context.Context, q Query) (abi.VisionLocateResponse, error) {
	var out abi.VisionLocateResponse
	if len(q.Image) > m.cfg.MaxImageBytes {
		return out, abi.Errorf(abi.CodeResourceLimit, "the screenshot is %d bytes, over the vision model's limit of %d ([vision] max_image_bytes): resize the viewport smaller with browser_resize and retry", len(q.Image), m.cfg.MaxImageBytes)
	}
	key := ""
	if m.cfg.APIKeyEnv != "" {
		if key = os.Getenv(m.cfg.APIKeyEnv); key == "" {
			return out, abi.Errorf(abi.CodeNotAvailable, "the vision model's API key is missing: the environment variable %s ([vision] api_key_env) is empty on the host; the operator must set it", m.cfg.APIKeyEnv)
		}
	}
	body, err := json.Marshal(m.request(q))
	if err != nil {
		return out, abi.Errorf(abi.CodeExecutionFailed, "encoding the vision request: %v", err)
	}
	content, err := m.send(ctx, q.Personality, key, body)
	if err != nil {
		return out, err
	}
	out, err = parseAnswer(content, q)
	out.Model = m.cfg.Model
	return out, err
}

// chatRequest is the chat-completions request.
type chatRequest struct {
	Model       string        `json:"model"`
	Temperature float64       `json:"temperature"`
	MaxTokens   int           `json:"max_tokens"`
	Messages    []chatMessage `json:"messages"`
}

type chatMessage struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

type contentPart struct {
	Type     string    `json:"type"`
	Text     string    `json:"text,omitempty"`
	ImageURL *imageURL `json:"image_url,omitempty"`
}

type imageURL struct {
	URL string `json:"url"`
}

const systemPrompt = `You locate one element on a screenshot of a web page for a browser automation tool. ` +
	`Numbered marks are drawn over candidate elements; the legend lists each mark with its role, name and box (x,y,width,height in image pixels). ` +
	`Answer with one JSON object and nothing else: {"mark": N} when the element is one of the marks, ` +
	`{"x": X, "y": Y} (image pixels) when it is visible but has no mark, or {"none": "reason"} when it is not on the screenshot. Never guess.`

func (m *Model) request(q Query) chatRequest {
	var b strings.Builder
	fmt.Fprintf(&b, "Screenshot: %dx%d pixels.\n", q.Width, q.Height)
	if len(q.Marks) == 0 {
		b.WriteString("Marks: none.\n")
	} else {
		b.WriteString("Marks:\n")
		for _, mk := range q.Marks {
			fmt.Fprintf(&b, "%d: %s %q box=%d,%d,%d,%d\n", mk.Mark, orUnknown(mk.Role), mk.Name, mk.Box[0], mk.Box[1], mk.Box[2], mk.Box[3])
		}
	}
	action := q.Action
	if action == "" {
		action = "click"
	}
	fmt.Fprintf(&b, "Find the element to %s: %s", action, q.Description)
	return chatRequest{Model: m.cfg.Model, MaxTokens: 200, Messages: []chatMessage{
		{Role: "system", Content: systemPrompt},
		{Role: "user", Content: []contentPart{
			{Type: "text", Text: b.String()},
			{Type: "image_url", ImageURL: &imageURL{URL: "data:image/png;base64," + base64.StdEncoding.EncodeToString(q.Image)}},
		}},
	}}
}

func orUnknown(s string) string {
	if s == "" {
		return "region"
	}
	return s
}

// send posts body and returns the first choice's message content.
func (m *Model) send(ctx context.Context, personality, key string, body []byte) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, m.cfg.Timeout.Duration)
	defer cancel()
	endpoint := m.cfg.Endpoint + "/chat/completions"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		return "", abi.Errorf(abi.CodeNotAvailable, "[vision] endpoint: %v: fix the host config", err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "wasmwright-vision/1")
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := m.client(personality).Do(req)
	if err != nil {
		return "", m.sendErr(ctx, personality, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswerBytes))
	if err != nil {
		return "", m.sendErr(ctx, personality, err)
	}
	if resp.StatusCode/100 != 2 {
		return "", abi.Errorf(abi.CodeExecutionFailed, "the vision endpoint answered HTTP %d (%s): nothing was clicked. The operator should check [vision] endpoint and model; meanwhile act by ref from browser_snapshot",
			resp.StatusCode, clip(strings.TrimSpace(string(raw)))).With("status", fmt.Sprint(resp.StatusCode))
	}
	var cr struct {
		Choices []struct {
			Message struct {
				Content json.RawMessage `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(raw, &cr); err != nil || len(cr.Choices) == 0 {
		return "", unusable(clip(string(raw)), "not a chat-completions response")
	}
	return messageText(cr.Choices[0].Message.Content), nil
}

// messageText reads a message's content: a string, or a list of parts
// whose text parts are joined.
func messageText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []contentPart
	json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		if p.Type == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

func (m *Model) sendErr(ctx context.Context, personality string, err error) error {
	var blocked *network.Blocked
	if errors.As(err, &blocked) {
		hp := m.cfg.Endpoint
		if u, e := url.Parse(m.cfg.Endpoint); e == nil {
			hp = u.Host
		}
		return abi.Errorf(abi.CodeRefused, "the vision endpoint %s is outside personality %s's network policy (%s): the operator must add %q to personalities.%s.network.allowed_hosts, or point [vision] endpoint elsewhere",
			m.cfg.Endpoint, personality, blocked.Reason, hp, personality).With("url", m.cfg.Endpoint)
	}
	var unreach *network.Unreachable
	if errors.As(err, &unreach) {
		return abi.Errorf(abi.CodeUnreachable, "the vision endpoint %s could not be reached (%s): is the model server running? The operator should check [vision] endpoint", m.cfg.Endpoint, unreach.Reason)
	}
	if ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
		return abi.Errorf(abi.CodeTimeout, "the vision model did not answer within %s ([vision] timeout): nothing was clicked. Retry, or act by ref from browser_snapshot", m.cfg.Timeout.Duration)
	}
	return abi.Errorf(abi.CodeExecutionFailed, "asking the vision model failed: %v: nothing was clicked; act by ref from browser_snapshot", err)
}

func unusable(answer, why string) error {
	return abi.Errorf(abi.CodeExecutionFailed, "the vision model's answer was not usable (%s): nothing was clicked. Describe the element differently and retry, or take browser_snapshot (or browser_screenshot) and act by ref or coordinates. Its answer: %q",
		why, answer).With("answer", answer)
}

func clip(s string) string {
	if len(s) > shownAnswer {
		return strings.ToValidUTF8(s[:shownAnswer], "") + "..."
	}
	return s
}

// answer is the one JSON object the model must give.
type answer struct {
	Mark json.RawMessage `json:"mark"`
	X    json.RawMessage `json:"x"`
	Y    json.RawMessage `json:"y"`
	None *string         `json:"none"`
}

// number reads a JSON number literal (not a string holding one).
func number(raw json.RawMessage) (float64, bool) {
	var f float64
	if len(raw) == 0 || raw[0] != '-' && (raw[0] < '0' || raw[0] > '9') || json.Unmarshal(raw, &f) != nil {
		return 0, false
	}
	return f, true
}

// parseAnswer checks the model's text against the legend and the viewport.
func parseAnswer(text string, q Query) (abi.VisionLocateResponse, error) {
	shown := clip(strings.TrimSpace(text))
	out := abi.VisionLocateResponse{Answer: shown}
	body := stripFences(text)
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	var a answer
	if err := dec.Decode(&a); err != nil {
		return out, unusable(shown, "not the JSON object asked for")
	}
	if dec.More() {
		return out, unusable(shown, "more than one JSON value")
	}
	switch {
	case a.None != nil && a.Mark == nil && a.X == nil && a.Y == nil:
		return out, abi.Errorf(abi.CodeNotFound, "the vision model did not find %q on the screenshot (%s): nothing was clicked. Scroll or navigate to where it is, or describe it differently",
			q.Description, clip(*a.None)).With("answer", shown)
	case a.Mark != nil && a.X == nil && a.Y == nil && a.None == nil:
		f, ok := number(a.Mark)
		if !ok || f != math.Trunc(f) {
			return out, unusable(shown, "the mark is not a whole number")
		}
		for _, mk := range q.Marks {
			if float64(mk.Mark) == f {
				box := mk.Box
				out.Mark, out.Ref, out.Box = mk.Mark, mk.Ref, &box
				out.X, out.Y = float64(box[0])+float64(box[2])/2, float64(box[1])+float64(box[3])/2
				return out, nil
			}
		}
		return out, unusable(shown, fmt.Sprintf("mark %g is not in the legend", f))
	case a.X != nil && a.Y != nil && a.Mark == nil && a.None == nil:
		x, okX := number(a.X)
		y, okY := number(a.Y)
		if !okX || !okY {
			return out, unusable(shown, "the point is not a pair of numbers")
		}
		if x < 0 || y < 0 || x >= float64(q.Width) || y >= float64(q.Height) {
			return out, unusable(shown, fmt.Sprintf("the point (%g, %g) is outside the %dx%d viewport", x, y, q.Width, q.Height))
		}
		out.X, out.Y = x, y
		return out, nil
	}
	return out, unusable(shown, `not exactly one of {"mark"}, {"x","y"} or {"none"}`)
}

// stripFences removes a Markdown code fence around the answer.
func stripFences(s string) string {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "```"); ok {
		if i := strings.IndexByte(rest, '\n'); i >= 0 {
			rest = rest[i+1:]
		} else {
			rest = strings.TrimPrefix(rest, "json")
		}
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "```"))
	}
	return s
}
