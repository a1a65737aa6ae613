package analyze

import (
	"cmp"
	"errors"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"checkpoint-explorer/backend/capture/capturetest"
	"checkpoint-explorer/backend/model"
)

// streamed analyses cps through an Analyzer, in the order given.
func streamed(job model.Job, cps []model.Checkpoint, acks []model.AckSample, metrics []model.MetricSample, gaps []model.Gap) JobAnalysis {
	a := NewAnalyzer(job, acks, metrics)
	for i := range cps {
		a.Add(&cps[i])
	}
	ja, _ := a.Finish(gaps) // only a streaming analysis fails
	return ja
}

// Streaming checkpoints one at a time gives exactly the analysis of the
// whole slice, in the cache's order or shuffled.
func TestAnalyzerStreamEqualsAnalyze(t *testing.T) {
	job, cps, ms := benchInput(300)
	cps = append(cps, randomCheckpoints(5, 50)...) // other vertex ids: not in job's graph
	gaps := []model.Gap{{JobID: job.ID, FromID: 2000, ToID: 2004}}
	want := Analyze(job, cps, nil, ms, gaps)

	if got := streamed(job, cps, nil, ms, gaps); !reflect.DeepEqual(got, want) {
		t.Fatal("streamed analysis in order differs from Analyze")
	}
	// Shuffled: identical as long as the vertices are in the job's graph.
	_, ordered, _ := benchInput(200)
	shuffled := append([]model.Checkpoint(nil), ordered...)
	rand.New(rand.NewPCG(3, 4)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	if !reflect.DeepEqual(streamed(job, shuffled, nil, ms, nil), Analyze(job, ordered, nil, ms, nil)) {
		t.Fatal("streamed analysis depends on the order checkpoints arrive in")
	}
}

// A vertex first met in a later checkpoint (not in the job's graph) gets its
// own baseline, and the checkpoints scanned before it are not misread.
func TestAnalyzerMeetsNewVertices(t *testing.T) {
	job := flinkJob()
	cps := randomCheckpoints(11, 60)
	// From checkpoint 30 on, the sink is renamed: a vertex the graph never listed.
	for i := 30; i < len(cps); i++ {
		cps[i].Tasks[3].VertexID = "ffffffffffffffffffffffffffffffff"
	}
	got := streamed(job, cps, nil, nil, nil)
	if want := Analyze(job, cps, nil, nil, nil); !reflect.DeepEqual(got, want) {
		t.Fatal("streamed analysis differs from Analyze when a vertex appears late")
	}
	seen := false
	for _, c := range got.Checkpoints {
		if b := c.Bottleneck; b != nil && b.VertexID == "ffffffffffffffffffffffffffffffff" {
			seen = true
			if c.ID <= 30 {
				t.Errorf("checkpoint %d names the late vertex", c.ID)
			}
		}
	}
	if !seen {
		t.Error("the late vertex is never a bottleneck, though it is the sink of half the checkpoints")
	}
}

// streamedInOrder analyses cps as the app streams a report: in the cache's
// order (trigger time, then id, then pipeline: ties differ from analysis
// order), each analysis handed over by Emit and Revise. It returns what
// Analyze returns, the emitted analyses in Checkpoints, and how many were
// revised.
func streamedInOrder(t *testing.T, job model.Job, cps []model.Checkpoint, acks []model.AckSample, metrics []model.MetricSample, gaps []model.Gap) (JobAnalysis, int) {
	t.Helper()
	cps = slices.Clone(cps)
	slices.SortStableFunc(cps, func(a, b model.Checkpoint) int {
		return cmp.Or(cmp.Compare(a.TriggerMs, b.TriggerMs), cmp.Compare(a.ID, b.ID), cmp.Compare(a.Pipeline, b.Pipeline))
	})
	// The metrics come after a third of the checkpoints, as the app reads
	// them beside the first ones.
	a := NewAnalyzer(job, acks, nil)
	var got []CheckpointAnalysis
	revised := 0
	s := Streaming{
		Emit: func(k int, ca *CheckpointAnalysis) error {
			if k != len(got) {
				t.Fatalf("emitted %d after %d analyses", k, len(got))
			}
			got = append(got, *ca)
			return nil
		},
		Revise: func(k int, ca *CheckpointAnalysis) error {
			got[k] = *ca
			revised++
			return nil
		},
	}
	var ends []int64
	if HasCommitSamples(metrics) {
		for i := range cps {
			if cps[i].Status == model.StatusCompleted {
				ends = append(ends, cps[i].EndMs())
			}
		}
	}
	a.Stream(s)
	for i := range cps {
		if i == len(cps)/3 {
			a.SetMetrics(metrics, ends)
		}
		if err := a.Add(&cps[i]); err != nil {
			t.Fatal(err)
		}
	}
	if len(cps) == 0 {
		a.SetMetrics(metrics, ends)
	}
	ja, err := a.Finish(gaps)
	if err != nil {
		t.Fatal(err)
	}
	if ja.Checkpoints != nil {
		t.Fatalf("a streaming analysis returned %d checkpoints from Finish", len(ja.Checkpoints))
	}
	ja.Checkpoints = got
	if ja.Checkpoints == nil {
		ja.Checkpoints = []CheckpointAnalysis{}
	}
	return ja, revised
}

// A streamed report says exactly what the whole-slice analysis says, on
// the real captures shipped with the app (failures refined by the job's
// history, sink commits, backpressure, SeaTunnel-free Flink 2.3 and 1.20
// jobs) and on synthetic histories with SeaTunnel-style pipelines sharing
// trigger times.
func TestStreamedAnalysisEqualsAnalyze(t *testing.T) {
	type input struct {
		name    string
		job     model.Job
		cps     []model.Checkpoint
		acks    []model.AckSample
		metrics []model.MetricSample
		gaps    []model.Gap
	}
	var inputs []input
	for _, f := range []string{"flink-knobs.ckpt.gz", "flink120-mixed.ckpt.gz", "flink120-iceberg.ckpt.gz"} {
		rec := capturetest.Read(t, capturetest.Sample(f))
		for _, j := range rec.Jobs {
			inputs = append(inputs, input{name: f + " " + j.Name, job: j, cps: rec.CheckpointsOf(j.ID),
				acks: rec.AckSamples, metrics: rec.MetricSamples, gaps: rec.Gaps})
		}
	}
	job, cps, ms := benchInput(300)
	inputs = append(inputs, input{name: "synthetic", job: job, cps: cps, metrics: ms})
	// Two pipelines checkpointed at the same moments, ids interleaved.
	st := randomCheckpoints(21, 80)
	for i := range st {
		st[i].Pipeline = 1 + i%2
		st[i].TriggerMs = st[i-i%2].TriggerMs
	}
	inputs = append(inputs, input{name: "pipelines sharing trigger times", job: flinkJob(), cps: st})

	revised, commits, failed := 0, 0, 0
	for _, in := range inputs {
		want := Analyze(in.job, in.cps, in.acks, in.metrics, in.gaps)
		got, r := streamedInOrder(t, in.job, in.cps, in.acks, in.metrics, in.gaps)
		if !reflect.DeepEqual(got, want) {
			for k := range min(len(got.Checkpoints), len(want.Checkpoints)) {
				if !reflect.DeepEqual(got.Checkpoints[k], want.Checkpoints[k]) {
					t.Errorf("%s: checkpoint %d streamed\n%+v\nwant\n%+v", in.name, want.Checkpoints[k].ID, got.Checkpoints[k], want.Checkpoints[k])
					break
				}
			}
			got.Checkpoints, want.Checkpoints = nil, nil
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s: streamed job-level analysis\n%+v\nwant\n%+v", in.name, got, want)
			}
			continue
		}
		revised += r
		for _, c := range want.Checkpoints {
			if c.Commit != nil {
				commits++
			}
			if c.Failure != nil {
				failed++
			}
		}
	}
	t.Logf("%d inputs: %d revised, %d commits, %d failures", len(inputs), revised, commits, failed)
	// The inputs reach every part that settles late.
	if revised == 0 || commits == 0 || failed == 0 {
		t.Errorf("inputs reached %d revised analyses, %d commits, %d failures: each should be some", revised, commits, failed)
	}
}

// A streamed analysis refuses checkpoints out of trigger order, and stops
// at the first error Emit returns.
func TestStreamedAnalysisErrors(t *testing.T) {
	cps := randomCheckpoints(5, 10)
	a := NewAnalyzer(flinkJob(), nil, nil)
	a.Stream(Streaming{Emit: func(int, *CheckpointAnalysis) error { return nil }, Revise: func(int, *CheckpointAnalysis) error { return nil }})
	if err := a.Add(&cps[5]); err != nil {
		t.Fatal(err)
	}
	if err := a.Add(&cps[2]); err == nil || !strings.Contains(err.Error(), "trigger order") {
		t.Fatalf("out of order: %v", err)
	}

	stop := errors.New("disk full")
	emitted := 0
	b := NewAnalyzer(flinkJob(), nil, nil)
	b.Stream(Streaming{Emit: func(int, *CheckpointAnalysis) error { emitted++; return stop }, Revise: func(int, *CheckpointAnalysis) error { return nil }})
	b.SetMetrics(nil, nil) // no metrics to wait for: each settles as it comes
	var err error
	for i := range cps {
		if err = b.Add(&cps[i]); err != nil {
			break
		}
	}
	if !errors.Is(err, stop) {
		t.Fatalf("Add after a failed Emit: %v", err)
	}
	if _, err := b.Finish(nil); !errors.Is(err, stop) || emitted != 1 {
		t.Fatalf("Finish: %v after %d emits; want the Emit error after 1", err, emitted)
	}
}
