package host

import (
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

// idleReleaseAfter is how long the host waits, once no call runs, before
// it hands the heap its last calls left free back to the OS.
const idleReleaseAfter = time.Second

// idleRelease returns to the OS, when calls stop, the heap a burst of
// calls left free (plugin instances' memories, snapshots, pages read
// through hooks): Go would keep it for the next burst, up to twice the
// live heap, which for a host with a browser session is tens of MB of
// RSS. One release per lull, none while a call runs.
type idleRelease struct {
	mu     sync.Mutex
	active int
	timer  *time.Timer
	// runs counts the releases; notify, when set (tests), is told of each.
	runs   atomic.Int64
	notify chan struct{}
}

func (r *idleRelease) begin() {
	r.mu.Lock()
	r.active++
	if r.timer != nil {
		r.timer.Stop()
	}
	r.mu.Unlock()
}

func (r *idleRelease) end() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.active--; r.active > 0 {
		return
	}
	if r.timer == nil {
		r.timer = time.AfterFunc(idleReleaseAfter, r.fire)
	} else {
		r.timer.Reset(idleReleaseAfter)
	}
}

func (r *idleRelease) fire() {
	r.mu.Lock()
	idle := r.active == 0
	r.mu.Unlock()
	if !idle {
		return
	}
	debug.FreeOSMemory()
	r.runs.Add(1)
	select {
	case r.notify <- struct{}{}:
	default:
	}
}
