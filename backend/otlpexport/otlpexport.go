// Package otlpexport sends stored checkpoints as spans to an OTLP endpoint (Jaeger, an
// OpenTelemetry Collector, any OTLP backend), over HTTP or gRPC, through the OpenTelemetry Go
// SDK's exporters (otlptracehttp, otlptracegrpc). The spans are interop.CheckpointSpans: Flink's
// names and attributes, so the traces source (backend/source/jaeger) reads them back as it reads
// Flink's own. Their trace and span ids derive from the cluster, job, pipeline and checkpoint id
// (and vertex and subtask), so sending a checkpoint again sends the same spans, which readers
// see once (docs/interop.md, "Sending to an OTLP endpoint").
//
// An Exporter keeps no state but the SDK exporter's connection: no queue, no spool, no retries
// beyond the SDK's own within Options.Timeout. What was accepted is in Result.Sent; a refusal is
// an *Error saying whether the endpoint refused the content for good, or its configuration is
// wrong, or it may take the batch later (Refusal).
package otlpexport

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"

	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/interop"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/restclient"
)

// Exporter sends checkpoints to one endpoint. It is safe for concurrent use.
type Exporter struct {
	opts    Options
	ep      endpoint
	secrets restclient.Secrets
	sdk     sdktrace.SpanExporter
	res     *resource.Resource
}

// retryConfig is the SDK exporters' RetryConfig (one type per exporter, the same fields).
type retryConfig struct {
	Enabled                                      bool
	InitialInterval, MaxInterval, MaxElapsedTime time.Duration
}

// New checks o and builds the exporter. It does not contact the endpoint (gRPC connects on the
// first Export).
func New(ctx context.Context, o Options) (*Exporter, error) {
	o, err := o.withDefaults()
	if err != nil {
		return nil, fmt.Errorf("otlpexport: %w", err)
	}
	ep, err := parseEndpoint(o.Endpoint, o.Protocol)
	if err != nil {
		return nil, fmt.Errorf("otlpexport: %w", err)
	}
	tlsCfg, err := o.tlsConfig(ep)
	if err != nil {
		return nil, fmt.Errorf("otlpexport: %w", err)
	}
	headers, secrets := o.headers()
	// The SDK retries what the endpoint says is transient (503, 429, UNAVAILABLE) within the
	// batch's Timeout.
	retry := retryConfig{Enabled: true, InitialInterval: 500 * time.Millisecond, MaxInterval: 5 * time.Second, MaxElapsedTime: o.Timeout}
	var sdk sdktrace.SpanExporter
	switch ep.protocol {
	case ProtocolHTTP:
		// The client carries the TLS and the timeout (WithHTTPClient overrides WithTLSClientConfig
		// and WithTimeout) and notes each answer's status: the SDK tells a refusal only in text.
		opts := []otlptracehttp.Option{otlptracehttp.WithEndpoint(ep.hostPort), otlptracehttp.WithURLPath(ep.path),
			otlptracehttp.WithHeaders(headers), otlptracehttp.WithHTTPClient(httpClient(tlsCfg, o.Timeout)),
			otlptracehttp.WithRetry(otlptracehttp.RetryConfig(retry))}
		if tlsCfg == nil {
			opts = append(opts, otlptracehttp.WithInsecure())
		}
		sdk, err = otlptracehttp.New(ctx, opts...)
	default:
		opts := []otlptracegrpc.Option{otlptracegrpc.WithEndpoint(ep.hostPort),
			otlptracegrpc.WithHeaders(headers), otlptracegrpc.WithTimeout(o.Timeout), otlptracegrpc.WithRetry(otlptracegrpc.RetryConfig(retry)),
			otlptracegrpc.WithDialOption(grpc.WithChainUnaryInterceptor(noteGRPCAnswer))}
		if tlsCfg == nil {
			opts = append(opts, otlptracegrpc.WithInsecure())
		} else {
			opts = append(opts, otlptracegrpc.WithTLSCredentials(credentials.NewTLS(tlsCfg)))
		}
		sdk, err = otlptracegrpc.New(ctx, opts...)
	}
	if err != nil {
		return nil, fmt.Errorf("otlpexport: %s: %s", ep.shown, secrets.Redact(err.Error()))
	}
	res := resource.NewSchemaless(attribute.String("service.name", o.ServiceName))
	return &Exporter{opts: o, ep: ep, secrets: secrets, sdk: sdk, res: res}, nil
}

// Endpoint is where the spans go, as errors name it: scheme, host and path.
func (e *Exporter) Endpoint() string { return e.ep.shown }

// Protocol is how they go.
func (e *Exporter) Protocol() Protocol { return e.ep.protocol }

// Close shuts the SDK exporter down (its gRPC connection); Export fails after it.
func (e *Exporter) Close(ctx context.Context) error {
	if err := e.sdk.Shutdown(ctx); err != nil {
		return fmt.Errorf("otlpexport: close %s: %s", e.ep.shown, e.secrets.Redact(err.Error()))
	}
	return nil
}

// Result is what one Export call sent.
type Result struct {
	// Sent are the checkpoints all of whose spans the endpoint accepted, in the order given.
	Sent []model.Key
	// Spans counts the spans accepted (of a checkpoint split over requests, too).
	Spans int
	// InProgress counts the checkpoints left out: running, they have no span yet.
	InProgress int
	// Rejected counts the spans the endpoint dropped from requests it took (an OTLP partial
	// success: the request is taken, its checkpoints are in Sent); RejectedWhy is its latest
	// message, without credentials.
	Rejected    int64
	RejectedWhy string
}

// Error is a batch the endpoint did not take. Its text names the endpoint and never holds a
// credential; errors.Is sees through it (context.DeadlineExceeded: Options.Timeout ran out).
type Error struct {
	// Endpoint is Exporter.Endpoint; Spans the size of the batch.
	Endpoint string
	Spans    int
	// Checkpoints are those with spans in the request (of one wider than a batch, some of them).
	Checkpoints []model.Key
	// Refusal says whether to send the batch again: Unacceptable (RefusedForGood) will be
	// refused again; Misconfigured waits for the configuration to be fixed; Transient for the
	// endpoint to recover.
	Refusal Refusal
	// Answer names the endpoint's answer ("HTTP 400 Bad Request", "gRPC InvalidArgument"); ""
	// when none came (unreachable, timed out).
	Answer string
	msg    string
	cause  error
}

func (e *Error) Error() string {
	var why string
	switch e.Refusal {
	case Misconfigured:
		why = e.Answer + ", a configuration problem: fix the endpoint's URL, protocol or credentials (retried until then): "
	case Unacceptable:
		why = e.Answer + ", the endpoint refuses this content for good: "
	}
	return fmt.Sprintf("otlpexport: send %d spans to %s: %s%s", e.Spans, e.Endpoint, why, e.msg)
}

// RefusedForGood says the endpoint refused the content of the request (HTTP 400, 413, 422; gRPC
// InvalidArgument): sent again, as it is, it is refused again.
func (e *Error) RefusedForGood() bool { return e.Refusal == Unacceptable }

// Is matches the SDK's error without exposing its text, which may echo what was sent.
func (e *Error) Is(target error) bool { return errors.Is(e.cause, target) }

// Export sends the finished checkpoints of job: ExportJobs of that one job.
func (e *Exporter) Export(ctx context.Context, job model.Job, cps []model.Checkpoint, explained []analyze.CheckpointAnalysis) (Result, error) {
	return e.ExportJobs(ctx, JobCheckpoints{Job: job, Checkpoints: cps, Explained: explained})
}

// JobCheckpoints are checkpoints of one job to export. Explained, when not nil, is the job's
// analysis of them (analyze.JobAnalysis.Checkpoints): each checkpoint's sink commit and causes
// become attributes.
type JobCheckpoints struct {
	Job         model.Job
	Checkpoints []model.Checkpoint
	Explained   []analyze.CheckpointAnalysis
}

// ExportJobs sends the finished checkpoints of jobs, in their order, in requests of at most
// Options.BatchSize spans, each request whole checkpoints of any of the jobs (one wider than a
// batch goes alone, split): a fleet's checkpoints, a job's each, share requests rather than
// taking one each. It stops at the first batch not taken, returning that error (an *Error:
// whether the batch is refused for good, and its checkpoints) and what was sent before it.
func (e *Exporter) ExportJobs(ctx context.Context, jobs ...JobCheckpoints) (Result, error) {
	var res Result
	var batch []sdktrace.ReadOnlySpan
	var whole []model.Key // the checkpoints whose every span is in batch or already sent
	// flush sends batch: whole's spans, and part's (a checkpoint wider than a batch) when given.
	flush := func(part ...model.Key) error {
		if len(batch) > 0 {
			taken, err := e.send(ctx, batch, append(slices.Clip(whole), part...))
			if err != nil {
				return err
			}
			res.Spans += len(batch) - int(taken.rejected)
			if taken.rejected > 0 || taken.why != "" {
				res.Rejected += taken.rejected
				res.RejectedWhy = taken.why
			}
		}
		res.Sent = append(res.Sent, whole...)
		batch, whole = nil, nil
		return nil
	}
	type pipelineID struct {
		pipeline int
		id       int64
	}
	for _, j := range jobs {
		byID := make(map[pipelineID]*analyze.CheckpointAnalysis, len(j.Explained))
		for i := range j.Explained {
			byID[pipelineID{j.Explained[i].Pipeline, j.Explained[i].ID}] = &j.Explained[i]
		}
		for i := range j.Checkpoints {
			c := &j.Checkpoints[i]
			spans := interop.CheckpointSpans(j.Job, c, explainedAttrs(byID[pipelineID{c.Pipeline, c.ID}])...)
			if len(spans) == 0 {
				res.InProgress++
				continue
			}
			if len(batch)+len(spans) > e.opts.BatchSize {
				if err := flush(); err != nil {
					return res, err
				}
			}
			for len(spans) > e.opts.BatchSize {
				batch = e.snapshots(spans[:e.opts.BatchSize])
				spans = spans[e.opts.BatchSize:]
				if err := flush(c.Key()); err != nil {
					return res, err
				}
			}
			batch = append(batch, e.snapshots(spans)...)
			whole = append(whole, c.Key())
		}
	}
	return res, flush()
}

// Attributes of the Checkpoint span from the job's analysis, as JSON (analyze.Commit,
// []analyze.Cause): tools reading the spans see where the time went without the app.
const (
	// AttrCommit is the sink commit after the checkpoint, where the committer's metrics were sampled.
	AttrCommit = "checkpoint_explorer.commit"
	// AttrCauses split its end-to-end time along the barrier path, largest first (docs/phases.md).
	AttrCauses = "checkpoint_explorer.causes"
)

// explainedAttrs are what the analysis of a checkpoint adds to its span; none without one.
func explainedAttrs(a *analyze.CheckpointAnalysis) []interop.Attr {
	if a == nil {
		return nil
	}
	var out []interop.Attr
	for _, o := range []struct {
		key string
		v   any
	}{{AttrCommit, a.Commit}, {AttrCauses, a.Causes}} {
		if attr, ok := interop.JSONAttr(o.key, o.v); ok {
			out = append(out, attr)
		}
	}
	return out
}

// taken is what the endpoint said of a request it took: the spans it rejected of it (an OTLP
// partial success), and why.
type taken struct {
	rejected int64
	why      string
}

// send exports one batch, the spans of the checkpoints keys, within Options.Timeout. A request
// the endpoint took (HTTP 2xx, gRPC OK) is taken even when the SDK makes an error of its partial
// success.
func (e *Exporter) send(ctx context.Context, batch []sdktrace.ReadOnlySpan, keys []model.Key) (taken, error) {
	ctx, cancel := context.WithTimeout(ctx, e.opts.Timeout)
	defer cancel()
	a := &answer{}
	err := e.sdk.ExportSpans(withAnswer(ctx, a), batch)
	if err == nil {
		return taken{}, nil
	}
	ok, httpStatus, rejected, message := a.get()
	if ok {
		return taken{rejected: rejected, why: e.secrets.Redact(cmp.Or(message, err.Error()))}, nil
	}
	refusal, what := e.refusal(err, httpStatus)
	return taken{}, &Error{Endpoint: e.ep.shown, Spans: len(batch), Checkpoints: keys, Refusal: refusal, Answer: what,
		msg: e.secrets.Redact(err.Error()), cause: err}
}

// snapshots are the spans as the SDK's finished spans: the mapping's ids, times to the
// millisecond, attributes, Flink's scope, the exporter's resource.
func (e *Exporter) snapshots(spans []interop.Span) []sdktrace.ReadOnlySpan {
	out := make([]sdktrace.ReadOnlySpan, len(spans))
	for i := range spans {
		s := &spans[i]
		stub := tracetest.SpanStub{
			Name:                 s.Name,
			SpanContext:          spanContext(s.TraceID, s.SpanID),
			SpanKind:             trace.SpanKindInternal,
			StartTime:            time.UnixMilli(s.StartMs),
			EndTime:              time.UnixMilli(s.EndMs),
			Attributes:           make([]attribute.KeyValue, len(s.Attrs)),
			Resource:             e.res,
			InstrumentationScope: instrumentation.Scope{Name: interop.FlinkSpanScope},
		}
		if s.ParentID != ([8]byte{}) {
			stub.Parent = spanContext(s.TraceID, s.ParentID)
		}
		for j, a := range s.Attrs {
			stub.Attributes[j] = keyValue(a)
		}
		out[i] = stub.Snapshot()
	}
	return out
}

func spanContext(t [16]byte, s [8]byte) trace.SpanContext {
	return trace.NewSpanContext(trace.SpanContextConfig{TraceID: t, SpanID: s, TraceFlags: trace.FlagsSampled})
}

func keyValue(a interop.Attr) attribute.KeyValue {
	if a.IsInt {
		return attribute.Int64(a.Key, a.Int)
	}
	return attribute.String(a.Key, a.Str)
}
