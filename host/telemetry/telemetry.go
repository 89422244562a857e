// Package telemetry is the host's tracing: OpenTelemetry spans per tool
// call, with the plugin calls, result hooks and host functions under it,
// exported over OTLP/HTTP to the collector [telemetry] otlp_endpoint
// names. Off by default, and then free: no exporter, no tracer, and the
// kernel's span helpers return at once (host/trace.go, hostfuncs.Guard).
package telemetry

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// Config is the [telemetry] table.
type Config struct {
	// OTLPEndpoint is the collector's OTLP/HTTP base URL
	// (http://collector:4318); spans are posted to its /v1/traces. Empty:
	// tracing is off. Headers (a collector's credentials) come from the
	// standard OTEL_EXPORTER_OTLP_HEADERS variable, or ${VAR} here.
	OTLPEndpoint string `toml:"otlp_endpoint"`
	// ServiceName is the spans' service.name. Default "wasmwright".
	ServiceName string `toml:"service_name"`
}

// Validate checks the endpoint is an http(s) URL.
func (c Config) Validate() error {
	if c.OTLPEndpoint == "" {
		return nil
	}
	u, err := url.Parse(c.OTLPEndpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("telemetry.otlp_endpoint = %q: give the collector's OTLP/HTTP URL, like \"http://otel-collector:4318\"", c.OTLPEndpoint)
	}
	return nil
}

// tracesURL is the endpoint with the OTLP traces path, as the standard
// OTEL_EXPORTER_OTLP_ENDPOINT is read: a base URL, /v1/traces appended.
func (c Config) tracesURL() string {
	u := strings.TrimSuffix(c.OTLPEndpoint, "/")
	if strings.HasSuffix(u, "/v1/traces") {
		return u
	}
	return u + "/v1/traces"
}

// Tracing is a running tracer with its exporter.
type Tracing struct {
	tp     *sdktrace.TracerProvider
	tracer trace.Tracer
}

// Start starts tracing as c says, or returns nil when it is off. The
// exporter connects lazily: a collector that is down costs dropped spans
// and a log line, never a failed call.
func Start(c Config) (*Tracing, error) {
	if c.OTLPEndpoint == "" {
		return nil, nil
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	exp, err := otlptracehttp.New(context.Background(), otlptracehttp.WithEndpointURL(c.tracesURL()))
	if err != nil {
		return nil, fmt.Errorf("telemetry: the OTLP exporter: %w", err)
	}
	name := c.ServiceName
	if name == "" {
		name = "wasmwright"
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp),
		sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", name))))
	return &Tracing{tp: tp, tracer: tp.Tracer("github.com/wasmwright/wasmwright")}, nil
}

// Tracer is the host's tracer.
func (t *Tracing) Tracer() trace.Tracer { return t.tracer }

// Shutdown exports the spans still batched and stops the exporter.
func (t *Tracing) Shutdown(ctx context.Context) error { return t.tp.Shutdown(ctx) }
