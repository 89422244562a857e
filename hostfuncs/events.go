package hostfuncs

import (
	"context"
	"encoding/json"
	"os"
	"sync"
	"time"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/sandbox"
)

// Event is one line of the event sink.
type Event struct {
	Time        time.Time       `json:"time"`
	Kind        string          `json:"kind"`
	Personality string          `json:"personality,omitempty"`
	Session     string          `json:"session,omitempty"`
	Plugin      string          `json:"plugin,omitempty"`
	Data        json.RawMessage `json:"data,omitempty"`
}

// Sink receives events. Implementations must be safe for concurrent use.
type Sink interface{ Emit(Event) error }

// JSONLSink appends events as JSON lines to a file (mode 0600).
type JSONLSink struct {
	mu sync.Mutex
	f  *os.File
}

// OpenJSONL opens (creating) path for appending.
func OpenJSONL(path string) (*JSONLSink, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return nil, err
	}
	return &JSONLSink{f: f}, nil
}

func (s *JSONLSink) Emit(e Event) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err = s.f.Write(append(b, '\n'))
	return err
}

// Close closes the file.
func (s *JSONLSink) Close() error { return s.f.Close() }

// MemorySink keeps events in memory, for tests and the CLI.
type MemorySink struct {
	mu     sync.Mutex
	Events []Event
}

func (s *MemorySink) Emit(e Event) error {
	s.mu.Lock()
	s.Events = append(s.Events, e)
	s.mu.Unlock()
	return nil
}

// Snapshot returns a copy of the events so far.
func (s *MemorySink) Snapshot() []Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Event(nil), s.Events...)
}

// Limits of ww_events_emit: a plugin cannot fill the host's disk through
// its event log.
const (
	MaxEventBytes    = 64 << 10
	MaxEventsPerCall = 256
)

// Events is ww_events_emit, writing to sink. Grant: events.
func Events(sink Sink) sandbox.HostFunc {
	return JSON(abi.HostEventsEmit, func(ctx context.Context, c *Caller, req abi.EventsEmitRequest) (abi.Empty, error) {
		if req.Kind == "" {
			return abi.Empty{}, abi.Errorf(abi.CodeInputInvalid, "event kind is empty")
		}
		if len(req.Kind) > 128 || len(req.Data) > MaxEventBytes {
			return abi.Empty{}, abi.Errorf(abi.CodeResourceLimit, "event of %d bytes (kind %d): the limit is %d bytes of data and a 128-byte kind: emit a summary, not the data", len(req.Data), len(req.Kind), MaxEventBytes)
		}
		if c.events++; c.events > MaxEventsPerCall {
			return abi.Empty{}, abi.Errorf(abi.CodeResourceLimit, "more than %d events in one call: emit fewer, larger events", MaxEventsPerCall)
		}
		err := sink.Emit(Event{Time: time.Now().UTC(), Kind: req.Kind, Personality: c.Personality(), Session: c.Session(), Plugin: c.Plugin(), Data: req.Data})
		if err != nil {
			return abi.Empty{}, abi.Errorf(abi.CodeExecutionFailed, "event sink: %v", err)
		}
		return abi.Empty{}, nil
	})
}
