package host

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/host/pluginset"
	"github.com/wasmwright/wasmwright/sandbox"
)

// Detector chains: a personality's hooks.detect lists detectors in order,
// and a navigation's page is a bot wall when any of them flags it (the
// first to flag names the vendor). The host's self-test walls are the
// chain's to catch (pluginset.CheckChain), checked when a personality is
// linked and before a swap publishes a member; a member that fails, on a
// page or on a wall, fails the chain: detect_failure decides, as for one
// detector.

// chainChecks remembers each chain's check by its members' versions, so
// relinking after an unrelated swap does not run the walls again.
type chainChecks struct{ m sync.Map } // key → *chainVerdict

type chainVerdict struct{ err *abi.Error }

func chainKey(chain []*sandbox.Plugin) string {
	var b strings.Builder
	for _, p := range chain {
		b.WriteString(p.Name + "@" + p.SHA256 + ";")
	}
	return b.String()
}

// check runs the host's walls (set's) through chain, once per set of
// versions.
func (cc *chainChecks) check(ctx context.Context, set *pluginset.Set, chain []*sandbox.Plugin) *abi.Error {
	key := chainKey(chain)
	if v, ok := cc.m.Load(key); ok {
		return v.(*chainVerdict).err
	}
	var e *abi.Error
	if err := set.CheckChain(ctx, chain); err != nil {
		e = abi.AsError(err)
	}
	if ctx.Err() == nil {
		cc.m.Store(key, &chainVerdict{e})
	}
	return e
}

// checkAtStart runs each personality's chain check before the first
// link, so the links that follow find the verdicts cached. A chain that
// passed at an earlier start is not run again (pluginset's
// selftested.go): a warm start compiles no detector for it.
func (cc *chainChecks) checkAtStart(ctx context.Context, set *pluginset.Set, pers map[string]PersonalityConfig) {
	for _, pn := range sortedKeys(pers) {
		var chain []*sandbox.Plugin
		for _, name := range pers[pn].Hooks.Detect {
			if p, err := set.Slot(name).Current(); err == nil {
				chain = append(chain, p)
			}
		}
		if len(chain) == 0 || len(chain) < len(pers[pn].Hooks.Detect) {
			continue
		}
		cc.check(ctx, set, chain)
	}
}

// link orders the personality's linked detectors as its chain lists them
// and checks the chain when every member is linked (a missing member
// fails each navigation already, naming it).
func (cc *chainChecks) link(set *pluginset.Set, p *personality, linked map[string]*route) {
	p.detectors = make([]*route, len(p.cfg.Hooks.Detect))
	var chain []*sandbox.Plugin
	for i, name := range p.cfg.Hooks.Detect {
		p.detectors[i] = linked[name]
		if linked[name] != nil {
			chain = append(chain, linked[name].plugin)
		}
	}
	if len(chain) == 0 || len(chain) < len(p.detectors) {
		return
	}
	if e := cc.check(context.Background(), set, chain); e != nil {
		p.chainErr = e
		p.problems = append(p.problems, e.Message)
	}
}

// admit checks the chain of personality pn when it lists plugin name as
// a detector, with candidate in its place: a version that would make a
// chain let one of the host's walls through is refused.
func (cc *chainChecks) admit(ctx context.Context, set *pluginset.Set, pn string, pc PersonalityConfig, name string, candidate *sandbox.Plugin) error {
	if !contains(pc.Hooks.Detect, name) {
		return nil
	}
	var chain []*sandbox.Plugin
	for _, member := range pc.Hooks.Detect {
		if member == name {
			chain = append(chain, candidate)
			continue
		}
		cur, err := set.Slot(member).Current()
		if err != nil {
			return nil // the chain fails closed on its missing member anyway
		}
		chain = append(chain, cur)
	}
	if e := cc.check(ctx, set, chain); e != nil {
		return abi.Errorf(abi.CodeRefused, "new version of %s, in personality %s's detector chain: %s", name, pn, e.Message).With("cause", e.Details["cause"])
	}
	return nil
}

// memberFailure is a detector of the chain that failed, and how.
type memberFailure struct {
	name string
	err  *abi.Error
}

// detect runs the personality's detector chain on a navigation result, in
// order, and stops at the first member that flags it, returning the flag
// (the member's own error, naming its vendor). A member that fails is
// never a pass: failing closed, the chain stops there; failing open, the
// rest still judge the page and the failure becomes a warning.
func (run *hookRun) detect(in *abi.Result) (flag *abi.Error, failed []memberFailure) {
	h, p := run.h, run.p
	if p.chainErr != nil {
		return nil, []memberFailure{{chainName(p), p.chainErr}}
	}
	for i, name := range p.cfg.Hooks.Detect {
		var e *abi.Error
		var resp *abi.HookResponse
		if r := p.detectors[i]; r == nil {
			e = p.unlinked(h.plugins.Slot(name))
		} else {
			resp, e = h.hook(run.ctx, p, r, run.req.Session, run.request(abi.HookDetect, in))
		}
		switch {
		case e != nil:
			failed = append(failed, memberFailure{name, e})
			if p.cfg.DetectFailure != FailOpen {
				return nil, failed
			}
		case resp.Error != nil:
			return resp.Error, failed
		}
	}
	return nil, failed
}

// chainName is how messages name the personality's detectors.
func chainName(p *personality) string {
	if len(p.cfg.Hooks.Detect) == 1 {
		return p.cfg.Hooks.Detect[0]
	}
	return fmt.Sprintf("chain [%s]", strings.Join(p.cfg.Hooks.Detect, ", "))
}

// longTextDetectors reports whether every detector of p's chain, as it
// serves now (a swap may change it), takes a page with a long text for no
// wall (abi.FeatureLongTextPage): only then may the browser leave such a
// page's HTML unread. An unlinked member, or none, says no.
func (p *personality) longTextDetectors() bool {
	if len(p.detectors) == 0 {
		return false
	}
	for _, r := range p.detectors {
		if r == nil {
			return false
		}
		pl := r.plugin
		if cur := r.slot.Serving(); cur != nil {
			pl = cur
		}
		if !pl.HasFeature(abi.FeatureLongTextPage) {
			return false
		}
	}
	return true
}
