package telemetry

import (
	"context"
	"errors"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Metric names, as a backend lists them.
const (
	MetricRequests        = "todoaudit.requests"
	MetricDuration        = "todoaudit.request.duration"
	MetricRequestUnits    = "todoaudit.request_units"
	MetricAuditLag        = "todoaudit.audit.lag"
	MetricPumpBacklog     = "todoaudit.audit.pump.backlog"
	MetricDeadLetters     = "todoaudit.audit.dead_letters"
	MetricWitnessRefusals = "todoaudit.log.witness_refusals"
)

// Metrics are the handler's instruments. The zero value (and nil) records
// nothing, so code records unconditionally and pays only when exporting.
type Metrics struct {
	requests    metric.Int64Counter
	duration    metric.Float64Histogram
	ru          metric.Float64Counter
	auditLag    metric.Float64Histogram
	backlog     metric.Int64Gauge
	deadLetters metric.Int64Counter
	refusals    metric.Int64Counter
}

func newMetrics(m metric.Meter) (*Metrics, error) {
	var ms Metrics
	var errs [7]error
	ms.requests, errs[0] = m.Int64Counter(MetricRequests, metric.WithUnit("{request}"),
		metric.WithDescription("Requests and payload invocations served, by function and status."))
	ms.duration, errs[1] = m.Float64Histogram(MetricDuration, metric.WithUnit("s"),
		metric.WithDescription("Time to serve a request or payload invocation, by function and status."))
	ms.ru, errs[2] = m.Float64Counter(MetricRequestUnits, metric.WithUnit("{RU}"),
		metric.WithDescription("Request units consumed by store calls, by function and container."))
	ms.auditLag, errs[3] = m.Float64Histogram(MetricAuditLag, metric.WithUnit("s"),
		metric.WithDescription("Time from a write to its audit record being built."))
	ms.backlog, errs[4] = m.Int64Gauge(MetricPumpBacklog, metric.WithUnit("{document}"),
		metric.WithDescription("Changes the standalone audit pump has read but not yet checkpointed."))
	ms.deadLetters, errs[5] = m.Int64Counter(MetricDeadLetters, metric.WithUnit("{document}"),
		metric.WithDescription("Change-feed documents that could not be audited and were dead-lettered."))
	ms.refusals, errs[6] = m.Int64Counter(MetricWitnessRefusals, metric.WithUnit("{checkpoint}"),
		metric.WithDescription("Checkpoints a witness refused as inconsistent with the tree it cosigned, by witness."))
	return &ms, errors.Join(errs[:]...)
}

func (m *Metrics) on() bool { return m != nil && m.requests != nil }

// Request records one served request or invocation.
func (m *Metrics) Request(ctx context.Context, function string, status int, d time.Duration) {
	if !m.on() {
		return
	}
	set := metric.WithAttributeSet(attribute.NewSet(attribute.String("function", function), attribute.Int("status", status)))
	m.requests.Add(ctx, 1, set)
	m.duration.Record(ctx, d.Seconds(), set)
}

// RequestUnits records what one store call cost, attributed to the
// function serving the call (from ctx) and the container.
func (m *Metrics) RequestUnits(ctx context.Context, container string, charge float64) {
	if !m.on() || charge <= 0 {
		return
	}
	function := ""
	if c := CallOf(ctx); c != nil {
		function = c.Function
	}
	m.ru.Add(ctx, charge, metric.WithAttributes(attribute.String("function", function), attribute.String("container", container)))
}

// AuditLag records how long after its write an audit record was built.
func (m *Metrics) AuditLag(ctx context.Context, d time.Duration) {
	if m.on() {
		m.auditLag.Record(ctx, d.Seconds())
	}
}

// PumpBacklog records how many changes the pump holds unsaved.
func (m *Metrics) PumpBacklog(ctx context.Context, n int) {
	if m.on() {
		m.backlog.Record(ctx, int64(n))
	}
}

// DeadLetters counts documents set aside as dead letters.
func (m *Metrics) DeadLetters(ctx context.Context, n int) {
	if m.on() && n > 0 {
		m.deadLetters.Add(ctx, int64(n))
	}
}

// WitnessRefused counts a checkpoint a witness refused as inconsistent
// with the tree it had cosigned: a split view or a rollback of the log.
func (m *Metrics) WitnessRefused(ctx context.Context, witness string) {
	if m.on() {
		m.refusals.Add(ctx, 1, metric.WithAttributes(attribute.String("witness", witness)))
	}
}
