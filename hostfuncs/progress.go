package hostfuncs

import (
	"context"
	"sync"
)

// Progress is what a call under way is waiting on, as its host functions
// say it (SayProgress): a front-end that reports progress while a call
// runs (frontend/mcp's notifications/progress) reads it to say more than
// "working". Safe for concurrent use.
type Progress struct {
	mu   sync.Mutex
	note string
}

type progressKey struct{}

// WithProgress returns ctx carrying a fresh Progress for the call made
// with it.
func WithProgress(ctx context.Context) (context.Context, *Progress) {
	p := &Progress{}
	return context.WithValue(ctx, progressKey{}, p), p
}

// SayProgress sets what the call of ctx waits on ("" when it no longer
// waits on anything in particular); nothing when no front-end listens.
func SayProgress(ctx context.Context, note string) {
	if p, _ := ctx.Value(progressKey{}).(*Progress); p != nil {
		p.mu.Lock()
		p.note = note
		p.mu.Unlock()
	}
}

// Note is what the call waits on now, or "".
func (p *Progress) Note() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.note
}
