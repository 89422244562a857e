package host

import (
	"context"
	"fmt"
	"slices"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/capability"
	"github.com/wasmwright/wasmwright/hostfuncs/browser"
	"github.com/wasmwright/wasmwright/hostfuncs/network"
	"github.com/wasmwright/wasmwright/hostfuncs/vision"
)

// VisionConfig is the [vision] table: the operator's vision model, an
// OpenAI-compatible chat-completions endpoint with image input. Without an
// endpoint the vision tools are not offered.
type VisionConfig struct {
	// Endpoint is the API's base URL (".../v1"); the personality's network
	// policy must reach it (a loopback server needs allowed_hosts).
	Endpoint string `toml:"endpoint"`
	Model    string `toml:"model"`
	// APIKeyEnv names the environment variable holding the API key, sent
	// as a Bearer token.
	APIKeyEnv string   `toml:"api_key_env"`
	Timeout   Duration `toml:"timeout"`
	// MaxImageBytes refuses a larger screenshot (default 8 MiB).
	MaxImageBytes int `toml:"max_image_bytes"`
}

func (v VisionConfig) model() vision.Config {
	return vision.Config{Endpoint: v.Endpoint, Model: v.Model, APIKeyEnv: v.APIKeyEnv, Timeout: v.Timeout.Duration, MaxImageBytes: v.MaxImageBytes}
}

// validate checks a configured endpoint; the other keys alone are a
// mistake (the tools would silently stay absent).
func (v VisionConfig) validate() error {
	if v.Endpoint == "" {
		if v != (VisionConfig{}) {
			return fmt.Errorf("[vision] has no endpoint: set endpoint (e.g. \"http://127.0.0.1:11434/v1\") or remove the table")
		}
		return nil
	}
	if err := v.model().Validate(); err != nil {
		return fmt.Errorf("[vision] %v", err)
	}
	return nil
}

// newVision builds the vision model when [vision] names an endpoint; its
// requests go through nw under the calling personality's policy.
func newVision(cfg VisionConfig, nw *network.Service) (*vision.Model, error) {
	if cfg.Endpoint == "" {
		return nil, nil
	}
	return vision.New(cfg.model(), nw.Client)
}

// visionOptions are the browser's hooks into the vision model, or none.
func (h *Host) visionOptions(o *browser.Options) {
	if h.vision == nil {
		return
	}
	o.Vision = func(ctx context.Context, personality string, q browser.VisionQuery) (abi.VisionLocateResponse, error) {
		return h.vision.Locate(ctx, vision.Query{Personality: personality, Image: q.Image, Width: q.Width, Height: q.Height, Marks: q.Marks, Description: q.Description, Action: q.Action})
	}
	o.VisionSecrets = func(personality string) bool { return h.cfg.Personalities[personality].VisionAllowSecrets }
}

func needsVision(t abi.ToolSpec) bool {
	return slices.Contains(t.Capabilities, string(capability.Vision))
}
