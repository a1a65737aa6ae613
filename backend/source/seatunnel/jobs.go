package seatunnel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"checkpoint-explorer/backend/model"
)

// Overview is the cluster summary from GET /overview (SeaTunnel sends every value as a string).
type Overview struct {
	Version         string
	GitCommit       string
	TotalSlots      int64
	UnassignedSlots int64
	RunningJobs     int64
	FinishedJobs    int64
	FailedJobs      int64
	CancelledJobs   int64
	Workers         int64
}

// Overview returns the cluster summary; a cheap call to test a connection.
func (c *Client) Overview(ctx context.Context) (Overview, error) {
	var o struct {
		Version         string  `json:"projectVersion"`
		GitCommit       string  `json:"gitCommitAbbrev"`
		TotalSlots      flexInt `json:"totalSlot"`
		UnassignedSlots flexInt `json:"unassignedSlot"`
		RunningJobs     flexInt `json:"runningJobs"`
		FinishedJobs    flexInt `json:"finishedJobs"`
		FailedJobs      flexInt `json:"failedJobs"`
		CancelledJobs   flexInt `json:"cancelledJobs"`
		Workers         flexInt `json:"workers"`
	}
	if err := c.get(ctx, "/overview", "/overview", nil, &o); err != nil {
		return Overview{}, err
	}
	if o.Version == "" && !o.Workers.ok {
		return Overview{}, errors.New("seatunnel: GET /overview: no projectVersion or workers in the response (is this a SeaTunnel Zeta REST root?)")
	}
	return Overview{
		Version: o.Version, GitCommit: o.GitCommit,
		TotalSlots: o.TotalSlots.v, UnassignedSlots: o.UnassignedSlots.v,
		RunningJobs: o.RunningJobs.v, FinishedJobs: o.FinishedJobs.v,
		FailedJobs: o.FailedJobs.v, CancelledJobs: o.CancelledJobs.v, Workers: o.Workers.v,
	}, nil
}

// jobJSON is one job as /running-jobs, /finished-jobs and /job-info send it.
type jobJSON struct {
	JobID      flexID                     `json:"jobId"`
	JobName    string                     `json:"jobName"`
	JobStatus  string                     `json:"jobStatus"`
	CreateTime string                     `json:"createTime"`
	FinishTime string                     `json:"finishTime"`
	ErrorMsg   *string                    `json:"errorMsg"`
	EnvOptions map[string]json.RawMessage `json:"envOptions"`
	JobDag     json.RawMessage            `json:"jobDag"`
	Metrics    json.RawMessage            `json:"metrics"`
}

// JobInfo is a job with its graph and what its env options say about checkpointing.
type JobInfo struct {
	model.Job
	// ErrorMsg is the engine's error text for a failed job; "" otherwise.
	ErrorMsg string
	// CheckpointIntervalMs and CheckpointTimeoutMs are the job's env options checkpoint.interval
	// and checkpoint.timeout; 0 when the job does not set them (then the cluster's seatunnel.yaml
	// applies, which the REST API does not show).
	CheckpointIntervalMs int64
	CheckpointTimeoutMs  int64
	// Parallelism is the job's env option parallelism; 0 when not set.
	Parallelism int
	// Config is what the job's env options say of its checkpointing
	// (checkpoint.interval, checkpoint.timeout; nil when the job does not
	// set them), with the env options as Keys (secret-looking ones dropped).
	// Cluster and JobID are set; SeenMs is left to the caller.
	Config model.JobConfig
	// Metrics is the job's metrics block (the connectors' counters, the intermediate queues);
	// nil when the engine sent none.
	Metrics *JobMetrics
}

// PartialListError is returned by Jobs with the running jobs when the finished jobs could not be
// listed: the running jobs are complete, and errors.Unwrap gives the failure.
type PartialListError struct {
	Err error
}

func (e *PartialListError) Error() string {
	return "finished jobs not listed (running jobs are): " + e.Err.Error()
}
func (e *PartialListError) Unwrap() error { return e.Err }

// Jobs lists the running jobs and the finished ones the cluster still remembers (two requests:
// /running-jobs and /finished-jobs), without vertices. When only the finished jobs fail (some
// servers answer 404 for the bare /finished-jobs), the running jobs come with a
// *PartialListError.
func (c *Client) Jobs(ctx context.Context) ([]model.Job, error) {
	var running, finished []jobJSON
	if err := c.get(ctx, "/running-jobs", "/running-jobs", nil, &running); err != nil {
		return nil, err
	}
	var partial error
	if err := c.get(ctx, "/finished-jobs", "/finished-jobs", nil, &finished); err != nil {
		if ctx.Err() != nil {
			return nil, err
		}
		partial, finished = &PartialListError{Err: err}, nil
	}
	seen := map[string]int{}
	var jobs []model.Job
	// A job that finished between the two requests is in both lists; the later answer wins.
	for _, list := range [][]jobJSON{running, finished} {
		for _, j := range list {
			if j.JobID == "" {
				return nil, errors.New("seatunnel: job list holds a job without jobId")
			}
			job := c.job(j).Job
			if i, ok := seen[job.ID]; ok {
				jobs[i] = job
				continue
			}
			seen[job.ID] = len(jobs)
			jobs = append(jobs, job)
		}
	}
	return jobs, partial
}

// Job returns one job with its vertices and edges (GET /job-info/:jobId).
func (c *Client) Job(ctx context.Context, id string) (model.Job, error) {
	info, err := c.JobInfo(ctx, id)
	return info.Job, err
}

// JobInfo returns one job with its graph and checkpoint settings (GET /job-info/:jobId). A job
// the cluster does not know gives an error matching ErrNotFound.
func (c *Client) JobInfo(ctx context.Context, id string) (JobInfo, error) {
	if err := checkJobID(id); err != nil {
		return JobInfo{}, err
	}
	path := "/job-info/" + url.PathEscape(id)
	r, err := c.fetch(ctx, "/job-info/:jobId", path, nil)
	if err != nil {
		return JobInfo{}, err
	}
	if !r.ok() {
		return JobInfo{}, c.statusError(r, nil)
	}
	var j jobJSON
	if err := c.decode(r, &j); err != nil {
		return JobInfo{}, err
	}
	// Unknown jobs come back as {"jobId":""} (v2) or {"jobId":"<id>"} (v1), nothing more.
	if j.JobName == "" && j.JobStatus == "" {
		e := r.fail(fmt.Sprintf("job %s is not known to the cluster (finished jobs are forgotten after history-job-expire-minutes)", id))
		e.kind = ErrNotFound
		return JobInfo{}, e
	}
	if j.JobID == "" {
		j.JobID = flexID(id)
	}
	info := c.job(j)
	vs, es, err := parseDAG(j.JobDag)
	if err != nil {
		return JobInfo{}, r.fail(fmt.Sprintf("job %s: jobDag: %v", id, err))
	}
	for i := range vs {
		if vs[i].Parallelism == 0 {
			// Only the logical DAG of v1 carries a per-vertex parallelism; otherwise the job's
			// default is the best there is (a connector's own parallelism option is not shown).
			vs[i].Parallelism = info.Parallelism
		}
	}
	info.Vertices, info.Edges = vs, es
	info.Metrics = decodeJobMetrics(j.Metrics)
	return info, nil
}

func (c *Client) job(j jobJSON) JobInfo {
	info := JobInfo{
		Job: model.Job{
			Cluster: c.cluster(),
			ID:      string(j.JobID),
			Name:    j.JobName,
			Engine:  model.EngineSeaTunnel,
			State:   strings.ToUpper(strings.TrimSpace(j.JobStatus)),
			StartMs: c.parseTime(j.CreateTime),
			EndMs:   c.parseTime(j.FinishTime),
		},
		CheckpointIntervalMs: envInt(j.EnvOptions, "checkpoint.interval"),
		CheckpointTimeoutMs:  envInt(j.EnvOptions, "checkpoint.timeout"),
		Parallelism:          int(envInt(j.EnvOptions, "parallelism")),
	}
	if j.ErrorMsg != nil {
		info.ErrorMsg = *j.ErrorMsg
	}
	info.Config = jobConfig(info.Cluster, info.ID, j.EnvOptions)
	return info
}

// jobConfig reads a job's env options into a model.JobConfig: checkpoint.interval and
// checkpoint.timeout (milliseconds, sent as strings or numbers; one that is not a whole
// non-negative number stays nil, its key kept as sent), every scalar option as a key.
func jobConfig(cluster, id string, env map[string]json.RawMessage) model.JobConfig {
	cfg := model.JobConfig{Cluster: cluster, JobID: id}
	ms := func(key string) *int64 {
		raw, ok := env[key]
		if !ok {
			return nil
		}
		var v flexInt
		if json.Unmarshal(raw, &v) != nil || v.v < 0 {
			return nil
		}
		return v.ptr()
	}
	cfg.IntervalMs, cfg.TimeoutMs = ms("checkpoint.interval"), ms("checkpoint.timeout")
	for k, raw := range env {
		if model.SecretKey(k) {
			continue
		}
		s, isNull, err := scalarText(raw)
		if err != nil && len(raw) > 0 && (raw[0] == 't' || raw[0] == 'f') {
			s, isNull, err = string(raw), false, nil // a JSON boolean
		}
		if err != nil || isNull {
			continue
		}
		if cfg.Keys == nil {
			cfg.Keys = map[string]string{}
		}
		cfg.Keys[k] = s
	}
	return cfg
}

// envInt reads an integer env option (sent as a string or a number); 0 when absent or odd.
func envInt(env map[string]json.RawMessage, key string) int64 {
	raw, ok := env[key]
	if !ok {
		return 0
	}
	var v flexInt
	if json.Unmarshal(raw, &v) != nil || !v.ok || v.v < 0 {
		return 0
	}
	return v.v
}

// parseTime reads the engine's "2006-01-02 15:04:05" (server local time) or epoch milliseconds;
// 0 when absent or unreadable (a start time is not worth failing a job over).
func (c *Client) parseTime(s string) int64 {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0
	}
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil && ms > 0 {
		return ms
	}
	for _, layout := range []string{"2006-01-02 15:04:05", "2006-01-02 15:04:05.000", time.RFC3339Nano} {
		if t, err := time.ParseInLocation(layout, s, c.location); err == nil {
			return max(t.UnixMilli(), 0) // before 1970 is not a time the model holds
		}
	}
	return 0
}

// checkJobID rejects ids that are not SeaTunnel job ids (decimal longs) before a request: the
// engine would answer them with a stack trace.
func checkJobID(id string) error {
	if id == "" {
		return errors.New("seatunnel: empty job id")
	}
	if _, err := strconv.ParseInt(id, 10, 64); err != nil {
		return fmt.Errorf("seatunnel: job id %q is not a SeaTunnel job id (a decimal number)", snippet([]byte(id)))
	}
	return nil
}

// pipelineName matches the vertex names of the physical DAG: "pipeline-1 [Source[0]-FakeSource]".
var pipelineName = regexp.MustCompile(`^pipeline-(\d+)\s*\[(.*)\]$`)

// logicalName matches the names in v1's logical DAG: "Source[0]-FakeSource(id=1)".
var logicalName = regexp.MustCompile(`^(.*)\(id=(\d+)\)$`)

// parseDAG reads a jobDag in any of the shapes SeaTunnel has sent:
//   - 2.3.9+ (v2 and v1): {pipelineEdges:{"1":[{inputVertexId,targetVertexId}]},
//     vertexInfoMap:[{vertexId,type,vertexName,tablePaths}]};
//   - 2.3.8 finished jobs: the same as a JSON string, vertexInfoMap an object of
//     {vertexId,type,connectorType};
//   - 2.3.8 running jobs: {vertices:[{id,name,parallelism}], edges:[{inputVertex,targetVertex}]}
//     with edges naming vertices and no pipelines (Vertex.Pipeline stays 0).
func parseDAG(raw json.RawMessage) ([]model.Vertex, []model.Edge, error) {
	raw = json.RawMessage(strings.TrimSpace(string(raw)))
	if len(raw) == 0 || string(raw) == "null" || string(raw) == "{}" {
		return nil, nil, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, nil, err
		}
		return parseDAG(json.RawMessage(s))
	}
	var probe struct {
		VertexInfoMap json.RawMessage `json:"vertexInfoMap"`
		PipelineEdges map[string][]struct {
			Input  flexID `json:"inputVertexId"`
			Target flexID `json:"targetVertexId"`
		} `json:"pipelineEdges"`
		Vertices []struct {
			ID          flexID  `json:"id"`
			Name        string  `json:"name"`
			Parallelism flexInt `json:"parallelism"`
		} `json:"vertices"`
		Edges []struct {
			Input  string `json:"inputVertex"`
			Target string `json:"targetVertex"`
		} `json:"edges"`
	}
	if err := json.Unmarshal(raw, &probe); err != nil {
		return nil, nil, err
	}
	if len(probe.VertexInfoMap) == 0 {
		// The logical DAG.
		byName := map[string]string{}
		var vs []model.Vertex
		for i, v := range probe.Vertices {
			if v.ID == "" {
				return nil, nil, fmt.Errorf("vertices[%d]: a vertex without id", i)
			}
			name := v.Name
			if m := logicalName.FindStringSubmatch(name); m != nil {
				name = m[1]
			}
			byName[name] = string(v.ID)
			vs = append(vs, model.Vertex{ID: string(v.ID), Name: name, Parallelism: int(max(v.Parallelism.v, 0))})
		}
		var es []model.Edge
		for _, e := range probe.Edges {
			src, okS := byName[e.Input]
			dst, okT := byName[e.Target]
			if !okS || !okT {
				return nil, nil, fmt.Errorf("edge %q → %q names a vertex not in the DAG", e.Input, e.Target)
			}
			es = append(es, model.Edge{Source: src, Target: dst})
		}
		return vs, es, nil
	}

	type vertexJSON struct {
		ID            flexID `json:"vertexId"`
		Type          string `json:"type"`
		VertexName    string `json:"vertexName"`
		ConnectorType string `json:"connectorType"`
	}
	var list []vertexJSON
	if probe.VertexInfoMap[0] == '{' {
		var m map[string]vertexJSON
		if err := json.Unmarshal(probe.VertexInfoMap, &m); err != nil {
			return nil, nil, fmt.Errorf("vertexInfoMap: %w", err)
		}
		for _, v := range m {
			list = append(list, v)
		}
	} else if err := json.Unmarshal(probe.VertexInfoMap, &list); err != nil {
		return nil, nil, fmt.Errorf("vertexInfoMap: %w", err)
	}

	pipelineOf := map[string]int{}
	var es []model.Edge
	pipes := make([]string, 0, len(probe.PipelineEdges))
	for p := range probe.PipelineEdges {
		pipes = append(pipes, p)
	}
	sort.Slice(pipes, func(a, b int) bool { return numLess(pipes[a], pipes[b]) })
	for _, p := range pipes {
		pid, err := strconv.Atoi(p)
		if err != nil || pid < 0 {
			return nil, nil, fmt.Errorf("pipelineEdges key %q is not a pipeline id", p)
		}
		for _, e := range probe.PipelineEdges[p] {
			if e.Input == "" || e.Target == "" {
				return nil, nil, fmt.Errorf("pipeline %d: an edge without inputVertexId or targetVertexId", pid)
			}
			pipelineOf[string(e.Input)], pipelineOf[string(e.Target)] = pid, pid
			es = append(es, model.Edge{Source: string(e.Input), Target: string(e.Target)})
		}
	}
	vs := make([]model.Vertex, 0, len(list))
	rank := map[string]int{}
	for _, v := range list {
		if v.ID == "" {
			return nil, nil, errors.New("vertexInfoMap: a vertex without vertexId")
		}
		name := v.VertexName
		if name == "" {
			name = v.ConnectorType
		}
		pipe := pipelineOf[string(v.ID)]
		if m := pipelineName.FindStringSubmatch(name); m != nil {
			name = m[2]
			if pipe == 0 {
				pipe, _ = strconv.Atoi(m[1])
			}
		}
		vs = append(vs, model.Vertex{ID: string(v.ID), Name: name, Pipeline: pipe})
		rank[string(v.ID)] = typeRank(v.Type)
	}
	// Sources first, then transforms, then sinks, per pipeline: the order data flows.
	sort.SliceStable(vs, func(a, b int) bool {
		va, vb := vs[a], vs[b]
		if va.Pipeline != vb.Pipeline {
			return va.Pipeline < vb.Pipeline
		}
		if ra, rb := rank[va.ID], rank[vb.ID]; ra != rb {
			return ra < rb
		}
		return numLess(va.ID, vb.ID)
	})
	return vs, es, nil
}

func typeRank(t string) int {
	switch strings.ToLower(t) {
	case "source":
		return 0
	case "transform":
		return 1
	case "sink":
		return 2
	}
	return 3
}

// numLess orders decimal ids numerically, anything else after them by text.
func numLess(a, b string) bool {
	ia, errA := strconv.ParseInt(a, 10, 64)
	ib, errB := strconv.ParseInt(b, 10, 64)
	switch {
	case errA == nil && errB == nil:
		return ia < ib
	case errA == nil:
		return true
	case errB == nil:
		return false
	}
	return a < b
}
