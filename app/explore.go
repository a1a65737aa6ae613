package app

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/store"
)

// CheckpointView is everything the checkpoint detail view shows: the raw
// checkpoint, its analysis (phases, bottleneck, failure, backpressure, slow
// flags), its per-subtask phase rows, its ack-progress curve and the advice
// of the analysis before it that cites it.
type CheckpointView struct {
	Checkpoint  CheckpointDetail           `json:"checkpoint"`
	Analysis    analyze.CheckpointAnalysis `json:"analysis"`
	Subtasks    []analyze.SubtaskRow       `json:"subtasks"`
	AckProgress *analyze.AckProgress       `json:"ack_progress,omitempty"`
	Phases      []analyze.Phase            `json:"phases_available"`
	Notes       []string                   `json:"notes"`
	NoteParts   []analyze.ReasonPart       `json:"note_parts"`
	Vertices    []model.Vertex             `json:"vertices"`
	Edges       []model.Edge               `json:"edges"`
	// Advice holds the items of the analysis of the 30 minutes before the
	// checkpoint whose evidence cites its id, in the analysis's order (most
	// important first).
	Advice []analyze.Advice `json:"advice"`
}

// baselineWindowMs is how far before a checkpoint the detail view looks for
// the baseline its slow flags and backpressure compare against.
const baselineWindowMs = 30 * 60 * 1000

// CheckpointView analyses one checkpoint against the checkpoints before it.
func (a *App) CheckpointView(cluster, job string, pipeline int, id int64) (CheckpointView, error) {
	ctx, cancel := a.callCtx()
	defer cancel()
	d, err := a.Checkpoint(cluster, job, pipeline, id)
	if err != nil {
		return CheckpointView{}, err
	}
	in, err := a.analysisInput(ctx, cluster, job, d.TriggerMs-baselineWindowMs, d.TriggerMs)
	if err != nil {
		return CheckpointView{}, err
	}
	var cps []analyze.CheckpointAnalysis
	ja, _, err := a.analyzeStreamed(ctx, &in, d.TriggerMs-baselineWindowMs, d.TriggerMs, collectAnalyses(&cps))
	if err != nil {
		return CheckpointView{}, err
	}
	ja.Checkpoints = cps
	v := CheckpointView{Checkpoint: d, Phases: ja.PhasesAvailable, Notes: ja.Notes, NoteParts: ja.NoteParts, Vertices: in.job.Vertices, Edges: in.job.Edges}
	for _, c := range ja.Checkpoints {
		if c.ID == id && c.Pipeline == pipeline {
			v.Analysis = c
		}
	}
	// The analysis ends at this checkpoint; a later completed one tells
	// whether one stored in progress has ended unseen.
	if d.Status == model.StatusInProgress && analyze.EndsPendingOnCompletion(in.job.Engine) {
		newest, ok, err := a.store.NewestCompletedID(ctx, cluster, job, pipeline)
		if err != nil {
			return CheckpointView{}, err
		}
		v.Analysis.EndedUnseen = ok && analyze.EndedUnseen(in.job.Engine, d.Status, d.Kind, id, newest)
	}
	v.Advice = adviceCiting(ja.Advice, id)
	v.Subtasks = analyze.SubtaskRows(in.job, &d.Checkpoint)
	var acks []model.AckSample
	for _, s := range in.acks {
		if s.CheckpointID == id && s.Pipeline == pipeline {
			acks = append(acks, s)
		}
	}
	v.AckProgress = analyze.CheckpointAckProgress(in.job, &d.Checkpoint, acks, analyze.DefaultAckPoints)
	return v, nil
}

// adviceCiting keeps the advice items whose evidence names checkpoint id, in
// their order. Evidence ids carry no pipeline: an item of a SeaTunnel job
// citing id is shown on that id in every pipeline.
func adviceCiting(advice []analyze.Advice, id int64) []analyze.Advice {
	var out []analyze.Advice
	for _, ad := range advice {
		if slices.Contains(ad.Evidence.CheckpointIDs, id) {
			out = append(out, ad)
		}
	}
	return out
}

// HeatmapKind names a heatmap (HeatmapRequest.Kind).
type HeatmapKind string

// The heatmaps.
const (
	HeatmapPhase   HeatmapKind = "phase"
	HeatmapFailure HeatmapKind = "failure"
	HeatmapVertex  HeatmapKind = "vertex"
)

// HeatmapRequest selects a heatmap: "phase" (phase × time, slowness),
// "failure" (signature × time, counts) or "vertex" (vertex × checkpoint, the
// time of one phase).
type HeatmapRequest struct {
	Cluster string      `json:"cluster"`
	Job     string      `json:"job"`
	Kind    HeatmapKind `json:"kind"`
	// Phase is the vertex heatmap's (end_to_end when empty); the others have none.
	Phase  analyze.Phase `json:"phase,omitempty"`
	FromMs int64         `json:"from_ms"`
	ToMs   int64         `json:"to_ms"`
	// Buckets is the target number of time buckets or checkpoint columns.
	Buckets int `json:"buckets"`
}

// Heatmap holds the one heatmap that was asked for.
type Heatmap struct {
	Kind    HeatmapKind             `json:"kind"`
	Phase   *analyze.PhaseHeatmap   `json:"phase,omitempty"`
	Failure *analyze.FailureHeatmap `json:"failure,omitempty"`
	Vertex  *analyze.VertexHeatmap  `json:"vertex,omitempty"`
}

// Heatmap aggregates a job's checkpoints for a heatmap view. They are read
// from the cache one at a time, so memory grows by a header and a few
// numbers per vertex per checkpoint, not by every subtask stat.
func (a *App) Heatmap(req HeatmapRequest) (Heatmap, error) {
	if req.Cluster == "" || req.Job == "" {
		return Heatmap{}, badRequest("cluster and job are required")
	}
	if req.Buckets <= 0 || req.Buckets > 2000 {
		req.Buckets = analyze.DefaultHeatmapBuckets
	}
	switch req.Kind {
	case HeatmapPhase, HeatmapFailure:
	case HeatmapVertex:
		if req.Phase == "" {
			req.Phase = analyze.EndToEnd
		}
		// Checked before the scan, which may read a long range.
		if err := analyze.CheckVertexPhase(req.Phase); err != nil {
			return Heatmap{}, badRequest("%v", err)
		}
	default:
		return Heatmap{}, badRequest("heatmap kind %q: choose phase, failure or vertex", req.Kind)
	}
	ctx, cancel := a.callCtx()
	defer cancel()
	j, err := a.cachedJob(ctx, req.Cluster, req.Job)
	if err != nil {
		return Heatmap{}, err
	}
	j.Cluster = req.Cluster
	b := analyze.NewHeatmapBuilder(j)
	q := store.Query{Cluster: req.Cluster, JobID: req.Job, FromMs: req.FromMs, ToMs: req.ToMs}
	// The failure heatmap reads only headers: skip the subtask rows.
	if err := a.store.ScanCheckpoints(ctx, q, req.Kind != HeatmapFailure, func(c *model.Checkpoint) error {
		b.Add(c)
		return nil
	}); err != nil {
		return Heatmap{}, fmt.Errorf("heatmap of job %s on %s: %w", req.Job, req.Cluster, err)
	}
	h := Heatmap{Kind: req.Kind}
	switch req.Kind {
	case HeatmapPhase:
		hm := b.Phase(req.FromMs, req.ToMs, req.Buckets)
		h.Phase = &hm
	case HeatmapFailure:
		hm := b.Failure(req.FromMs, req.ToMs, req.Buckets)
		h.Failure = &hm
	case HeatmapVertex:
		hm, err := b.Vertex(req.Phase, req.FromMs, req.ToMs, req.Buckets)
		if err != nil {
			return Heatmap{}, badRequest("%v", err)
		}
		h.Vertex = &hm
	}
	return h, nil
}

// CompareResult puts two checkpoints side by side.
type CompareResult struct {
	analyze.Comparison
	// Reason says why this pair was chosen when it was chosen by default.
	Reason string `json:"reason,omitempty"`
}

// Compare puts checkpoint b beside a (the baseline) phase by phase and vertex by vertex.
func (a *App) Compare(cluster, job string, pipelineA int, idA int64, pipelineB int, idB int64) (CompareResult, error) {
	ctx, cancel := a.callCtx()
	defer cancel()
	j, err := a.cachedJob(ctx, cluster, job)
	if err != nil {
		return CompareResult{}, err
	}
	ca, err := a.checkpointFull(ctx, cluster, job, pipelineA, idA)
	if err != nil {
		return CompareResult{}, err
	}
	cb, err := a.checkpointFull(ctx, cluster, job, pipelineB, idB)
	if err != nil {
		return CompareResult{}, err
	}
	return CompareResult{Comparison: analyze.Compare(j, &ca, &cb)}, nil
}

// DefaultCompare compares the latest failed (or else the slowest) checkpoint
// in the range with the median healthy one.
func (a *App) DefaultCompare(cluster, job string, fromMs, toMs int64) (CompareResult, error) {
	ctx, cancel := a.callCtx()
	defer cancel()
	cps, err := a.store.Checkpoints(ctx, store.Query{Cluster: cluster, JobID: job, FromMs: fromMs, ToMs: toMs})
	if err != nil {
		return CompareResult{}, err
	}
	pair, ok := analyze.DefaultComparePair(cps)
	if !ok {
		return CompareResult{}, badRequest("no pair to compare in this range: it needs a failed or slow checkpoint and a healthy one")
	}
	r, err := a.Compare(cluster, job, pair.Baseline.Pipeline, pair.Baseline.ID, pair.Target.Pipeline, pair.Target.ID)
	r.Reason = pair.Reason
	return r, err
}

func (a *App) checkpointFull(ctx context.Context, cluster, job string, pipeline int, id int64) (model.Checkpoint, error) {
	c, err := a.store.Checkpoint(ctx, model.Key{Cluster: cluster, JobID: job, Pipeline: pipeline, ID: id})
	if errors.Is(err, store.ErrNotFound) {
		return c, badRequest("checkpoint %d of job %s on %s is not in the cache", id, job, cluster)
	}
	if err != nil {
		return c, fmt.Errorf("checkpoint %d: %w", id, err)
	}
	return c, nil
}
