package host

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/wasmwright/wasmwright/abi"
	"github.com/wasmwright/wasmwright/host/telemetry"
)

// span starts a span of the tracing t ([telemetry], host/telemetry)
// under ctx's; end closes it with the call's outcome. Without tracing it
// returns ctx as it is and an end that does nothing: tracing off costs a
// nil check.
func span(t *telemetry.Tracing, ctx context.Context, name string, attrs ...attribute.KeyValue) (context.Context, func(error)) {
	if t == nil {
		return ctx, func(error) {}
	}
	ctx, sp := t.Tracer().Start(ctx, name, trace.WithAttributes(attrs...))
	return ctx, func(err error) {
		if err != nil {
			code := string(abi.AsError(err).Code)
			sp.SetAttributes(attribute.String("wasmwright.code", code))
			sp.SetStatus(codes.Error, code)
		}
		sp.End()
	}
}

// pluginSpanName names the span of one plugin invocation: a tool's call,
// or a result hook by its role.
func pluginSpanName(role abi.HookRole) string {
	if role == "" {
		return "plugin_call"
	}
	return "hook " + string(role)
}
