package analyze_test

// The advice rules on a configuration of which only the checkpoint part is known: what the rules
// need of it (the state backend, the timeout) is there, so the advice is too.

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"

	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/collect"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/model/modeltest"
	"checkpoint-explorer/backend/source/flink"
)

// checkpointPartOnly reads a job's configuration from a Flink whose checkpoint configuration
// answers (heap state backend, aligned, 6 s timeout) while its job and JobManager
// configuration are 404.
func checkpointPartOnly(t *testing.T, job model.Job) model.JobConfig {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/jobs/"+job.ID+"/checkpoints/config" {
			http.Error(w, `{"errors":["Not found: `+r.URL.Path+`"]}`, http.StatusNotFound)
			return
		}
		w.Write([]byte(`{"mode":"exactly_once","interval":5000,"timeout":6000,"min_pause":0,"max_concurrent":1,
			"state_backend":"HashMapStateBackend","checkpoint_storage":"FileSystemCheckpointStorage",
			"unaligned_checkpoints":false,"tolerable_failed_checkpoints":3,"aligned_checkpoint_timeout":0}`))
	}))
	t.Cleanup(srv.Close)
	c, err := flink.New(flink.Config{BaseURL: srv.URL, Cluster: job.Cluster})
	if err != nil {
		t.Fatal(err)
	}
	src := flink.NewSource(c, collect.NewBudget(collect.BudgetOptions{RequestsPerSecond: 1000, Burst: 100}), flink.SourceOptions{})
	cfg, err := src.JobConfig(context.Background(), &job)
	if err != nil {
		t.Fatalf("JobConfig: %v, want the checkpoint part", err)
	}
	if cfg.Knows(model.ConfigPartExecution) || cfg.Knows(model.ConfigPartJobManager) || !cfg.Knows(model.ConfigPartCheckpoints) {
		t.Fatalf("unknown = %+v, want the execution and JobManager parts", cfg.Unknown)
	}
	return cfg
}

func TestAdviceFromTheCheckpointPartAlone(t *testing.T) {
	job := model.Job{Cluster: "c", ID: "4c0ffee0000000000000000000000030", Name: "heap", Engine: model.EngineFlink,
		Vertices: []model.Vertex{{ID: modeltest.VertexID(0), Name: "Window", Parallelism: 2}}}
	cfg := checkpointPartOnly(t, job)
	a := analyze.NewAnalyzer(job, nil, nil)
	a.SetConfig(&cfg)
	cps := modeltest.AsyncBound(job.Cluster, job.ID, 40, 1_000_000, 5000, 6000)
	for i := range cps {
		a.Add(&cps[i])
	}
	ja, err := a.Finish(nil)
	if err != nil {
		t.Fatal(err)
	}
	advice := map[analyze.AdviceCode]analyze.Advice{}
	for _, ad := range ja.Advice {
		advice[ad.Code] = ad
	}
	// RocksDB for the large heap state (incremental is RocksDB's: not on the heap backend), and
	// the timeout, as the rules define them (docs/advice.md).
	rocks, ok := advice[analyze.AdviceRocksDB]
	if !ok || rocks.Current["state.backend.type"] != "hashmap" {
		t.Errorf("advice %+v, want %s quoting state.backend.type: hashmap", ja.Advice, analyze.AdviceRocksDB)
	}
	timeout, ok := advice[analyze.AdviceTimeout]
	if !ok || timeout.Current["execution.checkpointing.timeout"] != "6 s" || !slices.Contains(timeout.Evidence.CheckpointIDs, 41) {
		t.Errorf("advice %+v, want %s quoting the 6 s timeout, citing checkpoint 41", ja.Advice, analyze.AdviceTimeout)
	}
	if _, ok := advice[analyze.AdviceIncremental]; ok {
		t.Errorf("incremental advised on the heap backend")
	}
}
