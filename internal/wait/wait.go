// Package wait bounds a wait on a call that may never return: most
// playwright-go calls take no context, and some never answer (a page
// stuck in a script, a dead driver). The browser and its rooms wait
// through it so a stuck page never holds a caller.
package wait

import (
	"errors"
	"fmt"
	"time"
)

// ErrNoAnswer is wrapped by Bounded's error when it stopped waiting.
var ErrNoAnswer = errors.New("no answer")

// Bounded runs fn, waiting at most limit; past it fn is left running (its
// result dropped) and an error wrapping ErrNoAnswer says so.
func Bounded(limit time.Duration, fn func() error) error {
	done := make(chan error, 1)
	go func() { done <- fn() }()
	t := time.NewTimer(limit)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		return fmt.Errorf("%w within %s", ErrNoAnswer, limit)
	}
}
