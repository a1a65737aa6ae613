package publish

import "github.com/prometheus/client_golang/prometheus"

// metrics are the export's lines on /metrics, each read from Status.
var metrics = []struct {
	name, help string
	counter    bool
	value      func(s Status) float64
}{
	{"checkpoint_explorer_export_checkpoints_total", "Checkpoints the OTLP endpoint took since the start.", true,
		func(s Status) float64 { return float64(s.Exported) }},
	{"checkpoint_explorer_export_pending", "Final checkpoints in the cache not yet sent (details still due among them), as last counted.", false,
		func(s Status) float64 { return float64(s.Pending) }},
	{"checkpoint_explorer_export_dropped_total", "Checkpoints retention removed before they were sent (the log names them).", true,
		func(s Status) float64 { return float64(s.Dropped) }},
	{"checkpoint_explorer_export_refused_total", "Checkpoints the endpoint refused for good on their own (their content: HTTP 400, 413, 422, gRPC InvalidArgument): set aside, not sent to it again (the log names them).", true,
		func(s Status) float64 { return float64(s.Refused) }},
	{"checkpoint_explorer_export_rejected_spans_total", "Spans the endpoint dropped from requests it took (OTLP partial success).", true,
		func(s Status) float64 { return float64(s.RejectedSpans) }},
	{"checkpoint_explorer_export_errors_total", "Export rounds that failed (the endpoint refused or could not be reached); each is retried.", true,
		func(s Status) float64 { return float64(s.Errors) }},
	{"checkpoint_explorer_export_last_success_timestamp_seconds", "When the endpoint last took checkpoints (Unix time; 0: not yet).", false,
		func(s Status) float64 {
			if s.LastSuccess.IsZero() {
				return 0
			}
			return float64(s.LastSuccess.UnixMilli()) / 1000
		}},
}

// Register puts the loop's counters on r (the app's /metrics), labelled with the endpoint.
func (p *Publisher) Register(r prometheus.Registerer) error {
	labels := prometheus.Labels{"endpoint": p.Endpoint()}
	for _, m := range metrics {
		value := func() float64 { return m.value(p.Status()) }
		var c prometheus.Collector = prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: m.name, Help: m.help, ConstLabels: labels}, value)
		if m.counter {
			c = prometheus.NewCounterFunc(prometheus.CounterOpts{Name: m.name, Help: m.help, ConstLabels: labels}, value)
		}
		if err := r.Register(c); err != nil {
			return err
		}
	}
	return nil
}
