package cosmos

import (
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/tracing"
	"github.com/Azure/azure-sdk-for-go/sdk/tracing/azotel"
	"go.opentelemetry.io/otel/trace"
)

// tracingProvider adapts an OpenTelemetry tracer provider for the SDK,
// which then makes a client span of every operation ("read_item todos",
// with db.cosmosdb.request_charge) under the span in the call's context.
func tracingProvider(tp trace.TracerProvider) tracing.Provider {
	return azotel.NewTracingProvider(tp, nil)
}
