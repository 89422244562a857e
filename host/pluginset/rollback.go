package pluginset

import (
	"context"
	"fmt"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/sandbox"
)

// HookResult counts a live hook call of a slot's version: a success resets
// the count, host.rollback_after failures in a row roll the version back.
func (set *Set) HookResult(s *Slot, plug *sandbox.Plugin, e *abi.Error) {
	if e == nil {
		s.fails.Store(0)
		return
	}
	if n := s.fails.Add(1); int(n) == set.o.RollbackAfter {
		set.rollback(s, plug, int(n), e)
	}
}

// rollback puts back the version a swap replaced, when bad (the serving
// version) failed n hook calls in a row. The failing file is set aside, so
// a restart loads the version rolled back to.
func (set *Set) rollback(s *Slot, bad *sandbox.Plugin, n int, last *abi.Error) {
	s.swapMu.Lock()
	defer s.swapMu.Unlock()
	if s.cur.Load() != bad {
		return // already replaced
	}
	reason := fmt.Sprintf("%d hook calls in a row failed (last: %s)", n, last.Error())
	if s.prev == nil || s.prev.wasm == nil { // none, or one nothing rolls back to (lean)
		set.log.Error("plugin keeps failing and there is no earlier version to roll back to", "plugin", s.Name, "sha256", bad.SHA256, "reason", reason)
		return
	}
	ctx := context.Background()
	p, _, err := set.validate(ctx, s.Name, s.prev.wasm, s.prev.pin, s.prev.sig)
	if err != nil {
		set.log.Error("plugin keeps failing and its earlier version no longer passes its checks", "plugin", s.Name, "err", err)
		return
	}
	set.publish(s, p, *s.prev)
	s.prev = nil
	set.setAside(s, bad.SHA256, "", "rolled back: "+reason)
	set.emit(eventOf("plugin.rolled_back", s.Name, map[string]string{"from_sha256": bad.SHA256, "to_sha256": p.SHA256, "reason": reason}))
	set.log.Warn("plugin rolled back to its last good version", "plugin", s.Name, "from", bad.SHA256[:12], "to", p.SHA256[:12], "reason", reason)
}
