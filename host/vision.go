package host

import (
	"context"
	"slices"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/capability"
	"github.com/wasmwright/wasmwright/hostfuncs/browser"
	"github.com/wasmwright/wasmwright/hostfuncs/network"
	"github.com/wasmwright/wasmwright/hostfuncs/vision"
)

// newVision builds the vision model when [vision] names an endpoint; its
// requests go through nw under the calling personality's policy.
func newVision(cfg vision.Config, nw *network.Service) (*vision.Model, error) {
	if cfg.Endpoint == "" {
		return nil, nil
	}
	return vision.New(cfg, nw.Client)
}

// visionOptions are the browser's hooks into the vision model m, or none.
func visionOptions(o *browser.Options, m *vision.Model, cfg *Config) {
	if m == nil {
		return
	}
	o.Vision = func(ctx context.Context, personality string, q browser.VisionQuery) (abi.VisionLocateResponse, error) {
		return m.Locate(ctx, vision.Query{Personality: personality, Image: q.Image, Width: q.Width, Height: q.Height, Marks: q.Marks, Description: q.Description, Action: q.Action})
	}
	o.VisionSecrets = func(personality string) bool { return cfg.Personalities[personality].VisionAllowSecrets }
}

func needsVision(t abi.ToolSpec) bool {
	return slices.Contains(t.Capabilities, string(capability.Vision))
}
