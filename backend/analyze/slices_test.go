package analyze

// The whole-slice entry points: the tests state expectations over a slice of
// checkpoints; the app streams them through an Analyzer and a HeatmapBuilder.

import "checkpoint-explorer/backend/model"

// Analyze explains a job's checkpoints: phases, bottlenecks, ack progress,
// failures and their clusters, repeated slow phases, and the correlation
// with backpressure and size. cps need not be sorted and are not modified;
// acks, metrics and gaps may hold other jobs' records, which are ignored
// where they carry a job id. The result depends only on the inputs.
//
// Work is linear in the number of subtask stats (one pass, no allocation
// per subtask) plus O(checkpoints × vertices × log samples) for the metric
// windows; memory beyond the output is one int64 per checkpoint, vertex
// and subtask phase. To analyse more than fits in memory, stream the
// checkpoints through an Analyzer instead.
func Analyze(job model.Job, cps []model.Checkpoint, acks []model.AckSample, metrics []model.MetricSample, gaps []model.Gap) JobAnalysis {
	order := sortedOrder(cps)
	a := NewAnalyzer(job, acks, metrics)
	for _, i := range order {
		a.g.addTasks(&cps[i])
	}
	n, nV := len(order), len(a.g.vertices)
	a.heads = make([]model.Checkpoint, n)
	a.res = make([]cpResult, n)
	a.out = make([]CheckpointAnalysis, n)
	a.voff = make([]int, n)
	a.vmax = make([]int64, n*nV*numSubtaskPhases)
	for k := range a.voff {
		a.voff[k] = k * nV * numSubtaskPhases
	}
	for i := range a.vmax {
		a.vmax[i] = -1
	}
	a.scanAll(cps, order)
	ja, _ := a.Finish(gaps) // only a streaming analysis fails
	return ja
}

// heatmapOf feeds a slice to a builder.
func heatmapOf(job model.Job, cps []model.Checkpoint) *HeatmapBuilder {
	b := NewHeatmapBuilder(job)
	for i := range cps {
		b.Add(&cps[i])
	}
	return b
}

// BuildPhaseHeatmap buckets completed checkpoints triggered in [fromMs, toMs]
// (0, 0 = all) by trigger time. Rows are end_to_end and each phase present,
// with the per-checkpoint (critical path) value of docs/phases.md.
func BuildPhaseHeatmap(job model.Job, cps []model.Checkpoint, fromMs, toMs int64, targetBuckets int) PhaseHeatmap {
	return heatmapOf(job, cps).Phase(fromMs, toMs, targetBuckets)
}

// BuildFailureHeatmap buckets failed checkpoints triggered in [fromMs, toMs]
// (0, 0 = all) by trigger time and signature; rows most frequent first.
func BuildFailureHeatmap(cps []model.Checkpoint, fromMs, toMs int64, targetBuckets int) FailureHeatmap {
	return heatmapOf(model.Job{}, cps).Failure(fromMs, toMs, targetBuckets)
}

// BuildVertexHeatmap lays out, for checkpoints triggered in [fromMs, toMs]
// (0, 0 = all), the phase's value per vertex: the maximum over the vertex's
// acknowledged subtasks. phase may be a per-subtask phase or end_to_end
// (the vertex's slowest subtask ack after trigger); finalize has no
// per-vertex value. Vertices come upstream first.
func BuildVertexHeatmap(job model.Job, cps []model.Checkpoint, phase Phase, fromMs, toMs int64, maxColumns int) (VertexHeatmap, error) {
	if err := CheckVertexPhase(phase); err != nil {
		return VertexHeatmap{}, err
	}
	return heatmapOf(job, cps).Vertex(phase, fromMs, toMs, maxColumns)
}
