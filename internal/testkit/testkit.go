// Package testkit holds small helpers that tests of several packages
// share: waiting on a change notification, a page that never answers,
// counting a screenshot's dark pixels, a free loopback address, the heap
// a call leaves held. It imports nothing of ours, so any
// package's tests (its internal ones too) may use it.
package testkit

import (
	"image"
	"net"
	"net/http"
	"runtime"
	"testing"
	"time"
)

// Await waits until ok holds, asking again on each notification of
// subscribe (an operator desk's Subscribe, say), and says whether it
// held before limit passed: limit catches a hang, the notifications pace
// the wait.
func Await(subscribe func() (<-chan struct{}, func()), limit time.Duration, ok func() bool) bool {
	ch, cancel := subscribe()
	defer cancel()
	deadline := time.After(limit)
	for !ok() {
		select {
		case <-ch:
		case <-deadline:
			return false
		}
	}
	return true
}

// Hang is a handler that never answers: it tells hung of each request's
// URL (when hung has room) and holds the request until quit is closed or
// the client leaves.
func Hang(hung chan<- string, quit <-chan struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case hung <- r.URL.String():
		default:
		}
		select {
		case <-quit:
		case <-r.Context().Done():
		}
	})
}

// DarkPixels counts the pixels of img inside r whose mean channel is below
// half: text drawn on a light background.
func DarkPixels(img image.Image, r image.Rectangle) int {
	r = r.Intersect(img.Bounds())
	n := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if cr>>8+cg>>8+cb>>8 < 3*128 {
				n++
			}
		}
	}
	return n
}

// FreeAddr is a loopback address ("127.0.0.1:port") nothing listens on
// now: a listener is opened on a free port and closed again.
func FreeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// HeapHeld is how much more Go heap and stack is in use after f than
// before it, both measured after a collection, in bytes: what f left
// held (instances kept warm, say).
func HeapHeld(f func() error) (int64, error) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := f(); err != nil {
		return 0, err
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	return int64(after.HeapInuse+after.StackInuse) - int64(before.HeapInuse+before.StackInuse), nil
}
