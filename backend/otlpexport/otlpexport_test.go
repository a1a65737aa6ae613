package otlpexport

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	"google.golang.org/grpc/codes"

	"checkpoint-explorer/backend/capture/capturetest"
	"checkpoint-explorer/backend/interop"
	"checkpoint-explorer/backend/model"
)

const (
	testToken  = "tok-s3cret-value"
	testAPIKey = "key-s3cret-value"
)

// knobJob is the first job of the bundled Flink 2.3 knob recording (per-subtask stats, failed
// checkpoints among them) and its checkpoints.
func knobJob(t *testing.T) (model.Job, []model.Checkpoint) {
	t.Helper()
	rec := capturetest.Read(t, capturetest.Sample("flink-knobs.ckpt.gz"))
	return rec.Jobs[0], rec.CheckpointsOf(rec.Jobs[0].ID)
}

func newExporter(t *testing.T, o Options) *Exporter {
	t.Helper()
	ex, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ex.Close(context.Background()) })
	return ex
}

// sentSpan is a span as the receiver got it, in the terms of interop.Span.
type sentSpan struct {
	trace, span, parent string
	name                string
	startNs, endNs      uint64
	attrs               string
}

func attrText(key string, isInt bool, i int64, s string) string {
	if isInt {
		return fmt.Sprintf("%s=%d", key, i)
	}
	return fmt.Sprintf("%s=%q", key, s)
}

func wantSpan(s interop.Span) sentSpan {
	out := sentSpan{trace: fmt.Sprintf("%x", s.TraceID), span: fmt.Sprintf("%x", s.SpanID), name: s.Name,
		startNs: uint64(s.StartMs) * 1e6, endNs: uint64(s.EndMs) * 1e6}
	if s.ParentID != ([8]byte{}) {
		out.parent = fmt.Sprintf("%x", s.ParentID)
	}
	var as []string
	for _, a := range s.Attrs {
		as = append(as, attrText(a.Key, a.IsInt, a.Int, a.Str))
	}
	out.attrs = strings.Join(as, " ")
	return out
}

func attrsOf(kvs []*commonpb.KeyValue) string {
	var as []string
	for _, kv := range kvs {
		_, isInt := kv.Value.Value.(*commonpb.AnyValue_IntValue)
		as = append(as, attrText(kv.Key, isInt, kv.Value.GetIntValue(), kv.Value.GetStringValue()))
	}
	return strings.Join(as, " ")
}

// Over HTTP and gRPC, every finished checkpoint goes out as interop.CheckpointSpans maps it, with
// its analysis's causes: its ids, parents, names, times (to the nanosecond of the millisecond) and attributes, under
// Flink's scope and the app's service; with the headers and the bearer token; in requests of at
// most BatchSize spans, whole checkpoints each unless one is wider than a batch. Sent again, the
// spans are the same. A checkpoint in progress is counted, not sent.
func TestExportSendsTheMapping(t *testing.T) {
	job, cps := knobJob(t)
	explained := analysisOf(t, job, cps, nil).Checkpoints
	running := cps[len(cps)-1]
	running.ID, running.Status, running.Tasks = running.ID+1, model.StatusInProgress, nil
	cps = append(cps, running)
	want := map[string]sentSpan{}
	var wantSent []model.Key
	for i := range cps {
		var attrs []interop.Attr
		for k := range explained {
			if explained[k].ID == cps[i].ID {
				attrs = explainedAttrs(&explained[k])
			}
		}
		spans := interop.CheckpointSpans(job, &cps[i], attrs...)
		for _, s := range spans {
			want[fmt.Sprintf("%x", s.SpanID)] = wantSpan(s)
		}
		if len(spans) > 0 {
			wantSent = append(wantSent, cps[i].Key())
		}
	}
	for protocol, rcv := range receivers(t, false) {
		for _, batch := range []int{DefaultBatchSize, 7} {
			t.Run(fmt.Sprintf("%s/batch %d", protocol, batch), func(t *testing.T) {
				ex := newExporter(t, Options{Endpoint: rcv.endpoint, Headers: map[string]string{"x-api-key": testAPIKey},
					BearerToken: testToken, BatchSize: batch})
				for round := 1; round <= 2; round++ {
					before, _ := rcv.got()
					res, err := ex.Export(context.Background(), job, cps, explained)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(res.Sent, wantSent) || res.Spans != len(want) || res.InProgress != 1 {
						t.Fatalf("round %d: sent %d checkpoints, %d spans, %d in progress; want %d, %d, 1", round, len(res.Sent), res.Spans,
							res.InProgress, len(wantSent), len(want))
					}
					requests, headers := rcv.got()
					checkRequests(t, requests[len(before):], headers[len(before):], want, batch)
				}
			})
		}
	}
}

// checkRequests holds what the receiver got to the spans wanted (by span id), each once.
func checkRequests(t *testing.T, requests []*coltracepb.ExportTraceServiceRequest, headers []map[string]string, want map[string]sentSpan, batch int) {
	t.Helper()
	got := map[string]sentSpan{}
	traceRequests := map[string]map[int]bool{}
	for i, req := range requests {
		if headers[i]["authorization"] != "Bearer "+testToken || headers[i]["x-api-key"] != testAPIKey {
			t.Fatalf("request %d: authorization %q, x-api-key %q", i, headers[i]["authorization"], headers[i]["x-api-key"])
		}
		n := 0
		for _, rs := range req.ResourceSpans {
			if s := attrsOf(rs.Resource.Attributes); s != `service.name="`+interop.ServiceName+`"` {
				t.Fatalf("resource %s", s)
			}
			for _, ss := range rs.ScopeSpans {
				if ss.Scope.Name != interop.FlinkSpanScope {
					t.Fatalf("scope %q", ss.Scope.Name)
				}
				for _, sp := range ss.Spans {
					n++
					s := sentSpan{trace: fmt.Sprintf("%x", sp.TraceId), span: fmt.Sprintf("%x", sp.SpanId), name: sp.Name,
						startNs: sp.StartTimeUnixNano, endNs: sp.EndTimeUnixNano, attrs: attrsOf(sp.Attributes)}
					if len(sp.ParentSpanId) > 0 {
						s.parent = fmt.Sprintf("%x", sp.ParentSpanId)
					}
					if _, dup := got[s.span]; dup {
						t.Fatalf("span %s sent twice in one export", s.span)
					}
					got[s.span] = s
					if traceRequests[s.trace] == nil {
						traceRequests[s.trace] = map[int]bool{}
					}
					traceRequests[s.trace][i] = true
				}
			}
		}
		if n > batch {
			t.Fatalf("request %d holds %d spans, more than the batch of %d", i, n, batch)
		}
	}
	for id, w := range want {
		if got[id] != w {
			t.Fatalf("span %s sent as\n%+v\nwant\n%+v", id, got[id], w)
		}
	}
	if len(got) != len(want) {
		t.Fatalf("%d spans sent, want %d", len(got), len(want))
	}
	perTrace := map[string]int{}
	for _, s := range want {
		perTrace[s.trace]++
	}
	for tr, reqs := range traceRequests {
		if len(reqs) > 1 && perTrace[tr] <= batch {
			t.Fatalf("trace %s (%d spans) split over %d requests with a batch of %d", tr, perTrace[tr], len(reqs), batch)
		}
	}
}

// The analysis's sink commit and causes are JSON attributes that read back as the analysis said
// (the 1.20 Iceberg job: commits sampled, causes of every completed checkpoint).
func TestAnalysisBecomesAttributes(t *testing.T) {
	rec := capturetest.Read(t, capturetest.Sample("flink120-iceberg.ckpt.gz"))
	job := rec.Jobs[0]
	ja := analysisOf(t, job, rec.CheckpointsOf(job.ID), rec.MetricSamples)
	commits, causes := 0, 0
	for i := range ja.Checkpoints {
		ca := &ja.Checkpoints[i]
		got := map[string]string{}
		for _, a := range explainedAttrs(ca) {
			got[a.Key] = a.Str
		}
		for _, c := range []struct {
			key   string
			want  any
			count *int
		}{{AttrCommit, ca.Commit, &commits}, {AttrCauses, ca.Causes, &causes}} {
			if s, ok := got[c.key]; ok {
				*c.count++
				if s != jsonText(c.want) {
					t.Errorf("checkpoint %d: %s %s, want %s", ca.ID, c.key, s, jsonText(c.want))
				}
			} else if w := jsonText(c.want); w != "null" && w != "[]" {
				t.Errorf("checkpoint %d: no %s, want %s", ca.ID, c.key, w)
			}
		}
	}
	if commits == 0 || causes == 0 || explainedAttrs(nil) != nil {
		t.Fatalf("%d checkpoints with a commit, %d with causes: the sample proves nothing", commits, causes)
	}
}

// An endpoint that refuses, echoing what it was sent: the error names the endpoint and the
// batch, never the token or a header's value, and nothing counts as sent. Endpoints holding
// credentials are refused without echoing them; a cancelled export says so to errors.Is.
func TestErrorsNameTheEndpointNeverACredential(t *testing.T) {
	job, cps := knobJob(t)
	secrets := []string{testToken, testAPIKey, "pw-s3cret-value", "q-s3cret-value"}
	check := func(what string, err error, mustHave ...string) {
		t.Helper()
		if err == nil {
			t.Fatalf("%s: no error", what)
		}
		for _, s := range secrets {
			if strings.Contains(err.Error(), s) {
				t.Errorf("%s: the error holds a credential: %v", what, err)
			}
		}
		for _, s := range mustHave {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: %v; want it to say %q", what, err, s)
			}
		}
	}
	for protocol, rcv := range receivers(t, true) {
		ex := newExporter(t, Options{Endpoint: rcv.endpoint, Headers: map[string]string{"x-api-key": testAPIKey}, BearerToken: testToken})
		res, err := ex.Export(context.Background(), job, cps, nil)
		var e *Error
		if !errors.As(err, &e) || e.Endpoint != ex.Endpoint() || len(res.Sent) != 0 || res.Spans != 0 {
			t.Fatalf("%s: %v (%T), sent %+v; want an *Error naming %s and nothing sent", protocol, err, err, res, ex.Endpoint())
		}
		check(string(protocol), err, "otlpexport: send ", ex.Endpoint(), "***")

		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := ex.Export(ctx, job, cps, nil); !errors.Is(err, context.Canceled) {
			t.Errorf("%s: a cancelled export: %v; want context.Canceled", protocol, err)
		}
	}
	for _, endpoint := range []string{"http://user:pw-s3cret-value@jaeger:4318", "https://jaeger:4318/v1/traces?api_key=q-s3cret-value",
		"grpc://jaeger:4317/#q-s3cret-value"} {
		_, err := New(context.Background(), Options{Endpoint: endpoint})
		check(endpoint, err, "otlpexport: endpoint must not")
	}
}

// An endpoint refusing the requests that hold one checkpoint's spans: over HTTP and gRPC the
// *Error says what the answer means (the content refused for good; a configuration to fix; a
// passing trouble) and which checkpoints the request held; sent alone, the checkpoint is refused
// alone and the others are taken. Taken with spans rejected (an OTLP partial success), the
// request counts as sent, with the rejected spans and the endpoint's reason.
func TestRefusalsSayWhatToDo(t *testing.T) {
	job, cps := knobJob(t)
	const batch = 100 // 5 checkpoints of 19 spans per request
	bad := 12         // in the third request, with checkpoints 10 to 14
	badTrace := interop.CheckpointSpans(job, &cps[bad])[0].TraceID
	holdsBad := func(req *coltracepb.ExportTraceServiceRequest) bool {
		for _, rs := range req.ResourceSpans {
			for _, ss := range rs.ScopeSpans {
				for _, sp := range ss.Spans {
					if bytes.Equal(sp.TraceId, badTrace[:]) {
						return true
					}
				}
			}
		}
		return false
	}
	keys := func(cps []model.Checkpoint) []model.Key {
		out := make([]model.Key, len(cps))
		for i := range cps {
			out[i] = cps[i].Key()
		}
		return out
	}
	others := append(slices.Clone(cps[:bad]), cps[bad+1:]...)
	for _, c := range []struct {
		name    string
		answer  verdict
		refusal Refusal
		says    map[Protocol]string
	}{
		{"content", verdict{http: http.StatusBadRequest, grpc: codes.InvalidArgument, msg: "span too large"}, Unacceptable,
			map[Protocol]string{ProtocolHTTP: "HTTP 400 Bad Request, the endpoint refuses this content for good",
				ProtocolGRPC: "gRPC InvalidArgument, the endpoint refuses this content for good"}},
		// gRPC's own server answers a message over its size limit so.
		{"size", verdict{http: http.StatusRequestEntityTooLarge, grpc: codes.ResourceExhausted, msg: "grpc: received message larger than max (5242880 vs. 4194304)"}, Unacceptable,
			map[Protocol]string{ProtocolHTTP: "HTTP 413 Request Entity Too Large, the endpoint refuses",
				ProtocolGRPC: "gRPC ResourceExhausted, the endpoint refuses this content for good"}},
		// A quota: sent again later (the HTTP side as "failure": a 429 would be retried by the SDK for 20 s).
		{"overloaded", verdict{http: http.StatusInternalServerError, grpc: codes.ResourceExhausted, msg: "quota exceeded"}, Transient, nil},
		{"credentials", verdict{http: http.StatusUnauthorized, grpc: codes.Unauthenticated}, Misconfigured,
			map[Protocol]string{ProtocolHTTP: "HTTP 401 Unauthorized, a configuration problem: fix the endpoint's URL, protocol or credentials",
				ProtocolGRPC: "gRPC Unauthenticated, a configuration problem"}},
		{"path", verdict{http: http.StatusNotFound, grpc: codes.Unimplemented}, Misconfigured,
			map[Protocol]string{ProtocolHTTP: "HTTP 404 Not Found, a configuration problem", ProtocolGRPC: "gRPC Unimplemented, a configuration problem"}},
		{"failure", verdict{http: http.StatusInternalServerError, grpc: codes.Internal}, Transient, nil},
	} {
		for protocol, rcv := range receivers(t, false) {
			t.Run(c.name+"/"+string(protocol), func(t *testing.T) {
				rcv.answerWhen(holdsBad, c.answer)
				ex := newExporter(t, Options{Endpoint: rcv.endpoint, BatchSize: batch})
				res, err := ex.Export(context.Background(), job, cps, nil)
				var e *Error
				if !errors.As(err, &e) || e.Refusal != c.refusal || e.RefusedForGood() != (c.refusal == Unacceptable) {
					t.Fatalf("%v (%T); want an *Error, %s", err, err, c.refusal)
				}
				if want := keys(cps[10:15]); !slices.Equal(e.Checkpoints, want) || !slices.Equal(res.Sent, keys(cps[:10])) {
					t.Errorf("the refused request held %v, want %v; sent %v, want the 10 before", e.Checkpoints, want, res.Sent)
				}
				if says := c.says[protocol]; !strings.Contains(err.Error(), says) {
					t.Errorf("%v\nwant it to say %q", err, says)
				}
				if _, err := ex.Export(context.Background(), job, cps[bad:bad+1], nil); !errors.As(err, &e) ||
					!slices.Equal(e.Checkpoints, keys(cps[bad:bad+1])) || e.Refusal != c.refusal {
					t.Errorf("checkpoint %d alone: %v; want it refused alone", cps[bad].ID, err)
				}
				if res, err := ex.Export(context.Background(), job, others, nil); err != nil || !slices.Equal(res.Sent, keys(others)) {
					t.Errorf("the others: %v, sent %d of %d", err, len(res.Sent), len(others))
				}
			})
		}
	}
	for protocol, rcv := range receivers(t, false) {
		rcv.answerWhen(holdsBad, verdict{rejected: 3, msg: "attribute value too long"})
		ex := newExporter(t, Options{Endpoint: rcv.endpoint, BatchSize: batch})
		res, err := ex.Export(context.Background(), job, cps, nil)
		if err != nil || !slices.Equal(res.Sent, keys(cps)) || res.Rejected != 3 || res.Spans != 19*len(cps)-3 ||
			!strings.Contains(res.RejectedWhy, "attribute value too long") {
			t.Errorf("%s: a partial success: %v, sent %d of %d, %d spans, rejected %d (%q); want all sent, 3 rejected",
				protocol, err, len(res.Sent), len(cps), res.Spans, res.Rejected, res.RejectedWhy)
		}
	}
}

// Endpoints: the scheme picks the protocol and TLS unless Protocol says; OTLP/HTTP goes to
// /v1/traces unless the URL names a path; what errors show is scheme, host and path.
func TestEndpoints(t *testing.T) {
	for _, c := range []struct {
		raw      string
		protocol Protocol
		want     endpoint // shown "" when an error is wanted
		err      string
	}{
		{raw: "http://jaeger:4318", want: endpoint{ProtocolHTTP, "jaeger:4318", "/v1/traces", false, "http://jaeger:4318/v1/traces"}},
		{raw: "https://otel.example.com/otlp/v1/traces", want: endpoint{ProtocolHTTP, "otel.example.com", "/otlp/v1/traces", true, "https://otel.example.com/otlp/v1/traces"}},
		{raw: "grpc://jaeger:4317", want: endpoint{ProtocolGRPC, "jaeger:4317", "", false, "grpc://jaeger:4317"}},
		{raw: "grpcs://jaeger:4317/", want: endpoint{ProtocolGRPC, "jaeger:4317", "", true, "grpcs://jaeger:4317"}},
		{raw: "http://jaeger:4317", protocol: ProtocolGRPC, want: endpoint{ProtocolGRPC, "jaeger:4317", "", false, "http://jaeger:4317"}},
		{raw: "https://jaeger:4317", protocol: ProtocolGRPC, want: endpoint{ProtocolGRPC, "jaeger:4317", "", true, "https://jaeger:4317"}},
		{raw: "", err: "no endpoint"},
		{raw: "jaeger:4318", err: `scheme "jaeger"`},
		{raw: "ftp://jaeger", err: `scheme "ftp"`},
		{raw: "http:///v1/traces", err: "no host"},
		{raw: "grpc://jaeger:4317/v1/traces", err: "has no path"},
		{raw: "grpc://jaeger:4317", protocol: ProtocolHTTP, err: "want http:// or https://"},
		{raw: "http://jaeger:4318", protocol: "thrift", err: `protocol "thrift"`},
	} {
		got, err := parseEndpoint(c.raw, c.protocol)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q (%s): %v; want an error saying %q", c.raw, c.protocol, err, c.err)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%q (%s): %+v, %v; want %+v", c.raw, c.protocol, got, err, c.want)
		}
	}
	for _, o := range []Options{{Endpoint: "http://jaeger:4318", CAFile: "ca.pem"}, {Endpoint: "grpc://jaeger:4317", InsecureSkipVerify: true},
		{Endpoint: "http://jaeger:4318", BatchSize: MaxBatchSize + 1}, {Endpoint: "http://jaeger:4318", Timeout: -1}} {
		if _, err := New(context.Background(), o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}
