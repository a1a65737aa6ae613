package flink_test

// Source.JobConfig with each of its three parts failing in turn: what answered is kept, the
// part that did not is listed unknown with its endpoint and its error (redacted).

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"checkpoint-explorer/backend/collect"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/flink"
)

// failingParts serves the recorded 2.3 answers of every configuration endpoint, except the
// paths in failing, which answer status with a body echoing the request's Authorization.
func failingParts(t *testing.T, auth model.Auth, status int, failing ...string) *flink.Source {
	t.Helper()
	bodies := map[string][]byte{}
	for path, name := range allParts(recordedJob) {
		bodies[path] = flink.ReadTestdata(t, "rest-2.3", name)
	}
	srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
		for _, p := range failing {
			if r.URL.Path == p {
				w.WriteHeader(status)
				fmt.Fprintf(w, `{"errors":["denied for Authorization=%s"]}`, r.Header.Get("Authorization"))
				return
			}
		}
		b, ok := bodies[r.URL.Path]
		if !ok {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		w.Write(b)
	})
	c := newClient(t, flink.Config{BaseURL: srv.URL, Cluster: "c1", Auth: auth})
	return flink.NewSource(c, collect.NewBudget(collect.BudgetOptions{RequestsPerSecond: 1000, Burst: 100}), flink.SourceOptions{})
}

func TestJobConfigKeepsThePartsThatAnswered(t *testing.T) {
	const password = "s3cr3t-Pa55word"
	auth := model.Auth{Kind: model.AuthBasic, Username: "alice", Password: password}
	basic := base64.StdEncoding.EncodeToString([]byte("alice:" + password))
	base := "/jobs/" + recordedJob
	// What each part says in the recorded answers.
	hasCheckpoints := func(c model.JobConfig) bool {
		return c.StateBackend == "rocksdb" && eqI(c.TimeoutMs, i64(45000)) && eqB(c.Unaligned, bl(true))
	}
	hasExecution := func(c model.JobConfig) bool { return c.Keys["execution-config.job-parallelism"] == "1" }
	hasJobManager := func(c model.JobConfig) bool {
		return c.Keys["execution.checkpointing.externalized-checkpoint-retention"] == "RETAIN_ON_CANCELLATION"
	}
	parts := []struct {
		part     model.ConfigPart
		paths    []string // failing
		endpoint map[int]string
		has      func(model.JobConfig) bool
	}{
		{model.ConfigPartCheckpoints, []string{base + "/checkpoints/config"},
			map[int]string{404: "GET /jobs/:jid/checkpoints/config", 500: "GET /jobs/:jid/checkpoints/config"}, hasCheckpoints},
		{model.ConfigPartExecution, []string{base + "/config"},
			map[int]string{404: "GET /jobs/:jid/config", 500: "GET /jobs/:jid/config"}, hasExecution},
		// A 404 of the per-job JobManager configuration falls back to the cluster's: the
		// part is unknown when that fails too, named by the last endpoint asked.
		{model.ConfigPartJobManager, []string{base + "/jobmanager/config", "/jobmanager/config"},
			map[int]string{404: "GET /jobmanager/config", 500: "GET /jobs/:jid/jobmanager/config"}, hasJobManager},
	}
	for _, status := range []int{404, 500} {
		for i, failing := range parts {
			t.Run(fmt.Sprintf("%s %d", failing.part, status), func(t *testing.T) {
				src := failingParts(t, auth, status, failing.paths...)
				cfg, err := src.JobConfig(context.Background(), &model.Job{Cluster: "c1", ID: recordedJob})
				if err != nil {
					t.Fatalf("JobConfig: %v, want the parts that answered", err)
				}
				if cfg.Cluster != "c1" || cfg.JobID != recordedJob {
					t.Errorf("cluster/job = %q %q", cfg.Cluster, cfg.JobID)
				}
				if len(cfg.Unknown) != 1 {
					t.Fatalf("unknown = %+v, want the %s part only", cfg.Unknown, failing.part)
				}
				g := cfg.Unknown[0]
				if g.Part != failing.part || g.Endpoint != failing.endpoint[status] || !strings.Contains(g.Error, fmt.Sprint(status)) {
					t.Errorf("unknown = %+v, want part %s, endpoint %q, an error naming %d", g, failing.part, failing.endpoint[status], status)
				}
				if strings.Contains(g.Error, password) || strings.Contains(g.Error, basic) {
					t.Errorf("the error keeps the credentials: %q", g.Error)
				}
				for j, other := range parts {
					if j != i && !other.has(cfg) {
						t.Errorf("the %s part answered but is not kept: %+v", other.part, cfg)
					}
					if cfg.Knows(other.part) != (j != i) {
						t.Errorf("Knows(%s) = %v", other.part, cfg.Knows(other.part))
					}
				}
				if failing.has(cfg) {
					t.Errorf("what only the failed %s part says is there: %+v", failing.part, cfg)
				}
			})
		}
	}
}

func TestJobConfigWithoutAnyAnswerFails(t *testing.T) {
	base := "/jobs/" + recordedJob
	all := []string{base + "/checkpoints/config", base + "/config", base + "/jobmanager/config", "/jobmanager/config"}
	job := &model.Job{Cluster: "c1", ID: recordedJob}
	// Nothing answered: nothing to keep.
	_, err := failingParts(t, model.Auth{}, 500, all...).JobConfig(context.Background(), job)
	if err == nil || errors.Is(err, collect.ErrJobGone) || !strings.Contains(err.Error(), "500") {
		t.Errorf("every part 500: %v, want the errors", err)
	}
	// Neither the job's checkpoint nor its execution configuration: the job is gone, even though
	// the JobManager's configuration (which answers for any job) did.
	_, err = failingParts(t, model.Auth{}, 404, all[:2]...).JobConfig(context.Background(), job)
	if !errors.Is(err, collect.ErrJobGone) {
		t.Errorf("checkpoint and execution configuration 404: %v, want collect.ErrJobGone", err)
	}
}
