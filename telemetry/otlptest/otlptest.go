// Package otlptest is an in-process OTLP/HTTP receiver for tests: it
// decodes the protobuf export requests the OpenTelemetry exporters send and
// keeps the spans and metric points, so a test can check what a backend
// would see.
package otlptest

import (
	"compress/gzip"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/todoaudit/todo/telemetry"

	collmetrics "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	colltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	common "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/protobuf/proto"
)

// Span is one received span, ids in lower-case hex.
type Span struct {
	Service      string // the resource's service.name
	Name         string
	TraceID      string
	SpanID       string
	ParentSpanID string // "" for a root span
	Kind         string
	Attrs        map[string]any
	Links        []Link
	StatusCode   string
	StatusText   string
}

// Link is a span's link to another span.
type Link struct {
	TraceID, SpanID string
	Attrs           map[string]any
}

// Point is one received metric data point: a sum's or gauge's value, or a
// histogram's count.
type Point struct {
	Metric string
	Attrs  map[string]any
	Value  float64
}

// Receiver collects what the exporters send.
type Receiver struct {
	// URL is the base endpoint, for OTEL_EXPORTER_OTLP_ENDPOINT.
	URL string

	mu     sync.Mutex
	spans  []Span
	points []Point
}

// Start runs a receiver on 127.0.0.1 until the test ends.
func Start(t testing.TB) *Receiver {
	t.Helper()
	if !telemetry.Exports {
		t.Skip("this build has no OTLP exporters to send to a receiver: test with -tags otlp, as make test does")
	}
	r := &Receiver{}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	t.Cleanup(srv.Close)
	r.URL = srv.URL
	return r
}

func (r *Receiver) serve(w http.ResponseWriter, req *http.Request) {
	body, err := readBody(req)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var resp proto.Message
	switch req.URL.Path {
	case "/v1/traces":
		var m colltrace.ExportTraceServiceRequest
		if err = proto.Unmarshal(body, &m); err == nil {
			r.addSpans(&m)
		}
		resp = &colltrace.ExportTraceServiceResponse{}
	case "/v1/metrics":
		var m collmetrics.ExportMetricsServiceRequest
		if err = proto.Unmarshal(body, &m); err == nil {
			r.addPoints(&m)
		}
		resp = &collmetrics.ExportMetricsServiceResponse{}
	default:
		http.NotFound(w, req)
		return
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	out, _ := proto.Marshal(resp)
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func readBody(req *http.Request) ([]byte, error) {
	if req.Method != http.MethodPost || req.Header.Get("Content-Type") != "application/x-protobuf" {
		return nil, fmt.Errorf("want a POST of application/x-protobuf, got %s of %q", req.Method, req.Header.Get("Content-Type"))
	}
	var body io.Reader = req.Body
	if req.Header.Get("Content-Encoding") == "gzip" {
		z, err := gzip.NewReader(req.Body)
		if err != nil {
			return nil, err
		}
		body = z
	}
	return io.ReadAll(io.LimitReader(body, 32<<20))
}

func (r *Receiver) addSpans(m *colltrace.ExportTraceServiceRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rs := range m.GetResourceSpans() {
		service, _ := attrs(rs.GetResource().GetAttributes())["service.name"].(string)
		for _, ss := range rs.GetScopeSpans() {
			for _, s := range ss.GetSpans() {
				sp := Span{
					Service: service, Name: s.GetName(),
					TraceID: hex.EncodeToString(s.GetTraceId()), SpanID: hex.EncodeToString(s.GetSpanId()),
					ParentSpanID: hex.EncodeToString(s.GetParentSpanId()),
					Kind:         strings.TrimPrefix(s.GetKind().String(), "SPAN_KIND_"),
					Attrs:        attrs(s.GetAttributes()),
					StatusCode:   strings.TrimPrefix(s.GetStatus().GetCode().String(), "STATUS_CODE_"),
					StatusText:   s.GetStatus().GetMessage(),
				}
				for _, l := range s.GetLinks() {
					sp.Links = append(sp.Links, Link{TraceID: hex.EncodeToString(l.GetTraceId()),
						SpanID: hex.EncodeToString(l.GetSpanId()), Attrs: attrs(l.GetAttributes())})
				}
				r.spans = append(r.spans, sp)
			}
		}
	}
}

func (r *Receiver) addPoints(m *collmetrics.ExportMetricsServiceRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, rm := range m.GetResourceMetrics() {
		for _, sm := range rm.GetScopeMetrics() {
			for _, mt := range sm.GetMetrics() {
				for _, p := range mt.GetSum().GetDataPoints() {
					r.points = append(r.points, Point{mt.GetName(), attrs(p.GetAttributes()), p.GetAsDouble() + float64(p.GetAsInt())})
				}
				for _, p := range mt.GetGauge().GetDataPoints() {
					r.points = append(r.points, Point{mt.GetName(), attrs(p.GetAttributes()), p.GetAsDouble() + float64(p.GetAsInt())})
				}
				for _, p := range mt.GetHistogram().GetDataPoints() {
					r.points = append(r.points, Point{mt.GetName(), attrs(p.GetAttributes()), float64(p.GetCount())})
				}
			}
		}
	}
}

func attrs(kvs []*common.KeyValue) map[string]any {
	out := make(map[string]any, len(kvs))
	for _, kv := range kvs {
		v := kv.GetValue()
		switch v.GetValue().(type) {
		case *common.AnyValue_StringValue:
			out[kv.GetKey()] = v.GetStringValue()
		case *common.AnyValue_IntValue:
			out[kv.GetKey()] = v.GetIntValue()
		case *common.AnyValue_DoubleValue:
			out[kv.GetKey()] = v.GetDoubleValue()
		case *common.AnyValue_BoolValue:
			out[kv.GetKey()] = v.GetBoolValue()
		default:
			out[kv.GetKey()] = v.String()
		}
	}
	return out
}

// Spans returns the spans received so far.
func (r *Receiver) Spans() []Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Span(nil), r.spans...)
}

// Points returns the metric points received so far.
func (r *Receiver) Points() []Point {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Point(nil), r.points...)
}

// WaitSpans polls until match holds for the spans received, or fails the
// test after timeout.
func (r *Receiver) WaitSpans(t testing.TB, timeout time.Duration, what string, match func([]Span) bool) []Span {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		spans := r.Spans()
		if match(spans) {
			return spans
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s within %v; received %d spans:\n%s", what, timeout, len(spans), Format(spans))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// Format lists spans one a line: name, ids, parent, attributes and links.
func Format(spans []Span) string {
	var b strings.Builder
	for _, s := range spans {
		fmt.Fprintf(&b, "%s trace=%s span=%s parent=%s kind=%s status=%s %v", s.Name, s.TraceID, s.SpanID, s.ParentSpanID, s.Kind, s.StatusCode, s.Attrs)
		for _, l := range s.Links {
			fmt.Fprintf(&b, " link(trace=%s span=%s %v)", l.TraceID, l.SpanID, l.Attrs)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
