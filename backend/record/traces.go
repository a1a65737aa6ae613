package record

import (
	"context"
	"fmt"
	"time"

	"checkpoint-explorer/backend/capture"
	"checkpoint-explorer/backend/connect"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/jaeger"
	"checkpoint-explorer/backend/source/restclient"
)

// TracesOptions say which job's spans Traces writes into a capture file (`capture --traces-url`).
type TracesOptions struct {
	// Cluster names the cluster in the file and carries TracesURL and TracesService.
	Cluster model.Cluster
	JobID   string
	// Since is how far back spans are read (default jaeger.Lookback).
	Since time.Duration
	Out   string
	// MaxRequests bounds the requests to Jaeger (default jaeger.OpenRequests).
	MaxRequests int
	// AppVersion is written in the file's header.
	AppVersion string
}

// TracesResult says what Traces wrote.
type TracesResult struct {
	Job         model.Job
	Checkpoints int
	Failed      int
	Requests    int
	// Incomplete lists the time ranges not read whole (the request bound ran out, or too many
	// checkpoints in a range at its narrowest): the file lacks what they held.
	Incomplete []jaeger.Window
}

// Traces writes a capture of one job read from a tracing backend alone: the job as its
// spans describe it and every checkpoint they hold from the last Since. No engine is asked,
// and the file is written whole or not at all.
func Traces(ctx context.Context, o TracesOptions) (TracesResult, error) {
	var res TracesResult
	if o.Since <= 0 {
		o.Since = jaeger.Lookback
	}
	if o.MaxRequests <= 0 {
		o.MaxRequests = jaeger.OpenRequests
	}
	if !jaeger.ValidJobID(o.JobID) {
		return res, fmt.Errorf("capture: job id %q: %s", o.JobID, jaeger.JobIDForm)
	}
	c := o.Cluster
	c.Engine = model.EngineFlink
	if err := connect.CheckTraces(c); err != nil {
		return res, fmt.Errorf("capture: %w", err)
	}
	jc, err := connect.Traces(c, o.MaxRequests)
	if err != nil {
		return res, fmt.Errorf("capture: %w", err)
	}
	now := time.Now()
	r, err := jc.Checkpoints(ctx, o.JobID, now.Add(-o.Since), now)
	res.Requests = r.Requests
	if err != nil {
		return res, fmt.Errorf("capture: traces from %s: %w", restclient.RedactURL(c.TracesURL), err)
	}
	if len(r.Checkpoints) == 0 {
		return res, fmt.Errorf("capture: the traces at %s hold no checkpoint of job %s from the last %s (service %q)",
			restclient.RedactURL(c.TracesURL), o.JobID, o.Since, c.TracesService)
	}
	res.Job, res.Incomplete = jaeger.JobOf(c.Name, o.JobID, r), r.Incomplete
	if res.Job.Engine != "" {
		c.Engine = res.Job.Engine // a SeaTunnel job's spans, exported by the app, say so
	}
	out, err := createOut(o.Out, capture.Header{RecordedAt: now.UTC(), AppVersion: o.AppVersion,
		Note: fmt.Sprintf("job %s read from the traces of service %q for the last %s", o.JobID, c.TracesService, o.Since)})
	if err != nil {
		return res, err
	}
	defer out.discard()
	w := out.w
	err = w.Cluster(c.Public())
	if err == nil {
		err = w.Job(res.Job)
	}
	for i := 0; err == nil && i < len(r.Checkpoints); i++ {
		cp := &r.Checkpoints[i]
		cp.Cluster = c.Name
		if err = w.Checkpoint(cp); err == nil {
			res.Checkpoints++
			if cp.Status == model.StatusFailed {
				res.Failed++
			}
		}
	}
	return res, out.finish(err)
}
