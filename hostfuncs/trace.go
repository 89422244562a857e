package hostfuncs

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/wasmwright/wasmwright/abi"
)

// traced runs a host function in a span of its own under parent, the
// plugin call's span (host/trace.go): a trace shows which host functions a
// tool call spent its time in. Guard calls it only when the call is
// traced, so tracing off costs one context lookup.
func traced(ctx context.Context, parent trace.Span, name string, fn func(context.Context) ([]byte, error)) ([]byte, error) {
	ctx, sp := parent.TracerProvider().Tracer("github.com/wasmwright/wasmwright").Start(ctx, "host_function "+name)
	defer sp.End()
	out, err := fn(ctx)
	if err != nil {
		code := string(abi.AsError(err).Code)
		sp.SetAttributes(attribute.String("wasmwright.code", code))
		sp.SetStatus(codes.Error, code)
	}
	return out, err
}
