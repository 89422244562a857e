// Package logrec is a slog handler for tests that keeps the records at or
// above a level, so a test can assert what was (not) logged.
package logrec

import (
	"context"
	"log/slog"
	"strings"
	"sync"
)

// Recorder keeps every record at or above Min, as "LEVEL message k=v...".
type Recorder struct {
	Min  slog.Level
	mu   sync.Mutex
	recs []string
}

// Enabled implements slog.Handler.
func (r *Recorder) Enabled(_ context.Context, l slog.Level) bool { return l >= r.Min }

// Handle implements slog.Handler.
func (r *Recorder) Handle(_ context.Context, rec slog.Record) error {
	s := rec.Level.String() + " " + rec.Message
	rec.Attrs(func(a slog.Attr) bool { s += " " + a.String(); return true })
	r.mu.Lock()
	defer r.mu.Unlock()
	r.recs = append(r.recs, s)
	return nil
}

// WithAttrs implements slog.Handler (attributes are not kept).
func (r *Recorder) WithAttrs([]slog.Attr) slog.Handler { return r }

// WithGroup implements slog.Handler.
func (r *Recorder) WithGroup(string) slog.Handler { return r }

// Records returns what was kept so far.
func (r *Recorder) Records() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.recs...)
}

// Buffer collects text (a text logger's output, a plugin's stderr)
// written from any goroutine.
type Buffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *Buffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// String is what was written so far.
func (l *Buffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
