package main

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/wasmwright/wasmwright/internal/procfs"
)

// sample is what is read of the server every few seconds.
type sample struct {
	at         time.Duration // since the agents started
	rssMB      float64       // the serve process's resident memory
	mem        memParts      // what of it is the plugins' (memsplit.go)
	heapGoalMB float64       // the Go runtime's next collection goal (twice the live heap)
	goroutines float64       // from its --pprof goroutine profile
	threads    float64       // its OS threads
	fds        float64       // its open file descriptors
	chromium   float64       // Chromium processes under it
	treeMB     float64       // resident memory of its whole process tree (RSS summed: shared pages count more than once)
	load1      float64       // the machine's one-minute load average
}

// metrics name the sample's fields the report fits a line to.
// OS threads are shown but not judged: the Go runtime keeps every thread
// it has made, so their count only steps up. serve's RSS is judged in its
// parts (memsplit.go): the plugins' resident memory is shown, not judged,
// as each instance keeps the most it grew to; their reservations are
// judged, and everything else.
var metrics = []struct {
	name, unit string
	get        func(s sample) float64
	judged     bool
}{
	{"serve RSS", "MB", func(s sample) float64 { return s.rssMB }, false},
	{"serve RSS outside plugin memories", "MB", outsidePlugins, true},
	{"plugin memories, resident", "MB", func(s sample) float64 { return s.mem.pluginMB }, false},
	{"plugin memories, reserved", "MB", func(s sample) float64 { return s.mem.pluginReservedMB }, true},
	{"Go heap goal", "MB", func(s sample) float64 { return s.heapGoalMB }, true},
	{"goroutines", "", func(s sample) float64 { return s.goroutines }, true},
	{"OS threads", "", func(s sample) float64 { return s.threads }, false},
	{"open fds", "", func(s sample) float64 { return s.fds }, true},
	{"Chromium processes", "", func(s sample) float64 { return s.chromium }, true},
	{"process tree RSS", "MB", func(s sample) float64 { return s.treeMB }, true},
}

// outsidePlugins is serve's RSS less its plugins' linear memories: the
// Go heap and runtime, compiled code, the binary.
func outsidePlugins(s sample) float64 { return s.rssMB - s.mem.pluginMB }

// take reads one sample of pid; pprof is its --pprof address.
func take(pid int, pprof string, at time.Duration) sample {
	s := sample{at: at, goroutines: goroutines(pprof), load1: load1(), heapGoalMB: heapGoal(pprof)}
	status := procStatus(pid)
	s.rssMB = status["VmRSS"] / 1024
	s.mem = memSplit(pid)
	s.threads = status["Threads"]
	if ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", pid)); err == nil {
		s.fds = float64(len(ents))
	}
	tree := append([]int{pid}, procfs.Descendants(pid)...)
	for _, p := range tree {
		if strings.Contains(procfs.Name(p), "chrom") {
			s.chromium++
		}
		s.treeMB += procStatus(p)["VmRSS"] / 1024
	}
	return s
}

// procStatus reads the numeric fields of /proc/PID/status (kB for sizes).
func procStatus(pid int) map[string]float64 {
	out := map[string]float64{}
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return out
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		if fs := strings.Fields(v); len(fs) > 0 {
			if n, err := strconv.ParseFloat(fs[0], 64); err == nil {
				out[k] = n
			}
		}
	}
	return out
}

// goroutines reads "goroutine profile: total N" from the server's pprof
// endpoint (NaN when it does not answer).
func goroutines(addr string) float64 {
	return fromPprof(addr, "goroutine", func(r io.Reader) float64 {
		line, _ := bufio.NewReader(io.LimitReader(r, 4096)).ReadString('\n')
		n, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimPrefix(line, "goroutine profile: total")), 64)
		if err != nil {
			return math.NaN()
		}
		return n
	})
}

// fromPprof reads one profile's text form (debug=1) from serve's pprof
// endpoint with read (NaN when it does not answer).
func fromPprof(addr, profile string, read func(io.Reader) float64) float64 {
	c := &http.Client{Timeout: 10 * time.Second}
	res, err := c.Get("http://" + addr + "/debug/pprof/" + profile + "?debug=1")
	if err != nil {
		return math.NaN()
	}
	defer res.Body.Close()
	return read(res.Body)
}

func load1() float64 {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return math.NaN()
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

// fit is a least-squares line through (minutes, value): its slope per
// minute, the slope's 95% confidence half-width and the residuals'
// standard deviation (the noise band around the line).
type fit struct {
	slope, ci, resid, mean float64
	n                      int
}

// fitWindow is the time ss spans, and whether ss holds the three samples
// a fitted line needs.
func fitWindow(ss []sample) (time.Duration, bool) {
	if len(ss) < 3 {
		return 0, false
	}
	return ss[len(ss)-1].at - ss[0].at, true
}

// span is the lowest and the highest value get reads over ss.
func span(ss []sample, get func(sample) float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, s := range ss {
		lo, hi = math.Min(lo, get(s)), math.Max(hi, get(s))
	}
	return lo, hi
}

func fitLine(ss []sample, get func(sample) float64) fit {
	var xs, ys []float64
	for _, s := range ss {
		if v := get(s); !math.IsNaN(v) {
			xs, ys = append(xs, s.at.Minutes()), append(ys, v)
		}
	}
	n := float64(len(xs))
	if n < 3 {
		return fit{n: len(xs)}
	}
	var mx, my float64
	for i := range xs {
		mx, my = mx+xs[i], my+ys[i]
	}
	mx, my = mx/n, my/n
	var sxx, sxy float64
	for i := range xs {
		sxx += (xs[i] - mx) * (xs[i] - mx)
		sxy += (xs[i] - mx) * (ys[i] - my)
	}
	b := sxy / sxx
	var ssr float64
	for i := range xs {
		e := ys[i] - (my + b*(xs[i]-mx))
		ssr += e * e
	}
	resid := math.Sqrt(ssr / (n - 2))
	return fit{slope: b, ci: 1.96 * resid / math.Sqrt(sxx), resid: resid, mean: my, n: len(xs)}
}

// grows says whether the line rises beyond the noise: its slope is above
// zero with 95% confidence, and over the window it rises more than twice
// the samples' own scatter around it.
func (f fit) grows(window time.Duration) bool {
	return f.n >= 3 && f.slope-f.ci > 0 && f.slope*window.Minutes() > 2*f.resid
}

// saveGoroutines writes the server's goroutine profile (grouped by stack)
// to path: what is still running once the sessions have closed.
func saveGoroutines(addr, path string) error { return saveProfile(addr, "goroutine?debug=1", path) }

// saveProfile writes the server's pprof profile name (with its query) to
// path.
func saveProfile(addr, name, path string) error {
	c := &http.Client{Timeout: 30 * time.Second}
	res, err := c.Get("http://" + addr + "/debug/pprof/" + name)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	return os.WriteFile(path, b, 0o644)
}
