// Filling a form in one call, and uploading files.

package browser

import (
	"context"
	"fmt"
	"strings"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
)

// The forms family: filling a form in one call and uploading files, on a
// document judged clean (gateTab).
func formFuncs(s *Service) []hostFunc {
	return []hostFunc{
		{hf(abi.HostBrowserFillForm, s.actions.fillForm), gateTab},
		{hf(abi.HostBrowserUpload, s.actions.upload), gateTab},
	}
}

// fillForm is ww_browser_fill_form.
func (s *actions) fillForm(ctx context.Context, c *hostfuncs.Caller, req abi.BrowserFillFormRequest) (abi.BrowserActResponse, error) {
	var out abi.BrowserActResponse
	if len(req.Fields) == 0 {
		return out, abi.Errorf(abi.CodeInputInvalid, "fields is empty: give each field's ref and value")
	}
	return onTab(ctx, c, s.sessions.pageTab, func(ss *session, t *tab) (abi.BrowserActResponse, error) {
		type step struct {
			loc pw.Locator
			f   abi.BrowserFormField
		}
		if err := stillOnPage(c, t); err != nil {
			return out, err
		}
		var steps []step
		for _, f := range req.Fields {
			loc, ref, err := s.pages.locateToAct(ss, t, f.Ref)
			if err != nil {
				return out, err
			}
			kind := strings.ToLower(f.Kind)
			pr, err := t.ready(loc, ref, true, kind == "" || kind == "textbox")
			if err != nil {
				return out, err
			}
			switch kind {
			case "", "textbox", "slider", "checkbox", "radio", "combobox":
			default:
				return out, abi.Errorf(abi.CodeInputInvalid, "field %s: kind %q: use textbox, checkbox, radio, combobox or slider", f.Ref, f.Kind)
			}
			if (kind == "" || kind == "textbox") && pr.Password {
				s.concealer.keepSecret(c, f.Value)
			}
			steps = append(steps, step{loc, f})
		}
		if err := stillJudged(c, t); err != nil {
			return out, err
		}
		navBefore := t.navSeq.Load()
		filled := 0
		dialog, err := race0(ss, func() error {
			for _, st := range steps {
				var err error
				switch strings.ToLower(st.f.Kind) {
				case "checkbox", "radio":
					err = st.loc.SetChecked(truthy(st.f.Value))
				case "combobox":
					v := []string{st.f.Value}
					_, err = st.loc.SelectOption(pw.SelectOptionValues{ValuesOrLabels: &v})
				default:
					err = st.loc.Fill(st.f.Value)
				}
				if err != nil {
					return fmt.Errorf("field %s: %w", st.f.Ref, err)
				}
				filled++
			}
			return nil
		})
		if err != nil {
			return out, s.sessions.mapErr(ss, err, fmt.Sprintf("filling the form (%d of %d fields done)", filled, len(steps)))
		}
		out.Detail = fmt.Sprintf("filled %d fields", len(steps))
		if dialog {
			out.State = s.pages.state(ss, t, false)
			return out, nil
		}
		return out, s.pages.after(ss, t, navBefore, req.NoSnapshot, &out)
	})
}

func truthy(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "yes", "on", "1", "checked":
		return true
	}
	return false
}

// upload is ww_browser_upload.
func (s *actions) upload(ctx context.Context, c *hostfuncs.Caller, req abi.BrowserUploadRequest) (abi.BrowserActResponse, error) {
	var out abi.BrowserActResponse
	if len(req.Paths) == 0 {
		return out, abi.Errorf(abi.CodeInputInvalid, "paths is empty: name the files (in the upload folder) to upload")
	}
	var files []string
	for _, p := range req.Paths {
		f, err := s.pages.uploadFile(p)
		if err != nil {
			return out, err
		}
		files = append(files, f)
	}
	return onTab(ctx, c, s.sessions.pageTab, func(ss *session, t *tab) (abi.BrowserActResponse, error) {
		if err := stillOnPage(c, t); err != nil {
			return out, err
		}
		loc, ref, err := s.pages.locate(ss, t, req.Ref)
		if err != nil {
			return out, err
		}
		v, _ := loc.Evaluate(`e => e instanceof HTMLInputElement && e.type === "file"`, nil, pw.LocatorEvaluateOptions{Timeout: ms(s.pages.cfg.actionWait())})
		fileInput, _ := v.(bool)
		if !fileInput {
			if _, err := t.ready(loc, ref, true, false); err != nil {
				return out, err
			}
		}
		if err := stillJudged(c, t); err != nil {
			return out, err
		}
		navBefore := t.navSeq.Load()
		dialog, err := race0(ss, func() error {
			if fileInput {
				return loc.SetInputFiles(files)
			}
			fc, err := t.page.ExpectFileChooser(func() error { return loc.Click() }, pw.PageExpectFileChooserOptions{Timeout: ms(s.cfg.actionWait())})
			if err != nil {
				if pwTimeout(err) {
					return abi.Errorf(abi.CodeNotInteractable, "clicking %s opened no file chooser: give the ref of the file input or of the button that opens the chooser", ref)
				}
				return err
			}
			return fc.SetFiles(files)
		})
		if err != nil {
			return out, s.sessions.mapErr(ss, err, "uploading to "+ref)
		}
		out.Detail = fmt.Sprintf("uploaded %d file(s)", len(files))
		if dialog {
			out.State = s.pages.state(ss, t, false)
			return out, nil
		}
		return out, s.pages.after(ss, t, navBefore, req.NoSnapshot, &out)
	})
}
