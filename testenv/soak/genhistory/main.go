// Command genhistory fills a Checkpoint Explorer cache with long, collected
// histories for `make soak` (testenv/soak.sh): one main job of many
// checkpoints at a 1 s interval (a day = 86,400) with per-subtask detail and
// backpressure samples every 10 s, plus filler jobs of small checkpoints up to
// a total. It writes through the store's bulk writer (the path an import
// takes), in trigger-time order across the jobs as a collector following them
// all would have (so a period's rows sit together in the file, as retention
// finds them), a transaction per -batch checkpoints, and prints what it wrote
// and how long it took.
//
// The clusters are written as collected (not read-only), so the cache's
// retention limits apply to them as to anything the collector stored.
//
//	genhistory -db DIR/cache.db -cluster soak-long -main 100000 -total 2000000
package main

import (
	"container/heap"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"time"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/model/modeltest"
	"checkpoint-explorer/backend/store"
)

func main() {
	db := flag.String("db", "", "cache file to fill (created if missing)")
	cluster := flag.String("cluster", "soak-long", "cluster name of every job")
	url := flag.String("url", "http://127.0.0.1:9", "the cluster's base URL as stored")
	mainN := flag.Int("main", 100_000, "checkpoints of the main job")
	mainV := flag.Int("main-vertices", 4, "vertices of the main job")
	mainP := flag.Int("main-subtasks", 4, "subtasks per vertex of the main job")
	mainEvery := flag.Duration("main-interval", time.Second, "checkpoint interval of the main job")
	total := flag.Int("total", 2_000_000, "checkpoints in all (main job plus filler jobs)")
	fillerJobs := flag.Int("filler-jobs", 190, "filler jobs sharing total - main")
	fillerV := flag.Int("filler-vertices", 1, "vertices of a filler job")
	fillerP := flag.Int("filler-subtasks", 1, "subtasks per vertex of a filler job")
	fillerEvery := flag.Duration("filler-interval", 10*time.Second, "checkpoint interval of the filler jobs")
	ageEnd := flag.Duration("end-ago", 0, "the newest checkpoint is this long before now")
	batch := flag.Int("batch", 20_000, "checkpoints per transaction")
	metrics := flag.Bool("metrics", true, "backpressure samples every 10 s for the main job")
	flag.Parse()
	if *db == "" {
		fmt.Fprintln(os.Stderr, "genhistory: -db is required")
		os.Exit(2)
	}
	if *total < *mainN {
		*total = *mainN
	}
	ctx := context.Background()
	s, err := store.Open(ctx, *db, store.Retention{}) // no limits while writing
	if err != nil {
		fail(err)
	}
	defer s.Close()
	start := time.Now()
	end := time.Now().Add(-*ageEnd).UnixMilli()

	if err := s.PutCluster(ctx, model.Cluster{Name: *cluster, Engine: model.EngineFlink, BaseURL: *url}); err != nil {
		fail(err)
	}
	mainID := jobID(*cluster, "main")
	jobs := []*genJob{newJob(*cluster, mainID, "soak long history (1 s)", *mainN, *mainV, *mainP, *mainEvery, end, *metrics)}
	if rest := *total - *mainN; rest > 0 && *fillerJobs > 0 {
		per := rest / *fillerJobs
		for j := 0; j < *fillerJobs; j++ {
			count := per
			if j == *fillerJobs-1 {
				count = rest - per*(*fillerJobs-1)
			}
			jobs = append(jobs, newJob(*cluster, jobID(*cluster, fmt.Sprintf("filler-%d", j)), fmt.Sprintf("soak filler %d", j),
				count, *fillerV, *fillerP, *fillerEvery, end, false))
		}
	}
	for _, j := range jobs {
		if err := s.PutJob(ctx, j.job); err != nil {
			fail(err)
		}
	}
	written, err := writeInterleaved(ctx, s, jobs, *batch)
	if err != nil {
		fail(err)
	}
	fmt.Printf("genhistory: main job %s: %d checkpoints × %d vertices × %d subtasks every %s; %d filler jobs: %d checkpoints × %d × %d every %s\n",
		mainID, *mainN, *mainV, *mainP, *mainEvery, len(jobs)-1, written-*mainN, *fillerV, *fillerP, *fillerEvery)
	st, err := s.Stats(ctx)
	if err != nil {
		fail(err)
	}
	fmt.Printf("genhistory: %d checkpoints in %.1f s (%.0f/s); cache %d checkpoints, %d subtask stats, %d metric samples, %.1f MiB used\n",
		written, time.Since(start).Seconds(), float64(written)/time.Since(start).Seconds(),
		st.Checkpoints, st.SubtaskRows, st.MetricSamples, float64(st.UsedBytes)/(1<<20))
	fmt.Printf("MAIN_JOB=%s\n", mainID)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "genhistory:", err)
	os.Exit(1)
}

// jobID is a stable 32-hex-digit id for a job name.
func jobID(cluster, name string) string {
	h := sha1.Sum([]byte(cluster + "/" + name))
	return hex.EncodeToString(h[:16])
}

func vertexID(v int) string { return fmt.Sprintf("%032x", v+1) }

// genJob is one job to generate: count checkpoints every step ms, the
// newest at endMs.
type genJob struct {
	job                model.Job
	count, next        int
	vertices, subtasks int
	first, step        int64
	metrics            bool
}

func newJob(cluster, id, name string, n, vertices, subtasks int, every time.Duration, endMs int64, metrics bool) *genJob {
	j := &genJob{count: n, vertices: vertices, subtasks: subtasks, step: every.Milliseconds(), metrics: metrics}
	j.first = endMs - int64(n-1)*j.step
	j.job = model.Job{Cluster: cluster, ID: id, Name: name, Engine: model.EngineFlink, State: "RUNNING",
		StartMs: j.first - 5000, UpdatedMs: endMs}
	for v := 0; v < vertices; v++ {
		j.job.Vertices = append(j.job.Vertices, model.Vertex{ID: vertexID(v), Name: fmt.Sprintf("Operator %d", v), Parallelism: subtasks})
		if v > 0 {
			j.job.Edges = append(j.job.Edges, model.Edge{Source: vertexID(v - 1), Target: vertexID(v), ShipStrategy: "HASH"})
		}
	}
	return j
}

func (j *genJob) nextTrigger() int64 { return j.first + int64(j.next)*j.step }

// byTrigger orders the jobs by their next checkpoint's trigger time.
type byTrigger []*genJob

func (h byTrigger) Len() int           { return len(h) }
func (h byTrigger) Less(a, b int) bool { return h[a].nextTrigger() < h[b].nextTrigger() }
func (h byTrigger) Swap(a, b int)      { h[a], h[b] = h[b], h[a] }
func (h *byTrigger) Push(x any)        { *h = append(*h, x.(*genJob)) }
func (h *byTrigger) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// writeInterleaved writes every job's checkpoints in trigger-time order
// across jobs, as a collector following them all would have (so rows of the
// same period sit together in the file), batch checkpoints per transaction.
func writeInterleaved(ctx context.Context, s *store.Store, jobs []*genJob, batch int) (int, error) {
	h := byTrigger{}
	for _, j := range jobs {
		if j.count > 0 {
			h = append(h, j)
		}
	}
	heap.Init(&h)
	written := 0
	for h.Len() > 0 {
		err := s.Bulk(ctx, func(w store.Writer) error {
			for n := 0; n < batch && h.Len() > 0; n++ {
				j := h[0]
				cid := int64(j.next + 1)
				trig := j.nextTrigger()
				c := checkpoint(j.job.Cluster, j.job.ID, cid, trig, j.vertices, j.subtasks)
				if err := w.PutCheckpoint(&c); err != nil {
					return err
				}
				if j.metrics && cid%10 == 0 {
					if err := putMetrics(w, j, cid, trig); err != nil {
						return err
					}
				}
				written++
				j.next++
				if j.next == j.count {
					heap.Pop(&h)
				} else {
					heap.Fix(&h, 0)
				}
			}
			return nil
		})
		if err != nil {
			return written, err
		}
	}
	return written, nil
}

// putMetrics writes the backpressure, busy and idle samples of every vertex
// (max and avg), as the collector samples them every 10 s.
func putMetrics(w store.Writer, j *genJob, cid, trig int64) error {
	for v := 0; v < j.vertices; v++ {
		for k, metric := range []string{model.MetricBackPressuredMsPerSec, model.MetricBusyMsPerSec, model.MetricIdleMsPerSec} {
			val := float64((cid*37 + int64(v*101+k*13)) % 1000)
			for _, agg := range []string{model.AggMax, model.AggAvg} {
				if err := w.PutMetricSample(model.MetricSample{Cluster: j.job.Cluster, JobID: j.job.ID, VertexID: vertexID(v),
					Subtask: -1, Metric: metric, Agg: agg, TimeMs: trig, Value: val, Source: "rest"}); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// checkpoint is the store's synthetic checkpoint with some variety: every
// 97th failed, every 500th slow in alignment.
func checkpoint(cluster, job string, id, trig int64, vertices, subtasks int) model.Checkpoint {
	c := modeltest.Checkpoint(cluster, job, id, trig, vertices, subtasks)
	if id%500 == 0 {
		extra := 4000 + (id*13)%3000
		for v := range c.Tasks {
			for i := range c.Tasks[v].Subtasks {
				st := &c.Tasks[v].Subtasks[i]
				st.AlignmentMs += extra
				st.EndToEndMs += extra
				st.AckMs += extra
			}
			c.Tasks[v].EndToEndMs += extra
			c.Tasks[v].LatestAckMs += extra
		}
		c.EndToEndMs += extra
		c.LatestAckMs += extra
		c.CompletionMs += extra
	}
	if id%97 == 0 {
		c.Status = model.StatusFailed
		c.FailureMs, c.CompletionMs = c.LatestAckMs, 0
		c.FailureMessage = "Checkpoint expired before completing."
		c.FinalizeMs = nil
		c.ExternalPath = ""
	}
	return c
}
