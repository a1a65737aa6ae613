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
//
// With -fleet it makes the fleet view's bench (`make bench`, testenv/bench.sh)
// instead: the filler jobs spread over -clusters clusters stored as captures
// (each job's window then ends at its newest checkpoint whenever the cache is
// read), staggered across the interval, each with its configuration and its
// own failures, one in 40 failing, one slower than usual and one slow over its
// newest checkpoints. -filler-keep stores only each job's newest checkpoints
// of its share (ids and times as in the whole share: what a fleet row reads),
// -filler-whole the whole share for some of them.
//
//	genhistory -db DIR/cache.db -fleet -cluster fleet -clusters 20 -main 0 -total 17280000 \
//	  -filler-jobs 2000 -filler-keep 600 -filler-whole 20 -filler-metrics 361
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
	cluster := flag.String("cluster", "soak-long", "cluster name of every job (with -clusters, their prefix)")
	url := flag.String("url", "http://127.0.0.1:9", "the cluster's base URL as stored")
	mainN := flag.Int("main", 100_000, "checkpoints of the main job (0: none)")
	mainV := flag.Int("main-vertices", 4, "vertices of the main job")
	mainP := flag.Int("main-subtasks", 4, "subtasks per vertex of the main job")
	mainEvery := flag.Duration("main-interval", time.Second, "checkpoint interval of the main job")
	total := flag.Int("total", 2_000_000, "checkpoints in all (main job plus filler jobs' shares)")
	fillerJobs := flag.Int("filler-jobs", 190, "filler jobs sharing total - main")
	fillerV := flag.Int("filler-vertices", 1, "vertices of a filler job")
	fillerP := flag.Int("filler-subtasks", 1, "subtasks per vertex of a filler job")
	fillerEvery := flag.Duration("filler-interval", 10*time.Second, "checkpoint interval of the filler jobs")
	fillerKeep := flag.Int("filler-keep", 0, "each filler job stores only the newest this many checkpoints of its share (0: all)")
	fillerWhole := flag.Int("filler-whole", 0, "with -filler-keep, this many filler jobs (spread over the clusters) store their whole share")
	fillerMetrics := flag.Int("filler-metrics", 0, "backpressure, busy and idle samples with each of a filler job's newest this many checkpoints (all of a whole share's)")
	fleet := flag.Bool("fleet", false, "the filler jobs as the fleet bench's (see the command's doc)")
	clusters := flag.Int("clusters", 1, "clusters the filler jobs are spread over, named CLUSTER-01 ... (1: CLUSTER)")
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

	names := clusterNames(*cluster, *clusters)
	for _, name := range names {
		if err := s.PutCluster(ctx, model.Cluster{Name: name, Engine: model.EngineFlink, BaseURL: *url, ReadOnly: *fleet}); err != nil {
			fail(err)
		}
	}
	var jobs []*genJob
	mainID := jobID(*cluster, "main")
	if *mainN > 0 {
		mainJob := newJob(names[0], mainID, "soak long history (1 s)", *mainN, *mainN, *mainV, *mainP, *mainEvery, end)
		if *metrics {
			mainJob.metricsFrom, mainJob.metricsEvery = 0, 10
		}
		jobs = append(jobs, mainJob)
	}
	if rest := *total - *mainN; rest > 0 && *fillerJobs > 0 {
		per := rest / *fillerJobs
		wholeEvery := 0
		if *fillerWhole > 0 {
			wholeEvery = max(1, *fillerJobs / *fillerWhole)
		}
		for k := 0; k < *fillerJobs; k++ {
			share := per
			if k == *fillerJobs-1 {
				share = rest - per*(*fillerJobs-1)
			}
			count := share
			if *fillerKeep > 0 && !(wholeEvery > 0 && k%wholeEvery == 0 && k/wholeEvery < *fillerWhole) {
				count = min(share, *fillerKeep)
			}
			jobEnd := end
			if *fleet {
				jobEnd -= int64(k) * fillerEvery.Milliseconds() / int64(*fillerJobs) // staggered across the interval
			}
			name := names[k%len(names)]
			j := newJob(name, jobID(name, fmt.Sprintf("filler-%d", k)), fmt.Sprintf("soak filler %d", k),
				share, count, *fillerV, *fillerP, *fillerEvery, jobEnd)
			if *fillerMetrics > 0 {
				j.metricsFrom, j.metricsEvery, j.metricsApart = max(0, count-*fillerMetrics), 1, true
				if count == share {
					j.metricsFrom = 0
				}
			}
			if *fleet {
				j.salt, j.trouble = int64(k), fleetTrouble(k, jobEnd)
			}
			jobs = append(jobs, j)
		}
	}
	if err := s.Bulk(ctx, func(w store.Writer) error {
		for _, j := range jobs {
			if err := w.PutJob(j.job); err != nil {
				return err
			}
			if *fleet {
				if err := w.PutJobConfig(j.config()); err != nil {
					return err
				}
			}
		}
		return nil
	}); err != nil {
		fail(err)
	}
	written, err := writeInterleaved(ctx, s, jobs, *batch)
	if err != nil {
		fail(err)
	}
	if err := writeMetricsApart(ctx, s, jobs); err != nil {
		fail(err)
	}
	if *mainN > 0 {
		fmt.Printf("genhistory: main job %s: %d checkpoints × %d vertices × %d subtasks every %s\n", mainID, *mainN, *mainV, *mainP, *mainEvery)
	}
	fmt.Printf("genhistory: %d filler jobs in %d clusters: %d checkpoints × %d × %d every %s\n",
		len(jobs)-min(*mainN, 1), len(names), written-*mainN, *fillerV, *fillerP, *fillerEvery)
	st, err := s.Stats(ctx)
	if err != nil {
		fail(err)
	}
	fmt.Printf("genhistory: %d checkpoints in %.1f s (%.0f/s); cache %d checkpoints, %d subtask stats, %d metric samples, %.1f MiB used\n",
		written, time.Since(start).Seconds(), float64(written)/time.Since(start).Seconds(),
		st.Checkpoints, st.SubtaskRows, st.MetricSamples, float64(st.UsedBytes)/(1<<20))
	if *mainN > 0 {
		fmt.Printf("MAIN_JOB=%s\n", mainID)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "genhistory:", err)
	os.Exit(1)
}

// clusterNames are the n clusters' names: prefix alone for one.
func clusterNames(prefix string, n int) []string {
	if n <= 1 {
		return []string{prefix}
	}
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("%s-%02d", prefix, i+1)
	}
	return out
}

// jobID is a stable 32-hex-digit id for a job name.
func jobID(cluster, name string) string {
	h := sha1.Sum([]byte(cluster + "/" + name))
	return hex.EncodeToString(h[:16])
}

func vertexID(v int) string { return fmt.Sprintf("%032x", v+1) }

// genJob is one job to generate: the newest count of its share of
// checkpoints every step ms, the newest at endMs.
type genJob struct {
	job                model.Job
	count, next        int
	idBase             int64 // the share's checkpoints not stored, before the first stored
	vertices, subtasks int
	first, step        int64
	// Checkpoints from index metricsFrom on whose id metricsEvery divides
	// carry samples; metricsEvery 0: none. With metricsApart they are
	// written after the checkpoints, a job at a time (writeMetricsApart).
	metricsFrom  int
	metricsEvery int64
	metricsApart bool
	salt         int64   // shifts which checkpoints fail or are slow
	trouble      trouble // nil: none
}

func newJob(cluster, id, name string, share, count, vertices, subtasks int, every time.Duration, endMs int64) *genJob {
	j := &genJob{count: count, idBase: int64(share - count), vertices: vertices, subtasks: subtasks, step: every.Milliseconds()}
	j.first = endMs - int64(count-1)*j.step
	j.job = model.Job{Cluster: cluster, ID: id, Name: name, Engine: model.EngineFlink, State: "RUNNING",
		StartMs: j.first - j.idBase*j.step - 5000, UpdatedMs: endMs}
	for v := 0; v < vertices; v++ {
		j.job.Vertices = append(j.job.Vertices, model.Vertex{ID: vertexID(v), Name: fmt.Sprintf("Operator %d", v), Parallelism: subtasks})
		if v > 0 {
			j.job.Edges = append(j.job.Edges, model.Edge{Source: vertexID(v - 1), Target: vertexID(v), ShipStrategy: "HASH"})
		}
	}
	return j
}

func (j *genJob) nextTrigger() int64 { return j.first + int64(j.next)*j.step }

// config is the job's checkpointing configuration: its interval, a timeout
// of 10 minutes.
func (j *genJob) config() model.JobConfig {
	interval, timeout := j.step, int64(10*60_000)
	return model.JobConfig{Cluster: j.job.Cluster, JobID: j.job.ID, SeenMs: j.job.StartMs, Mode: "exactly_once",
		IntervalMs: &interval, TimeoutMs: &timeout}
}

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
				cid := j.idBase + int64(j.next+1)
				trig := j.nextTrigger()
				c := checkpoint(j.job.Cluster, j.job.ID, cid, trig, j.vertices, j.subtasks, j.salt)
				if j.trouble != nil {
					j.trouble(&c)
				}
				if err := w.PutCheckpoint(&c); err != nil {
					return err
				}
				if j.metricsEvery > 0 && !j.metricsApart && j.next >= j.metricsFrom && cid%j.metricsEvery == 0 {
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

// writeMetricsApart writes the samples of the jobs that keep them apart, a
// job at a time: samples are keyed by series and time, and written in the
// checkpoints' order across thousands of jobs' series each transaction
// rewrote pages all over the table (half the generation's time).
func writeMetricsApart(ctx context.Context, s *store.Store, jobs []*genJob) error {
	for _, j := range jobs {
		if !j.metricsApart {
			continue
		}
		if err := s.Bulk(ctx, func(w store.Writer) error {
			for k := j.metricsFrom; k < j.count; k++ {
				if cid := j.idBase + int64(k+1); cid%j.metricsEvery == 0 {
					if err := putMetrics(w, j, cid, j.first+int64(k)*j.step); err != nil {
						return err
					}
				}
			}
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
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
// 97th failed, every 500th slow in alignment (counted from salt).
func checkpoint(cluster, job string, id, trig int64, vertices, subtasks int, salt int64) model.Checkpoint {
	c := modeltest.Checkpoint(cluster, job, id, trig, vertices, subtasks)
	if n := id + salt; n%500 == 0 {
		slowBy(&c, 4000+(n*13)%3000)
	}
	if (id+salt)%97 == 0 {
		failCheckpoint(&c)
	}
	return c
}

// slowBy makes every subtask's alignment, and so the checkpoint, extra ms longer.
func slowBy(c *model.Checkpoint, extra int64) {
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

// failCheckpoint makes c expire after its last acknowledgement.
func failCheckpoint(c *model.Checkpoint) {
	c.Status = model.StatusFailed
	c.FailureMs, c.CompletionMs = c.LatestAckMs, 0
	c.FailureMessage = "Checkpoint expired before completing."
	c.FinalizeMs = nil
	c.ExternalPath = ""
}

// trouble changes a checkpoint of a troubled job.
type trouble func(c *model.Checkpoint)

// fleetTrouble is the trouble of the fleet's job k, whose newest checkpoint
// is at endMs: one job in 40 fails every third checkpoint of its last 15
// minutes, one is 3 s slower than usual over its last 20 (its checkpoints
// take some 0.3 s), one takes 12 s (beyond its 10 s interval) over its last
// 30; the others have none (nil).
func fleetTrouble(k int, endMs int64) trouble {
	const minute = 60_000
	since := func(minutes int64, change func(c *model.Checkpoint)) trouble {
		return func(c *model.Checkpoint) {
			if c.TriggerMs > endMs-minutes*minute {
				change(c)
			}
		}
	}
	switch k % 40 {
	case 0:
		return since(15, func(c *model.Checkpoint) {
			if c.ID%3 == 0 {
				failCheckpoint(c)
			}
		})
	case 1:
		return since(20, func(c *model.Checkpoint) { slowBy(c, 3000) })
	case 2:
		return since(30, func(c *model.Checkpoint) { slowBy(c, 12_000) })
	}
	return nil
}
