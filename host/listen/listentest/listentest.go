// Package listentest floods an HTTP listener the way a slowloris attack
// does (sockets trickling their headers, redialling), and
// measures what real clients get meanwhile: for the tests of the
// front-ends that use host/listen.
package listentest

import (
	"fmt"
	"io"
	"math"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Trickle opens n sockets to addr, from 127.0.0.1 like every local
// client, each sending "POST path HTTP/1.1" and then one header line every
// 500 ms, never finishing its headers. A socket the server closes is
// redialled at once: a reader on each notices the close as it happens, so
// the attacker reconnects as fast as the server drops it. stop ends the
// flood, closes every socket and returns how many dials it made.
func Trickle(addr, path string, n int) (stop func() (dials int64)) {
	var (
		dials atomic.Int64
		wg    sync.WaitGroup
		quit  = make(chan struct{})
	)
	d := net.Dialer{Timeout: 5 * time.Second}
	for range n {
		wg.Go(func() {
			for {
				select {
				case <-quit:
					return
				default:
				}
				c, err := d.Dial("tcp", addr)
				dials.Add(1)
				if err != nil {
					time.Sleep(time.Millisecond)
					continue
				}
				trickle(c, addr, path, quit)
				c.Close()
			}
		})
	}
	return func() int64 {
		close(quit)
		wg.Wait()
		return dials.Load()
	}
}

// trickle sends c's request line and header lines until the server
// closes c or quit closes.
func trickle(c net.Conn, addr, path string, quit <-chan struct{}) {
	dropped := make(chan struct{})
	go func() {
		io.Copy(io.Discard, c)
		close(dropped)
	}()
	defer func() { c.Close(); <-dropped }()
	if _, err := fmt.Fprintf(c, "POST %s HTTP/1.1\r\nHost: %s\r\n", path, addr); err != nil {
		return
	}
	tick := time.NewTicker(500 * time.Millisecond)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-quit:
			return
		case <-dropped:
			return
		case <-tick.C:
			if _, err := fmt.Fprintf(c, "X-Trickle-%d: x\r\n", i); err != nil {
				return
			}
		}
	}
}

// Result is what n requests got.
type Result struct {
	N, OK         int
	P50, P99, Max time.Duration // of the requests that succeeded
	FirstErrors   []string
	Elapsed       time.Duration
}

// Rate is the share of requests that succeeded.
func (r Result) Rate() float64 { return float64(r.OK) / float64(r.N) }

func (r Result) String() string {
	return fmt.Sprintf("%d/%d succeeded (%.1f%%), latency p50 %v p99 %v max %v, in %v; first errors: %q",
		r.OK, r.N, 100*r.Rate(), r.P50.Round(time.Millisecond), r.P99.Round(time.Millisecond), r.Max.Round(time.Millisecond), r.Elapsed.Round(time.Millisecond), r.FirstErrors)
}

// Measure runs do n times, one after another with pause before each,
// and times the ones that succeed.
func Measure(n int, pause time.Duration, do func() error) Result {
	r := Result{N: n}
	var lat []time.Duration
	start := time.Now()
	for range n {
		time.Sleep(pause)
		t0 := time.Now()
		if err := do(); err != nil {
			if len(r.FirstErrors) < 5 {
				r.FirstErrors = append(r.FirstErrors, err.Error())
			}
			continue
		}
		r.OK++
		lat = append(lat, time.Since(t0))
	}
	r.Elapsed = time.Since(start)
	if len(lat) > 0 {
		slices.Sort(lat)
		at := func(q float64) time.Duration { return lat[max(0, int(math.Ceil(q*float64(len(lat))))-1)] }
		r.P50, r.P99, r.Max = at(0.50), at(0.99), lat[len(lat)-1]
	}
	return r
}
