package observe

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"os"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
	"google.golang.org/grpc"
	"google.golang.org/grpc/stats"
)

// Tracing is where a process's traces go: nowhere (the zero value, and a nil *Tracing, trace nothing), or
// a tracer provider. Spans start where a call is served (the server's stats handler, which continues a
// caller's W3C traceparent) and end at the calls to Dgraph made for it (the client's stats handler).
// Only calls to Dgraph made within a span are traced: the health checks' pings are not.
type Tracing struct {
	provider trace.TracerProvider
	shutdown func(context.Context) error
}

// ServiceName is the service.name of polgraph's spans, unless $OTEL_SERVICE_NAME or
// $OTEL_RESOURCE_ATTRIBUTES says otherwise.
const ServiceName = "polgraph"

// StartTracing turns tracing on when endpoint is set, or else when the standard
// $OTEL_EXPORTER_OTLP_ENDPOINT or $OTEL_EXPORTER_OTLP_TRACES_ENDPOINT is (then the exporter reads its
// settings from the environment, as OpenTelemetry specifies): spans go in batches, over OTLP/gRPC, to a
// collector. Otherwise it returns a Tracing that traces nothing. Shutdown flushes what is left.
//
// endpoint is HOST:PORT (plaintext when HOST is loopback, TLS otherwise) or a URL, http://HOST:PORT
// (plaintext) or https://HOST:PORT.
func StartTracing(ctx context.Context, endpoint string) (*Tracing, error) {
	var opts []otlptracegrpc.Option
	switch {
	case endpoint != "":
		o, err := endpointOptions(endpoint)
		if err != nil {
			return nil, err
		}
		opts = o
	case os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") == "" && os.Getenv("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") == "":
		return &Tracing{}, nil
	}
	exp, err := otlptracegrpc.New(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("the OTLP trace exporter: %w", err)
	}
	res, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", ServiceName)),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		return nil, fmt.Errorf("the tracing resource: %w", err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return &Tracing{provider: tp, shutdown: tp.Shutdown}, nil
}

// CheckOTLPEndpoint reports whether endpoint is one StartTracing takes.
func CheckOTLPEndpoint(endpoint string) error {
	_, err := endpointOptions(endpoint)
	return err
}

func endpointOptions(endpoint string) ([]otlptracegrpc.Option, error) {
	bad := func(why string) error {
		return fmt.Errorf("OTLP endpoint %q: %s; want HOST:PORT, http://HOST:PORT or https://HOST:PORT", endpoint, why)
	}
	if u, err := url.Parse(endpoint); err == nil && (u.Scheme == "http" || u.Scheme == "https") {
		if u.Host == "" {
			return nil, bad("no host")
		}
		return []otlptracegrpc.Option{otlptracegrpc.WithEndpointURL(endpoint)}, nil
	}
	host, port, err := net.SplitHostPort(endpoint)
	if err != nil || port == "" {
		return nil, bad("no port")
	}
	opts := []otlptracegrpc.Option{otlptracegrpc.WithEndpoint(endpoint)}
	if ip := net.ParseIP(host); host == "localhost" || (ip != nil && ip.IsLoopback()) {
		opts = append(opts, otlptracegrpc.WithInsecure())
	}
	return opts, nil
}

// TracingTo traces through a provider the caller made and shuts down (tests give one that keeps spans
// in memory).
func TracingTo(tp trace.TracerProvider) *Tracing { return &Tracing{provider: tp} }

// On reports whether spans go anywhere.
func (t *Tracing) On() bool { return t != nil && t.provider != nil }

// Tracer is polgraph's own tracer, for spans around work that is not a call served (a load, the fill of
// the in-memory graph); a no-op one when tracing is off.
func (t *Tracing) Tracer() trace.Tracer {
	if !t.On() {
		return tracenoop.NewTracerProvider().Tracer(ServiceName)
	}
	return t.provider.Tracer(ServiceName)
}

// ServerOptions trace the calls a gRPC server serves; none when tracing is off.
func (t *Tracing) ServerOptions() []grpc.ServerOption {
	if !t.On() {
		return nil
	}
	return []grpc.ServerOption{grpc.StatsHandler(otelgrpc.NewServerHandler(t.otelOptions()...))}
}

// DialOptions trace the calls made on a client connection within a span (for the connection to Dgraph);
// none when tracing is off.
func (t *Tracing) DialOptions() []grpc.DialOption {
	if !t.On() {
		return nil
	}
	return []grpc.DialOption{grpc.WithStatsHandler(childSpansOnly{otelgrpc.NewClientHandler(t.otelOptions()...)})}
}

func (t *Tracing) otelOptions() []otelgrpc.Option {
	return []otelgrpc.Option{otelgrpc.WithTracerProvider(t.provider),
		otelgrpc.WithPropagators(propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})),
		otelgrpc.WithMeterProvider(metricnoop.NewMeterProvider())} // metrics are Prometheus's
}

// Shutdown flushes the spans not yet exported and stops the exporter.
func (t *Tracing) Shutdown(ctx context.Context) error {
	if t == nil || t.shutdown == nil {
		return nil
	}
	return t.shutdown(ctx)
}

// childSpansOnly passes to a client stats handler only the calls made within a span, so that calls made
// on their own (the health checks' pings every few seconds) do not each start a trace.
type childSpansOnly struct{ stats.Handler }

type untracedKey struct{}

func (c childSpansOnly) TagRPC(ctx context.Context, info *stats.RPCTagInfo) context.Context {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return context.WithValue(ctx, untracedKey{}, true)
	}
	return c.Handler.TagRPC(ctx, info)
}

func (c childSpansOnly) HandleRPC(ctx context.Context, s stats.RPCStats) {
	if ctx.Value(untracedKey{}) != nil {
		return
	}
	c.Handler.HandleRPC(ctx, s)
}
