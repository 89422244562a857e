package sandbox

import (
	"context"
	"errors"
	"strings"

	"github.com/tetratelabs/wazero/sys"

	"github.com/wasmwright/wasmwright/abi"
)

// How a failed call is told: a trap, a deadline, a spent budget or an
// exhausted memory, each as a coded error; a crash with its detail kept
// for the operator.

// classify turns a trap or deadline into a coded error, with the last lines
// the plugin wrote to stderr (a Go panic's message lands there).
func (p *Plugin) classify(ctx context.Context, inst *instance, err error) error {
	stderr := strings.TrimSpace(inst.stderr.String())
	if i := strings.LastIndex(stderr, "\n\n"); i >= 0 {
		stderr = stderr[:i]
	}
	if len(stderr) > 400 {
		stderr = stderr[:400] + "..."
	}
	quiet := inst.quiet.Load()
	if stderr != "" && !quiet {
		p.log.Warn("plugin call failed", "err", err.Error(), "stderr", stderr)
	}
	if errors.Is(err, errFuelSpent) {
		var f Fuel
		if pf := fuelOf(ctx); pf != nil {
			f = *pf
		}
		return p.spent(f.Budget, f.Key)
	}
	var exit *sys.ExitError
	if errors.As(err, &exit) && (exit.ExitCode() == sys.ExitCodeDeadlineExceeded || exit.ExitCode() == sys.ExitCodeContextCanceled) ||
		ctx.Err() != nil || errors.Is(err, errTicked) {
		if ctx.Err() == context.Canceled {
			return abi.Errorf(abi.CodeTimeout, "plugin %s call was cancelled; the instance was discarded", p.Name)
		}
		return abi.Errorf(abi.CodeTimeout, "plugin %s did not finish before its deadline and was stopped; the instance was discarded: check the plugin for an endless loop, or raise the timeout", p.Name)
	}
	if strings.Contains(stderr, "out of memory") || inst.memory.refused.Load() {
		return p.outOfMemory()
	}
	var ae *abi.Error
	if errors.As(err, &ae) {
		return ae
	}
	detail := err.Error()
	if stderr != "" && !quiet {
		detail = firstLine(stderr) + " (" + detail + ")"
	}
	return &Crash{
		Err:    abi.Errorf(abi.CodePluginFailed, "plugin %s crashed and the instance was discarded: retry the call once; if it fails again, tell the user plugin %s is broken (the operator finds why in the host's event log, %s)", p.Name, p.Name, EventCrash),
		Detail: detail,
	}
}

// EventCrash is the kind of the event the host writes for a Crash, with
// its Detail.
const EventCrash = "plugin.crashed"

// Crash is a plugin that trapped or panicked. Err is what the caller may
// be told (the code, the plugin's name, what to do); Detail is the
// plugin's own words and the wasm stack, for the operator's event log
// only: a panic message is the plugin's text (it may quote the page or
// the agent's input) and a stack is internals, neither the agent's.
type Crash struct {
	Err    *abi.Error
	Detail string
}

// Error is Err's text: Detail never rides along in a message built from
// the error.
func (c *Crash) Error() string { return c.Err.Error() }

// Unwrap makes abi.AsError find Err.
func (c *Crash) Unwrap() error { return c.Err }

// outOfMemory is the failure of a call whose instance reached its limit.
func (p *Plugin) outOfMemory() error {
	c := p.eng.cfg
	return abi.Errorf(abi.CodeResourceLimit, "plugin %s ran out of memory (limit %d MiB, %s, which counts its linear memory, its tables and its Extism kernel's memory together) and was stopped; the instance was discarded: have the plugin use less, or raise %s",
		p.Name, c.MemoryPages/16, c.MemoryKey, c.MemoryKey)
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}
