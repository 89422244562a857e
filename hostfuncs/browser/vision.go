package browser

import (
	"context"
	"strings"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/hostfuncs/browser/conceal"
)

// The vision family: locating an element on a screenshot with the
// operator's vision model, of a document judged clean (gateTab).
func visionFuncs(s *Service) []hostFunc {
	return []hostFunc{{hostfuncs.JSON(abi.HostVisionLocate, s.inspector.visionLocate), gateTab}}
}

// VisionQuery is what ww_vision_locate asks the vision model
// (Options.Vision): the marked screenshot of the viewport (PNG, Width x
// Height pixels), its legend, and the agent's description.
type VisionQuery struct {
	Image         []byte
	Width, Height int
	Marks         []abi.ScreenMark
	Description   string
	Action        string
}

// maxDescription caps the description sent to the model (bytes).
const maxDescription = 1000

// visionLocate is ww_vision_locate: the session's current tab, marked,
// goes to the vision model with the description; the answer comes back
// checked. It does not act. A page holding a filled secret is not sent
// unless the personality allows it (Options.VisionSecrets).
func (s *inspector) visionLocate(ctx context.Context, c *hostfuncs.Caller, req abi.VisionLocateRequest) (abi.VisionLocateResponse, error) {
	var out abi.VisionLocateResponse
	if s.opts.Vision == nil {
		return out, abi.Errorf(abi.CodeNotAvailable, "no vision model is configured on this host: the operator sets [vision] endpoint and model; meanwhile act by ref from browser_snapshot")
	}
	req.Description = strings.TrimSpace(req.Description)
	if req.Description == "" || len(req.Description) > maxDescription {
		return out, abi.Errorf(abi.CodeInputInvalid, "description must say which element to find (e.g. \"the blue Save button\"), in at most %d bytes", maxDescription)
	}
	return onTab(ctx, c, s.sessions.pageTab, func(ss *session, t *tab) (abi.VisionLocateResponse, error) {
		if d := openDialog(ss, t); d != nil {
			return out, errDialogOpen(d)
		}
		if s.opts.VisionSecrets == nil || !s.opts.VisionSecrets(c.Personality()) {
			if why := conceal.Holds(t.page, s.concealer.secretValues(c.Personality(), c.Session())); why != "" {
				return out, abi.Errorf(abi.CodeRefused, "the page was not sent to the vision model: %s. Act by ref from browser_snapshot, or navigate away from the page first; the operator may allow it with personalities.%s.vision_allow_secrets = true",
					why, c.Personality())
			}
		}
		img, marks, err := s.markShot(ss, t)
		if err != nil {
			return out, s.sessions.mapErr(ss, err, "taking the screenshot for the vision model")
		}
		w, h := imageSize(img)
		out, err = s.opts.Vision(ctx, c.Personality(), VisionQuery{Image: img, Width: w, Height: h, Marks: marks, Description: req.Description, Action: req.Action})
		if err != nil {
			return out, err
		}
		out.State = s.pages.state(ss, t, false)
		return out, nil
	})
}
