// Package rows lets the benchmark programs hand the figures of one
// `make bench` run to internal/bench/summary, which prints them as one
// table: each program records the values it measured (a call's median, a
// task's bytes, a tree's memory) for each side, and the summary puts every
// row side by side with the ratios and the goals.
//
// Values are appended as JSON lines to the file $WASMWRIGHT_BENCH_ROWS
// names (scripts/bench.sh sets it for the run); unset, Record does
// nothing, so a program run by hand prints its own section only.
package rows

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sync"
)

// Env names the file rows are appended to.
const Env = "WASMWRIGHT_BENCH_ROWS"

// Side names shared by the programs: the build measured, the build of
// the "before" commit, Playwright MCP as it ships and with
// --timeout-settle 0, chrome-devtools-mcp, and native Go (for the
// plugins' own work).
const (
	Wasmwright = "wasmwright"
	Before     = "before"
	PW         = "PW"
	PW0        = "PW0"
	CD         = "CD"
	Native     = "native"
)

// Row is one measured value.
type Row struct {
	Measure string  `json:"measure"`
	Side    string  `json:"side"`
	Value   float64 `json:"value"`
	// Source is the program that measured it.
	Source string `json:"source"`
}

var mu sync.Mutex

// Record appends one value, when the run collects rows. A value of 0 or
// less (nothing measured) is not recorded. Errors go to stderr: a lost
// row shows as a gap in the summary, never as a wrong figure.
func Record(source, measure, side string, value float64) {
	path := os.Getenv(Env)
	if path == "" || value <= 0 {
		return
	}
	mu.Lock()
	defer mu.Unlock()
	b, err := json.Marshal(Row{Measure: measure, Side: side, Value: value, Source: source})
	if err == nil {
		var f *os.File
		if f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644); err == nil {
			_, err = f.Write(append(b, '\n'))
			if cerr := f.Close(); err == nil {
				err = cerr
			}
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "rows: %s %q %s not recorded: %v\n", source, measure, side, err)
	}
}

// Read reads every row of the file at path.
func Read(path string) ([]Row, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []Row
	dec := json.NewDecoder(bytes.NewReader(data))
	for dec.More() {
		var r Row
		if err := dec.Decode(&r); err != nil {
			return out, fmt.Errorf("rows: %s: %w", path, err)
		}
		out = append(out, r)
	}
	return out, nil
}
