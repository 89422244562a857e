package logrec

import (
	"log/slog"
	"strings"
	"testing"
)

func TestRecorderKeepsWarnings(t *testing.T) {
	r := &Recorder{Min: slog.LevelWarn}
	l := slog.New(r)
	l.Info("quiet")
	l.Warn("loud", "k", "v")
	if got := r.Records(); len(got) != 1 || !strings.Contains(got[0], "WARN loud k=v") {
		t.Fatalf("got %q", got)
	}
}
