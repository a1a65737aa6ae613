package analyze

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"checkpoint-explorer/backend/model"
)

// streamed analyses cps through an Analyzer, in the order given.
func streamed(job model.Job, cps []model.Checkpoint, acks []model.AckSample, metrics []model.MetricSample, gaps []model.Gap) JobAnalysis {
	a := NewAnalyzer(job, acks)
	for i := range cps {
		a.Add(&cps[i])
	}
	return a.Finish(metrics, gaps)
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
