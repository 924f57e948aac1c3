package gateway

import (
	"cmp"
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/mcphost/mcphost/host"
	"github.com/mcphost/mcphost/internal/buildinfo"
)

// NewOTLPTracer exports traces over OTLP/HTTP to endpoint (host:port, or
// a URL): one span per call through the gateway and one per pipeline
// stage inside it, from a service of that version ("": the mcphost
// module's). shutdown flushes and stops the exporter.
func NewOTLPTracer(ctx context.Context, endpoint, version string) (trace.Tracer, func(context.Context) error, error) {
	opts := []otlptracehttp.Option{}
	if len(endpoint) > 7 && (endpoint[:7] == "http://" || len(endpoint) > 8 && endpoint[:8] == "https://") {
		opts = append(opts, otlptracehttp.WithEndpointURL(endpoint))
	} else {
		opts = append(opts, otlptracehttp.WithEndpoint(endpoint))
	}
	exp, err := otlptracehttp.New(ctx, opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("gateway: OTLP exporter: %w", err)
	}
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp),
		sdktrace.WithResource(resource.NewSchemaless(semconv.ServiceName("mcphost"), semconv.ServiceVersion(cmp.Or(version, buildinfo.ModuleVersion())))),
	)
	return tp.Tracer("github.com/mcphost/mcphost/host/gateway"), tp.Shutdown, nil
}

// StageSpans is a host.WithStageObserver callback: each stage decision
// becomes a span in its call's trace, timed from the decision's duration.
func (g *Gateway) StageSpans(ctx context.Context, e host.AuditEvent) {
	if g.trace == nil || !trace.SpanFromContext(ctx).SpanContext().IsValid() {
		return
	}
	end := time.Now()
	_, span := g.trace.Start(ctx, "stage "+e.Stage+" "+string(e.Hook), trace.WithTimestamp(end.Add(-e.Duration)),
		trace.WithAttributes(
			attribute.String("mcphost.stage", e.Stage), attribute.String("mcphost.hook", string(e.Hook)),
			attribute.String("mcphost.server", e.Server), attribute.String("mcphost.tool", e.Tool),
			attribute.String("mcphost.outcome", e.Outcome), attribute.Bool("mcphost.shadow", e.Shadow)))
	if e.Err != "" {
		span.SetStatus(codes.Error, e.Err)
	}
	span.End(trace.WithTimestamp(end))
}
