package host

import (
	"github.com/wasmwright/wasmwright/hostfuncs/browser"
)

// newBrowser builds the browser service from the [browser] table (unknown
// keys refused). The browser itself starts lazily on the first browser
// call, so a host without Chromium still starts and serves other tools.
// Values typed into password fields go to the session's secrets, for the
// masker.
func (h *Host) newBrowser() (Service, error) {
	var bc browser.Config
	if err := h.cfg.DecodeSection("browser", h.cfg.Browser, &bc); err != nil {
		return nil, err
	}
	for _, p := range []*string{&bc.ProfilesDir, &bc.WorkspaceDir, &bc.UploadDir, &bc.DriverDir} {
		*p = h.cfg.path(*p)
	}
	if err := bc.Validate(); err != nil {
		return nil, &ConfigError{h.cfg.Source, "[browser]: " + err.Error()}
	}
	s, err := browser.New(bc, browser.Options{Logger: h.log, OnSecret: h.secrets.Add, SessionProxy: h.sessionProxy})
	if err != nil {
		return nil, err
	}
	return s, nil
}
