package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"time"

	pw "github.com/mxschmitt/playwright-go"

	"github.com/wasmwright/wasmwright/internal/bench/measure"
	"github.com/wasmwright/wasmwright/internal/seleniumgrid"
)

// The hop: what one CDP round trip costs on each side, the browser's own
// work taken out. Every call is the same code on every side (the same
// messages, in the same order: local and grid differ only in where the
// browser is), so a call's extra on the grid is about its serial round
// trips times the hop's extra per round trip. The probe is
// Browser.getVersion on a browser-level CDP session, which the browser
// process answers at once: what it times is the path, Playwright's driver
// included (the host's own path), locally a pipe, on the grid a WebSocket
// to the node's Selenium server (and through the hub), which relays it
// to the browser.

// hopFigures are the median round trips of each side.
type hopFigures struct {
	local, node, hub time.Duration
	n, rounds        int
	// big* are one round trip of a 400 KB command (Runtime.evaluate of a
	// comment, in a page: what Playwright sends at every new document,
	// its injected script, is 414 KB).
	bigLocal, bigNode, bigHub time.Duration
}

// measureHop opens a grid session of its own (a free slot: run it before
// the hosts take theirs) and a local browser, and times rounds of
// round trips on the three paths, interleaved.
func measureHop(g *seleniumgrid.Grid, rounds, per int) (*hopFigures, error) {
	p, err := pw.Run(&pw.RunOptions{SkipInstallBrowsers: true, Verbose: false})
	if err != nil {
		return nil, fmt.Errorf("hop: the driver: %w", err)
	}
	defer p.Stop()
	local, err := p.Chromium.Launch(pw.BrowserTypeLaunchOptions{ExecutablePath: pw.String(chromium()), Args: []string{"--no-sandbox", "--disable-gpu"}})
	if err != nil {
		return nil, fmt.Errorf("hop: a local browser: %w", err)
	}
	defer local.Close()
	id, cdp, err := gridSession(g.HubURL)
	if err != nil {
		return nil, err
	}
	defer endGridSession(g.HubURL, id)
	nodeCDP, err := onNode(g, id, cdp)
	if err != nil {
		return nil, err
	}
	paths := []struct {
		name string
		at   string // "" local
		got  []time.Duration
	}{{name: "local"}, {name: "node", at: nodeCDP}, {name: "hub", at: cdp}}
	sessions := make([]pw.CDPSession, len(paths))
	pages := make([]pw.CDPSession, len(paths))
	big := make([][]time.Duration, len(paths))
	for i, pt := range paths {
		b := local
		if pt.at != "" {
			if b, err = p.Chromium.ConnectOverCDP(pt.at); err != nil {
				return nil, fmt.Errorf("hop: CDP at %s: %w", pt.at, err)
			}
			defer b.Close()
		}
		if sessions[i], err = b.NewBrowserCDPSession(); err != nil {
			return nil, fmt.Errorf("hop: %s: %w", pt.name, err)
		}
		if pages[i], err = pageSession(b); err != nil {
			return nil, fmt.Errorf("hop: %s: %w", pt.name, err)
		}
	}
	bigExpr := "/*" + strings.Repeat("x", 400<<10) + "*/1"
	for r := range rounds + 1 { // round 0 warms up: not counted
		for j := range paths {
			i := (j + r) % len(paths)
			for range per {
				t0 := time.Now()
				if _, err := sessions[i].Send("Browser.getVersion", nil); err != nil {
					return nil, fmt.Errorf("hop: %s: %w", paths[i].name, err)
				}
				if r > 0 {
					paths[i].got = append(paths[i].got, time.Since(t0))
				}
			}
			t0 := time.Now()
			if _, err := pages[i].Send("Runtime.evaluate", map[string]any{"expression": bigExpr}); err != nil {
				return nil, fmt.Errorf("hop: %s: %w", paths[i].name, err)
			}
			if r > 0 {
				big[i] = append(big[i], time.Since(t0))
			}
		}
	}
	return &hopFigures{local: measure.Med(paths[0].got), node: measure.Med(paths[1].got), hub: measure.Med(paths[2].got), n: rounds * per, rounds: rounds,
		bigLocal: measure.Med(big[0]), bigNode: measure.Med(big[1]), bigHub: measure.Med(big[2])}, nil
}

// pageSession is a CDP session on a new page of a new context of b.
func pageSession(b pw.Browser) (pw.CDPSession, error) {
	c, err := b.NewContext()
	if err != nil {
		return nil, err
	}
	pg, err := c.NewPage()
	if err != nil {
		return nil, err
	}
	return c.NewCDPSession(pg)
}

// chromium is the browser binary the hosts launch.
func chromium() string {
	for _, p := range []string{"/usr/lib/chromium/chromium", "/usr/bin/chromium"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	return "chromium"
}

// gridSession asks the hub for a headless Chromium: its WebDriver
// session and se:cdp endpoint.
func gridSession(hub string) (id, cdp string, err error) {
	caps := map[string]any{"browserName": "chrome", "goog:chromeOptions": map[string]any{"args": []string{"--headless", "--no-sandbox", "--disable-gpu"}}}
	body, _ := json.Marshal(map[string]any{"capabilities": map[string]any{"alwaysMatch": caps}})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, strings.TrimSuffix(hub, "/")+"/session", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json; charset=utf-8")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", "", fmt.Errorf("hop: a grid session: %w", err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	var ans struct {
		Value struct {
			SessionID    string         `json:"sessionId"`
			Capabilities map[string]any `json:"capabilities"`
		} `json:"value"`
	}
	if err := json.Unmarshal(raw, &ans); err != nil || ans.Value.SessionID == "" {
		return "", "", fmt.Errorf("hop: the hub's answer to a new session (%s): %.500s", resp.Status, raw)
	}
	cdp, _ = ans.Value.Capabilities["se:cdp"].(string)
	if cdp == "" {
		return "", "", fmt.Errorf("hop: the grid session has no se:cdp")
	}
	return ans.Value.SessionID, cdp, nil
}

func endGridSession(hub, id string) {
	req, _ := http.NewRequest(http.MethodDelete, strings.TrimSuffix(hub, "/")+"/session/"+id, nil)
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
	}
}

// onNode is cdp (on the hub) at the node the hub lists session id on,
// as the host's grid_cdp = "node" dials it.
func onNode(g *seleniumgrid.Grid, id, cdp string) (string, error) {
	st, err := g.Status(context.Background())
	if err != nil {
		return "", fmt.Errorf("hop: the hub's status: %w", err)
	}
	for _, n := range st.Value.Nodes {
		for _, sl := range n.Slots {
			if sl.Session != nil && sl.Session.SessionID == id {
				c, err1 := url.Parse(cdp)
				u, err2 := url.Parse(n.URI)
				if err1 != nil || err2 != nil {
					return "", fmt.Errorf("hop: %q on %q", cdp, n.URI)
				}
				c.Host = u.Host
				return c.String(), nil
			}
		}
	}
	return "", fmt.Errorf("hop: the hub lists no node for session %s", id)
}

// String is the hop's line of the report, with the arithmetic it allows.
func (h *hopFigures) String() string {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d.Microseconds())/1000) }
	return fmt.Sprintf("One CDP round trip (Browser.getVersion through Playwright's driver, answered by the browser process; median of %d per path, interleaved): local %s ms, at the node %s ms (+%s), through the hub %s ms (+%s). "+
		"One with a 400 KB command (Runtime.evaluate of a comment; Playwright sends its 414 KB injected script at every new document; median of %d): local %s ms, at the node %s ms (+%s), through the hub %s ms (+%s)",
		h.n, ms(h.local), ms(h.node), ms(h.node-h.local), ms(h.hub), ms(h.hub-h.local),
		h.rounds, ms(h.bigLocal), ms(h.bigNode), ms(h.bigNode-h.bigLocal), ms(h.bigHub), ms(h.bigHub-h.bigLocal))
}
