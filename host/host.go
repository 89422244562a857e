// Package host is wasmwright's trusted kernel above the sandbox:
// configuration and personalities, tool dispatch, the result-hook pipeline
// (detect → compact → mask), and the services (browser, secrets, events)
// plugins reach through host functions. The plugin lifecycle (loading,
// last good, self-test, swap, rollback) is host/pluginset, which the
// kernel owns; the front-ends (CLI, MCP, console) sit on Host.
package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/wasmwright/wasmwright/internal/procfs"

	"github.com/wasmwright/wasmwright/host/pluginset"
	"github.com/wasmwright/wasmwright/host/telemetry"
	"github.com/wasmwright/wasmwright/hostfuncs"
	"github.com/wasmwright/wasmwright/hostfuncs/operator"
	"github.com/wasmwright/wasmwright/hostfuncs/vault"
	"github.com/wasmwright/wasmwright/hostfuncs/vision"
	"github.com/wasmwright/wasmwright/sandbox"
)

// Service is a kernel service (the browser, the vault...) that offers host
// functions and holds per-session state.
type Service interface {
	HostFuncs() []sandbox.HostFunc
	// CloseSession frees what a (personality, session) holds.
	CloseSession(personality, session string) error
	// Close frees everything; it waits for the work it stops.
	Close(ctx context.Context) error
}

// Options are what the embedding program supplies besides the config.
type Options struct {
	Logger *slog.Logger
	// Sink receives events; default: the config's events_file, or none.
	Sink hostfuncs.Sink
	// Services add host functions; the browser service is added by New
	// from the [browser] table unless NoBrowser is set.
	Services  []Service
	NoBrowser bool
	// OnCall, when set, is told the timing of every call (metrics).
	OnCall func(CallStats)
	// Observe, when set, sees every event the kernel itself writes (tool
	// calls, swaps, approvals, takeovers, withheld pages, grid sessions)
	// and the ones it only counts (egress refusals): host/metrics. Events
	// plugins emit are not among them. It must not block.
	Observe func(hostfuncs.Event)
	// Operators says a surface for human operators runs (the web console
	// of `wasmwright serve`): the host then keeps an operator desk
	// (Host.Desk), offers the takeover tool, and a personality's calls are
	// attended while an operator's console is connected for it.
	Operators bool
}

// Host is a running kernel. It is safe for concurrent use.
type Host struct {
	cfg *Config
	log *slog.Logger
	eng *sandbox.Engine
	// plugins are the plugin slots and their lifecycle (host/pluginset).
	plugins *pluginset.Set
	// events are where the kernel's events go (observe.go).
	events  eventLog
	secrets *hostfuncs.Secrets
	// mask hides secret values from what people are shown (mask.go).
	mask masker
	svcs []Service
	// egress is the network service's per-session side (egress.go).
	egress  egress
	closers []func() error

	// roster is the personalities, linked (personality.go).
	roster roster
	// compacted caches compactor output (pipeline.go); focusCompacted,
	// the same compactions by their snapshot without its [active] mark
	// (focusKey), for a focus move.
	compacted      snapCache[string]
	focusCompacted snapCache[compaction]
	// baselines are the agents' last full snapshots (snapshotview.go).
	baselines baselines
	onCall    func(CallStats)
	// tracing is [telemetry]'s tracer, nil when tracing is off.
	tracing *telemetry.Tracing

	// desk is the operator side (takeovers, approvals, presence); nil
	// without Options.Operators unless a personality's approval.via names
	// the agent's client (clientAsks).
	desk *operator.Desk
	// console says an operator surface runs (Options.Operators): only
	// then is the takeover tool offered and ww_takeover_request linked.
	console bool
	// approve judges calls by the approval policy (approvals.go).
	approve approver
	// vision is the operator's vision model; nil without [vision] endpoint.
	vision *vision.Model
	// idle returns a burst's free heap to the OS when calls stop.
	idle idleRelease

	closeOnce sync.Once
	closeErr  error
	// StartedAt and ReadyAt time the cold start.
	StartedAt, ReadyAt time.Time
}

// New starts a host: it opens the services, loads and links every plugin.
// A plugin that is missing or refused does not stop the host; its tools
// answer with the reason. Errors in the config itself do.
func New(ctx context.Context, cfg *Config, opts Options) (h *Host, err error) {
	h = &Host{cfg: cfg, log: opts.Logger, secrets: hostfuncs.NewSecrets(), StartedAt: time.Now(), compacted: snapCache[string]{max: 64}, focusCompacted: snapCache[compaction]{max: 16}, baselines: baselines{max: 1024}, onCall: opts.OnCall}
	if h.log == nil {
		h.log = slog.Default()
	}
	h.mask.secrets, h.mask.log = h.secrets, h.log
	// Transactional start: whatever started is stopped if a later step
	// fails. (A failing return has already set h to nil: keep our own.)
	started := h
	defer func() {
		if err != nil {
			started.Close(context.Background())
		}
	}()
	sink, err := openSink(cfg, opts.Sink, &h.closers)
	if err != nil {
		return nil, err
	}
	h.events.sink, h.events.observe, h.events.log = teeSink{next: sink, ring: &h.events.recent, mask: h.mask.event}, opts.Observe, h.log
	if h.tracing, err = telemetry.Start(cfg.Telemetry.Config); err != nil {
		return nil, &ConfigError{cfg.Source, err.Error()}
	}
	if t := h.tracing; t != nil {
		h.closers = append(h.closers, func() error {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			return t.Shutdown(ctx)
		})
	}
	if err := h.openServices(opts); err != nil {
		return nil, err
	}
	eng, err := newEngine(cfg, h.log, h.hostFuncs())
	if err != nil {
		return nil, err
	}
	h.eng = eng
	files := map[string]string{}
	for name := range cfg.Plugins {
		files[name] = cfg.PluginFile(name)
	}
	h.roster.cfg, h.roster.log, h.roster.vision, h.roster.console = cfg, h.log, h.vision != nil, h.console
	h.plugins = pluginset.Load(ctx, files, pluginset.Options{
		Engine: eng, Logger: h.log, Emit: h.Emit,
		Hooks: cfg.Host.hookLimits(), RollbackAfter: cfg.Host.rollbackAfter(),
		ConfigPin:      func(name string) string { return cfg.Plugins[name].SHA256 },
		CheckSignature: cfg.CheckSignature,
		Admit:          h.roster.admit,
		Published:      h.roster.relink,
	})
	h.roster.plugins = h.plugins
	h.roster.chains.checkAtStart(ctx, h.plugins, cfg.Personalities)
	h.roster.relink()
	// Loading read each plugin and its compiled code into the heap: hand
	// that garbage back now, not at the next GC cycles (tens of MB).
	debug.FreeOSMemory()
	if cfg.Host.WatchPlugins {
		if err := h.plugins.Watch(cfg.PluginsDir()); err != nil {
			h.log.Warn("plugin folder not watched: hot swap by file drop is off", "err", err)
		}
	}
	h.ReadyAt = time.Now()
	return h, nil
}

// openSink is where events go: the embedder's sink, else the config's
// events_file (its closer added to closers), else nowhere.
func openSink(cfg *Config, sink hostfuncs.Sink, closers *[]func() error) (hostfuncs.Sink, error) {
	if sink == nil && cfg.Host.EventsFile != "" {
		s, err := hostfuncs.OpenJSONL(cfg.path(cfg.Host.EventsFile))
		if err != nil {
			return nil, fmt.Errorf("events_file: %w", err)
		}
		sink = s
		*closers = append(*closers, s.Close)
	}
	if sink == nil {
		sink = discardSink{}
	}
	return sink, nil
}

// openServices opens the kernel's services in the order they depend on
// each other: the embedder's, the network, the vision model (through the
// network), the browser, the operator desk, the vault (over the browser).
func (h *Host) openServices(opts Options) error {
	cfg := h.cfg
	h.svcs = append(h.svcs, opts.Services...)
	nw, err := newNetwork(cfg, h.log, h.events.egressRefused)
	if err != nil {
		return err
	}
	h.svcs = append(h.svcs, nw)
	h.egress = egress{nw}
	if nw != nil {
		// A fetched page is judged as a browser document is (gate.go).
		nw.SetJudge(h.judgeDocument)
	}
	if h.vision, err = newVision(cfg.Vision.Config, nw); err != nil {
		return &ConfigError{cfg.Source, err.Error()}
	}
	if !opts.NoBrowser {
		b, err := h.newBrowser()
		if err != nil {
			return err
		}
		if b != nil {
			h.svcs = append(h.svcs, b)
		}
	}
	// A desk without a console still asks the agent's client, where a
	// personality opts in: its approvals need no console to reach a person.
	h.console = opts.Operators
	if opts.Operators || clientAsks(cfg) {
		h.desk = operator.New(operator.Options{Logger: h.log, Emit: h.Emit, Browser: operatorBrowser(h.Browser()), Mask: h.mask.text})
		h.svcs = append(h.svcs, h.desk)
	}
	h.approve.cfg, h.approve.log, h.approve.desk, h.approve.browser = cfg, h.log, h.desk, h.Browser()
	v, err := newVault(cfg, h.log, h.svcs, h.secrets, h.Emit)
	if err != nil {
		return err
	}
	h.svcs = append(h.svcs, v)
	if vs, ok := v.(*vault.Service); ok {
		h.mask.vault = vs.Store()
	}
	// A personality that asks for approval reads the grants: their folder
	// must be known and private before the host starts, not at the first
	// call (where a failure would quietly make every call ask).
	for _, pn := range sortedKeys(cfg.Personalities) {
		if cfg.Personalities[pn].asks() {
			if _, err := h.Grants(); err != nil {
				return fmt.Errorf("personality %s asks for approval: %w", pn, err)
			}
			break
		}
	}
	return nil
}

// callStretch is how a tool call's deadline follows the machine's load:
// not at all unless the operator opted in with [host] stretch_with_load,
// and then as the browser's waits inside the call do (RATIONALE.md,
// "Timeouts mean what was written").
func callStretch(cfg *Config) func(time.Duration) time.Duration {
	if !cfg.Host.StretchWithLoad {
		return nil
	}
	return procfs.Stretched
}

// newEngine makes the sandbox engine the plugins run in, with the host
// functions funcs and the [host] limits.
func newEngine(cfg *Config, log *slog.Logger, funcs []sandbox.HostFunc) (*sandbox.Engine, error) {
	if err := os.MkdirAll(cfg.CacheDir(), 0o755); err != nil {
		return nil, fmt.Errorf("cache_dir: %w", err)
	}
	eng, err := sandbox.NewEngine(sandbox.Config{
		CacheDir:    cfg.CacheDir(),
		ShippedDir:  cfg.PluginsDir(),
		MemoryPages: uint32(cfg.Host.MemoryMB * 16),
		MemoryKey:   "host.memory_mb",
		Timeout:     cfg.Host.CallTimeout.Duration,
		Stretch:     callStretch(cfg),
		PoolSize:    cfg.Host.PoolSize,
		// A plugin's result or host request over this is refused with
		// resource_limit naming the key.
		MaxOutput:    cfg.Host.MaxOutputMB << 20,
		MaxOutputKey: "host.max_output_mb",
		MaxCalls:     cfg.Host.MaxCalls,
		MaxCallsKey:  "host.max_calls",
		// Every instance together: a call past it waits, then fails
		// resource_limit naming the key.
		MaxPluginMemory:    uint64(cfg.Host.MaxPluginMemoryMB) << 20,
		MaxPluginMemoryKey: "host.max_plugin_memory_mb",
		Logger:             log,
		HostFuncs:          funcs,
	})
	return eng, err
}

type discardSink struct{}

func (discardSink) Emit(hostfuncs.Event) error { return nil }

// Desk is the operator desk, or nil when no operator surface runs
// (Options.Operators).
func (h *Host) Desk() *operator.Desk { return h.desk }

// Grants is the store of origin-scoped act grants (host.grants_dir),
// opened on first use.
func (h *Host) Grants() (*operator.Grants, error) { return h.approve.store() }

// Config returns the host's configuration.
func (h *Host) Config() *Config { return h.cfg }

// Logger returns the host's logger.
func (h *Host) Logger() *slog.Logger { return h.log }

// Secrets is the per-session store of values the masker hides.
func (h *Host) Secrets() *hostfuncs.Secrets { return h.secrets }

// Emit writes an event to the host's sink.
func (h *Host) Emit(e hostfuncs.Event) { h.events.emit(e) }

// CloseSession frees a session in every service (the MCP session ended).
func (h *Host) CloseSession(personality, session string) error {
	var errs []error
	for _, s := range h.svcs {
		errs = append(errs, s.CloseSession(personality, session))
	}
	h.secrets.Forget(personality, session)
	if p, err := h.roster.get(personality); err == nil {
		h.baselines.forget(sessionKey{p.name, session})
	}
	return errors.Join(errs...)
}

// Close stops the watcher, closes every service (waiting for browsers to
// close), retires every plugin version and closes the engine. Closing a
// closed host returns what the first Close returned.
func (h *Host) Close(ctx context.Context) error {
	h.closeOnce.Do(func() {
		var errs []error
		if h.plugins != nil {
			h.plugins.StopWatching()
		}
		for _, s := range h.svcs {
			errs = append(errs, s.Close(ctx))
		}
		if h.plugins != nil {
			errs = append(errs, h.plugins.Close(ctx))
		}
		if h.eng != nil {
			errs = append(errs, h.eng.Close(ctx))
		}
		for _, c := range h.closers {
			errs = append(errs, c())
		}
		h.closeErr = errors.Join(errs...)
	})
	return h.closeErr
}

// NameSession records the name of the MCP client a session serves, for
// the operator console (nothing without an operator desk).
func (h *Host) NameSession(personality, session, client string) {
	if h.desk != nil {
		h.desk.NameSession(personality, session, client)
	}
}

// hostFuncs is every host function this host offers plugins: the kernel's
// own and each service's.
func (h *Host) hostFuncs() []sandbox.HostFunc {
	funcs := []sandbox.HostFunc{hostfuncs.Info(), hostfuncs.Events(h.events.sink), h.secrets.MaskValues()}
	if !h.console {
		// Plugins importing it still load; the tool is not offered (link).
		funcs = append(funcs, operator.Unavailable())
	}
	for _, s := range h.svcs {
		if d, ok := s.(*operator.Desk); ok && !h.console && d == h.desk {
			continue // no console: nobody would answer a takeover
		}
		funcs = append(funcs, s.HostFuncs()...)
	}
	return funcs
}
