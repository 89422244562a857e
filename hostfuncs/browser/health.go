package browser

import (
	"context"
	"fmt"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/hostfuncs/browser/driver"
)

// GridReport is what Options.OnGrid is told: a grid session that started
// (Wait, Err) or whose node was lost (NodeLost).
type GridReport struct {
	Personality, Session string
	// Wait is how long the session's start waited for the grid: its queue,
	// then the node's browser start. Err is why it failed, nil when it
	// opened.
	Wait time.Duration
	Err  error
	// NodeLost, when set, names the node the open session lost, and
	// LostCause says what lost it: "node" (the node went away) or "hub"
	// (the hub stopped or restarted; the node was not at fault).
	NodeLost, LostCause string
}

// reportGrid tells Options.OnGrid how a grid session's start went and,
// for one that opened, watches for its node's loss (gridlost.go closes
// the link's gone) until the session ends or the service closes.
func (s *sessions) reportGrid(ss *session, wait time.Duration, err error) {
	on := s.opts.OnGrid
	if on == nil {
		return
	}
	on(GridReport{Personality: ss.key.personality, Session: ss.key.session, Wait: wait, Err: err})
	g := ss.grid
	if err != nil || g == nil {
		return
	}
	go func() {
		select {
		case <-g.gone:
			cause := "node"
			if g.byHub.Load() {
				cause = "hub"
			}
			on(GridReport{Personality: ss.key.personality, Session: ss.key.session, NodeLost: g.node, LostCause: cause})
		case <-ss.gone:
		case <-s.life.Done():
		}
	}()
}

// Reachable says whether the service can give a browser now, without
// starting one: the Selenium Grid answers and says it is ready (a node
// has a free slot or will), or the local Chromium binary is there. It is
// the readiness probe's question; a browser that is already running
// passes it too.
func (s *Service) Reachable(ctx context.Context) error {
	if s.cfg.Grid != "" {
		ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		st, err := ReadGridStatus(ctx, s.cfg.Grid)
		if err != nil {
			return abi.Errorf(abi.CodeNotAvailable, "the Selenium Grid at %s (browser.grid) does not answer: %v", s.cfg.Grid, err)
		}
		if !st.Value.Ready {
			return abi.Errorf(abi.CodeNotAvailable, "the Selenium Grid at %s (browser.grid) says it is not ready (no node registered)", s.cfg.Grid)
		}
		return nil
	}
	if _, err := driver.Chromium(s.cfg.Executable); err != nil {
		return fmt.Errorf("no local browser: %w", err)
	}
	return nil
}
