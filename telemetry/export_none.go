//go:build !otlp

package telemetry

import (
	"context"
	"errors"

	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// Exports says whether this build links the OTLP exporters.
const Exports = false

var errNoExporters = errors.New("OTEL_EXPORTER_OTLP_ENDPOINT: this handler was built without the OTLP exporters; build it with -tags otlp (make stage does, and make run OTLP=1)")

func traceExporter(context.Context, string) (sdktrace.SpanExporter, error) {
	return nil, errNoExporters
}

func metricExporter(context.Context, string) (sdkmetric.Exporter, error) {
	return nil, errNoExporters
}
