package browser

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs"
)

// The tabs family: listing, opening, selecting and closing tabs (a way off
// a withheld document, gateLeave: a tab it leaves the session on is judged
// before its state is shown), and emulating a device or resizing the
// viewport of a document judged clean (gateTab).
func tabFuncs(s *Service) []hostFunc {
	return []hostFunc{
		{hf(abi.HostBrowserTabs, s.actions.tabsCall), gateLeave},
		{hostfuncs.JSON(abi.HostBrowserEmulate, s.actions.emulate), gateTab},
		{hostfuncs.JSON(abi.HostBrowserResize, s.actions.resize), gateTab},
	}
}

// tabsCall is ww_browser_tabs.
func (s *actions) tabsCall(ctx context.Context, c *hostfuncs.Caller, req abi.BrowserTabsRequest) (abi.BrowserTabsResponse, error) {
	var out abi.BrowserTabsResponse
	switch req.Action {
	case "", "list", "open", "select", "close":
	default:
		return out, abi.Errorf(abi.CodeInputInvalid, "action %q: use list, open, select or close", req.Action)
	}
	var u string
	if req.Action == "open" && req.URL != "" {
		var err error
		if u, err = s.pages.checkOpenURL(req.URL); err != nil {
			return out, err
		}
	}
	return onTab(ctx, c, s.sessions.beginWith(req.Action == "open"), func(ss *session, t *tab) (abi.BrowserTabsResponse, error) {
		var err error
		switch req.Action {
		case "open":
			t, err = s.openTab(ss, u, &out)
		case "select":
			t, err = s.selectTab(ss, req, &out)
		case "close":
			t, err = s.closeTab(ss, req)
		}
		if err != nil {
			return out, err
		}
		out.State = s.pages.state(ss, t, true)
		return out, nil
	})
}

// pickTab is the tab req.Index names (for close, the current one when
// none is named), with its index.
func pickTab(ss *session, req abi.BrowserTabsRequest) (*tab, int, error) {
	ss.evMu.Lock()
	defer ss.evMu.Unlock()
	if req.Index == nil {
		if req.Action == "close" {
			return ss.tabs[ss.cur], ss.cur, nil
		}
		return nil, 0, abi.Errorf(abi.CodeInputInvalid, "%s needs index, the tab's number from the list", req.Action)
	}
	i := *req.Index
	if i < 0 || i >= len(ss.tabs) {
		return nil, 0, abi.Errorf(abi.CodeInputInvalid, "there is no tab %d: this session has %d tab(s), numbered from 0", i, len(ss.tabs))
	}
	return ss.tabs[i], i, nil
}

// openTab opens a tab, current from now on, and loads u in it when given
// (its facts and snapshot go to out).
func (s *actions) openTab(ss *session, u string, out *abi.BrowserTabsResponse) (*tab, error) {
	p, _, err := await(ss, 0, false, ss.bctx.NewPage)
	if err != nil {
		return nil, s.sessions.mapErr(ss, err, "opening a tab")
	}
	t := ss.attach(p)
	ss.evMu.Lock()
	ss.cur, ss.newTabs = ss.indexLocked(t), nil
	ss.evMu.Unlock()
	if u != "" {
		resp, dialog, err := race(ss, func() (pw.Response, error) {
			return t.page.Goto(u, pw.PageGotoOptions{Timeout: ms(s.cfg.navigationWait())})
		})
		if err != nil {
			return nil, s.navErr(ss, t, err, u, s.cfg.navigationWait(), "load", false)
		}
		if !dialog {
			pg, snap, _, err := s.pages.readJudged(ss, t, resp, true, false)
			if err != nil {
				return nil, err
			}
			out.Page, out.Snapshot = pg, snap
		}
	}
	return t, nil
}

// selectTab makes the tab req names current and brings it to the front;
// its snapshot goes to out.
func (s *actions) selectTab(ss *session, req abi.BrowserTabsRequest, out *abi.BrowserTabsResponse) (*tab, error) {
	nt, i, err := pickTab(ss, req)
	if err != nil {
		return nil, err
	}
	ss.evMu.Lock()
	ss.cur = i
	ss.evMu.Unlock()
	t := nt
	await0(ss, s.cfg.actionWait(), t.page.BringToFront)
	if openDialog(ss, t) == nil {
		// Every tab is born unjudged, whoever opened it (gate.go).
		if err := s.pages.gate(ss, t); err != nil {
			return nil, err
		}
		if out.Snapshot, err = s.pages.snapshot(ss, t, "", 0); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// closeTab closes the tab req names (a dialog on it dismissed) and returns
// the current tab after: a new blank one when it was the last.
func (s *actions) closeTab(ss *session, req abi.BrowserTabsRequest) (*tab, error) {
	var t *tab
	nt, _, err := pickTab(ss, req)
	if err != nil {
		return nil, err
	}
	if err := s.leaveDialog(ss, nt, "closing the tab"); err != nil {
		return nil, err
	}
	if err := await0(ss, closeWait, func() error { return nt.page.Close(pw.PageCloseOptions{RunBeforeUnload: pw.Bool(false)}) }); err != nil {
		return nil, s.sessions.mapErr(ss, err, "closing the tab")
	}
	if t = ss.current(); t == nil {
		// The last tab: keep the session with a blank one.
		p, _, err := await(ss, 0, false, ss.bctx.NewPage)
		if err != nil {
			return nil, s.sessions.mapErr(ss, err, "opening a tab")
		}
		t = ss.attach(p)
		ss.evMu.Lock()
		ss.newTabs = nil
		ss.evMu.Unlock()
	}
	return t, nil
}

// mediaFeature is one media setting of ww_browser_emulate: nil when v is
// empty, else v as Playwright's type once it is one of allowed (else
// input_invalid naming them), recorded in applied as "label v".
func mediaFeature[T ~string](v, key, label string, allowed []string, applied *[]string) (*T, error) {
	if v == "" {
		return nil, nil
	}
	if !slices.Contains(allowed, v) {
		last := len(allowed) - 1
		return nil, abi.Errorf(abi.CodeInputInvalid, "%s %q: use %s or %s", key, v, strings.Join(allowed[:last], ", "), allowed[last])
	}
	t := T(v)
	*applied = append(*applied, label+" "+v)
	return &t, nil
}

// emulate is ww_browser_emulate.
func (s *actions) emulate(ctx context.Context, c *hostfuncs.Caller, req abi.BrowserEmulateRequest) (abi.BrowserEmulateResponse, error) {
	var out abi.BrowserEmulateResponse
	return onTab(ctx, c, s.sessions.pageTab, func(ss *session, t *tab) (abi.BrowserEmulateResponse, error) {
		var err error
		if req.Device != "" {
			var lost string
			if t, lost, err = s.emulateDevice(ss, t, req.Device); err != nil {
				return out, err
			}
			out.Applied = append(out.Applied, "device "+req.Device+" ("+lost+")")
		}
		if req.Media != "" || req.ColorScheme != "" || req.ReducedMotion != "" {
			o := pw.PageEmulateMediaOptions{}
			if o.Media, err = mediaFeature[pw.Media](req.Media, "media", "media", []string{"screen", "print"}, &out.Applied); err != nil {
				return out, err
			}
			if o.ColorScheme, err = mediaFeature[pw.ColorScheme](req.ColorScheme, "color_scheme", "color scheme", []string{"light", "dark", "no-preference"}, &out.Applied); err != nil {
				return out, err
			}
			if o.ReducedMotion, err = mediaFeature[pw.ReducedMotion](req.ReducedMotion, "reduced_motion", "reduced motion", []string{"reduce", "no-preference"}, &out.Applied); err != nil {
				return out, err
			}
			if err := await0(ss, s.cfg.actionWait(), func() error { return t.page.EmulateMedia(o) }); err != nil {
				return out, s.sessions.mapErr(ss, err, "emulating media")
			}
		}
		if req.Geolocation != nil {
			g := req.Geolocation
			if g.Latitude < -90 || g.Latitude > 90 || g.Longitude < -180 || g.Longitude > 180 {
				return out, abi.Errorf(abi.CodeInputInvalid, "geolocation out of range: latitude -90..90, longitude -180..180")
			}
			if err := await0(ss, s.cfg.actionWait(), func() error { return ss.bctx.GrantPermissions([]string{"geolocation"}) }); err != nil {
				return out, s.sessions.mapErr(ss, err, "granting geolocation")
			}
			acc := g.Accuracy
			if acc <= 0 {
				acc = 10
			}
			if err := await0(ss, s.cfg.actionWait(), func() error {
				return ss.bctx.SetGeolocation(&pw.Geolocation{Latitude: g.Latitude, Longitude: g.Longitude, Accuracy: pw.Float(acc)})
			}); err != nil {
				return out, s.sessions.mapErr(ss, err, "setting geolocation")
			}
			out.Applied = append(out.Applied, fmt.Sprintf("geolocation %.5f,%.5f", g.Latitude, g.Longitude))
		} else if req.ClearGeolocation {
			if err := await0(ss, s.cfg.actionWait(), func() error { return ss.bctx.SetGeolocation(nil) }); err != nil {
				return out, s.sessions.mapErr(ss, err, "clearing geolocation")
			}
			await0(ss, s.cfg.actionWait(), ss.bctx.ClearPermissions)
			out.Applied = append(out.Applied, "geolocation cleared")
		}
		if req.Offline != nil {
			if err := await0(ss, s.cfg.actionWait(), func() error { return ss.bctx.SetOffline(*req.Offline) }); err != nil {
				return out, s.sessions.mapErr(ss, err, "setting offline mode")
			}
			out.Applied = append(out.Applied, fmt.Sprintf("offline %v", *req.Offline))
		}
		if len(out.Applied) == 0 {
			return out, abi.Errorf(abi.CodeInputInvalid, "nothing to emulate: give device, media, color_scheme, reduced_motion, geolocation, clear_geolocation or offline")
		}
		out.State = s.pages.state(ss, t, false)
		return out, nil
	})
}

// emulateDevice recreates the session's context with a device's viewport,
// user agent, touch and scale: Playwright fixes those when a context is
// created, and its screenshots and input follow them only then. Cookies
// and local storage move over, and every tab is reopened at its URL, the
// current one still current; lost says what did not survive (each tab's
// history, session storage, unsaved input).
func (s *actions) emulateDevice(ss *session, t *tab, name string) (_ *tab, lost string, _ error) {
	dev, err := findDevice(ss, name)
	if err != nil {
		return nil, "", err
	}
	if ss.persistent || ss.browser == nil {
		return nil, "", abi.Errorf(abi.CodeInputInvalid, "device emulation recreates the browser context, which a persistent profile cannot do: use resize and a color scheme instead")
	}
	st, _, err := await(ss, s.cfg.actionWait(), false, func() (*pw.StorageState, error) { return ss.bctx.StorageState() })
	if err != nil {
		return nil, "", s.sessions.mapErr(ss, err, "saving the session's storage")
	}
	ss.evMu.Lock()
	urls := make([]string, len(ss.tabs))
	verdicts := make([]*document, len(ss.tabs))
	for i, x := range ss.tabs {
		urls[i] = x.page.URL()
		verdicts[i] = x.document()
	}
	ss.evMu.Unlock()
	curIdx := max(ss.tabIndex(t), 0)
	proxy, err := s.launcher.proxyServer(ss.key)
	if err != nil {
		return nil, "", err
	}
	o := pw.BrowserNewContextOptions{
		UserAgent: pw.String(dev.UserAgent), Viewport: dev.Viewport, Screen: dev.Screen,
		DeviceScaleFactor: pw.Float(dev.DeviceScaleFactor), IsMobile: pw.Bool(dev.IsMobile), HasTouch: pw.Bool(dev.HasTouch),
		StorageState: st.ToOptionalStorageState(), Proxy: s.launcher.contextProxy(proxy),
	}
	nctx, _, err := await(ss, 0, false, func() (pw.BrowserContext, error) { return ss.browser.NewContext(o) })
	if err != nil {
		return nil, "", s.sessions.mapErr(ss, err, "opening the device context")
	}
	if err := s.launcher.primeProxy(nctx, proxy); err != nil {
		nctx.Close()
		return nil, "", err
	}
	old := ss.bctx
	ss.evMu.Lock()
	ss.tabs, ss.cur, ss.newTabs = nil, 0, nil
	ss.evMu.Unlock()
	ss.bctx = nctx
	nctx.SetDefaultTimeout(float64(s.cfg.actionWait().Milliseconds()))
	nctx.SetDefaultNavigationTimeout(float64(s.cfg.navigationWait().Milliseconds()))
	watchListeners(nctx)
	nctx.OnPage(ss.onPage)
	go bounded(closeWait, func() error { return old.Close() })
	// primeProxy left its blank first page open: that is the first tab.
	nt, failed, err := s.reopenTabs(ss, nctx, urls, verdicts, curIdx)
	if err != nil {
		return nil, "", err
	}
	ss.evMu.Lock()
	ss.newTabs, ss.cur = nil, ss.indexLocked(nt)
	ss.evMu.Unlock()
	lost = fmt.Sprintf("a device needs a new browser context: its %d tab(s) were reopened at their URLs with cookies and local storage kept, but each tab's back/forward history, session storage and unsaved form input are gone", len(urls))
	if len(failed) > 0 {
		lost += "; " + strings.Join(failed, "; ")
	}
	return nt, lost, nil
}

// findDevice looks name up among the devices of the driver the session
// lives on; an unknown name is refused with the close matches.
func findDevice(ss *session, name string) (*pw.DeviceDescriptor, error) {
	// The devices of the driver this session lives on: launcher.pw belongs to
	// the launcher's lock and is nil while a dead driver is replaced.
	if ss.drv == nil || ss.drv.pw == nil {
		return nil, abi.Errorf(abi.CodeNotAvailable, "the session has no browser driver: close it (browser_close) and open a new one")
	}
	devices := ss.drv.pw.Devices
	dev := devices[name]
	if dev == nil {
		var near []string
		for n := range devices {
			if strings.Contains(strings.ToLower(n), strings.ToLower(name)) {
				near = append(near, n)
			}
		}
		sort.Strings(near)
		if len(near) > 8 {
			near = near[:8]
		}
		hint := "e.g. \"iPhone 15\", \"Pixel 7\", \"iPad Mini\", \"Desktop Chrome\""
		if len(near) > 0 {
			hint = "close matches: " + strings.Join(near, ", ")
		}
		return nil, abi.Errorf(abi.CodeInputInvalid, "unknown device %q: %s", name, hint)
	}
	return dev, nil
}

// reopenTabs reopens urls as the tabs of the device context nctx (its
// first page, primeProxy's, is the first tab) and returns the tab at
// curIdx. A tab other than that one that does not load again is named in
// failed. The host's re-creation carries each tab's verdict (verdicts,
// the documents the tabs showed): a withheld one is reopened blank and
// still withheld (the wall does not run again); a clean one is clean
// again; an unjudged one is judged when read.
func (s *actions) reopenTabs(ss *session, nctx pw.BrowserContext, urls []string, verdicts []*document, curIdx int) (nt *tab, failed []string, _ error) {
	for i, u := range urls {
		p, _, err := await(ss, 0, false, func() (pw.Page, error) {
			if i == 0 {
				return firstPage(nctx)
			}
			return nctx.NewPage()
		})
		if err != nil {
			return nil, nil, s.sessions.mapErr(ss, err, "opening a tab")
		}
		x := ss.attach(p)
		if i == curIdx {
			nt = x
		}
		st, e := verdicts[i].verdict()
		if st == docWithheld {
			x.document().set(docWithheld, e)
			continue
		}
		if _, err := checkURL(u); err != nil {
			continue
		}
		if _, _, err := race(ss, func() (pw.Response, error) { return p.Goto(u) }); err != nil {
			if i == curIdx {
				return nil, nil, s.navErr(ss, x, err, u, s.cfg.navigationWait(), "load", false)
			}
			failed = append(failed, fmt.Sprintf("tab %d (%s) did not load again", i, capString(u, 200)))
		} else if st == docClean && x.page.URL() == u {
			x.document().set(docClean, nil)
		}
	}
	return nt, failed, nil
}

// resize is ww_browser_resize.
func (s *actions) resize(ctx context.Context, c *hostfuncs.Caller, req abi.BrowserResizeRequest) (abi.BrowserResizeResponse, error) {
	var out abi.BrowserResizeResponse
	if req.Width < 200 || req.Height < 200 || req.Width > 7680 || req.Height > 4320 {
		return out, abi.Errorf(abi.CodeInputInvalid, "size %dx%d: width and height must be between 200 and 7680x4320", req.Width, req.Height)
	}
	return onTab(ctx, c, s.sessions.pageTab, func(ss *session, t *tab) (abi.BrowserResizeResponse, error) {
		if err := await0(ss, s.cfg.actionWait(), func() error { return t.page.SetViewportSize(req.Width, req.Height) }); err != nil {
			return out, s.sessions.mapErr(ss, err, "resizing")
		}
		out.Width, out.Height = req.Width, req.Height
		out.State = s.pages.state(ss, t, false)
		return out, nil
	})
}
