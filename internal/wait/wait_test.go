package wait

import (
	"errors"
	"testing"
	"time"
)

// A call that answers in time gives its own error; one that does not is
// left behind with ErrNoAnswer, and Bounded returns at its limit.
func TestBounded(t *testing.T) {
	mine := errors.New("mine")
	if err := Bounded(time.Second, func() error { return mine }); err != mine {
		t.Fatalf("an answer in time: got %v, want %v", err, mine)
	}
	stuck := make(chan struct{})
	defer close(stuck)
	start := time.Now()
	err := Bounded(50*time.Millisecond, func() error { <-stuck; return nil })
	if !errors.Is(err, ErrNoAnswer) {
		t.Fatalf("a stuck call: got %v, want ErrNoAnswer", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Fatalf("Bounded waited %s past its 50 ms limit", d)
	}
}
