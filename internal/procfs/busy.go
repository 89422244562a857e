package procfs

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"
)

// MaxStretch caps Stretch: on a machine busier than this many runnable
// processes per CPU a wait still ends, at MaxStretch times its bound.
const MaxStretch = 4

// stretch caches Stretch for a second: it is read on every wait.
var stretch struct {
	mu sync.Mutex
	at time.Time
	f  float64
}

// Stretch is how much longer than on an idle machine a wait for the
// browser should last now: the one-minute load average per CPU, at least
// 1, at most MaxStretch (1 where /proc/loadavg cannot be read). At a load
// average of 40 on 2 CPUs each runnable process gets about a twentieth of
// a CPU, and a click that takes 200 ms of Chromium's time takes seconds
// of the clock: a bound in seconds set for an idle machine then measures
// the machine, not the page.
func Stretch() float64 {
	stretch.mu.Lock()
	defer stretch.mu.Unlock()
	if time.Since(stretch.at) < time.Second {
		return stretch.f
	}
	stretch.at, stretch.f = time.Now(), 1
	if load, ok := LoadAverage(); ok {
		stretch.f = min(max(load/float64(runtime.NumCPU()), 1), MaxStretch)
	}
	return stretch.f
}

// Stretched is d times Stretch.
func Stretched(d time.Duration) time.Duration {
	return time.Duration(float64(d) * Stretch())
}

// LoadAverage is the one-minute load average (/proc/loadavg).
func LoadAverage() (float64, bool) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, false
	}
	f, _, _ := strings.Cut(string(b), " ")
	v, err := strconv.ParseFloat(f, 64)
	return v, err == nil
}
