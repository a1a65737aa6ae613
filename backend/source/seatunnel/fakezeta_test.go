package seatunnel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
)

// fakeZeta answers like the REST API v2 of a SeaTunnel 2.3.13 node: the checkpoint endpoints
// render their JSON the way CheckpointMonitorRestService does (key order, jobId as a string,
// {} for an absent latest checkpoint, completedTimestamp/durationMillis/failureReason only when
// set, a ring of 32 per pipeline, newest first), job-info the way BaseService does with
// JobDAGInfo.toJsonObject(). It exists because Maven Central does not serve a runnable 2.3.13
// (see docs/seatunnel.md); the real-node tests take over when one can be had. The test drives
// its state (trigger, ack, complete, fail) and injects faults.
type fakeZeta struct {
	t *testing.T

	mu        sync.Mutex
	jobID     string
	jobStatus string
	env       obj
	pipelines map[int]*fakePipeline
	updatedAt int64
	// noCheckpointAPI answers the checkpoint paths like a 2.3.9–2.3.12 node: Jetty's 404 page.
	noCheckpointAPI bool
	// frozen makes every request fail with 503, so a poller falls behind.
	frozen bool
	// finishedJobsOnlyByState answers bare /finished-jobs with Jetty's 404, as
	// servers that serve only /finished-jobs/:state do.
	finishedJobsOnlyByState bool
	// realtime: "" (no such API: Jetty 404), "on", "disabled" (503).
	realtime      string
	realtimeEdges obj
	realtimeVerts obj
	// wantAuth, when set, is the Authorization header every request must carry.
	wantAuth string
	requests map[string]int
	// metrics, when set, is job-info's metrics block (else a fixed one of two counters); live,
	// when set, makes the block when asked, as 2.3.13 gathers it from the task groups.
	metrics obj
	live    func() obj
	// refreshEvery, when set, serves the overview as a snapshot the engine takes on a period of
	// its own: taken at each multiple of refreshEvery and stamped so, the same until the next.
	refreshEvery time.Duration
	snapSlot     int64
	snapshot     obj
	// clock, when set, is the engine's time for its periodic snapshots (else time.Now).
	clock func() time.Time
}

type fakePipeline struct {
	id                                       int
	nextID                                   int64
	triggered, completed, failed, restored   int64
	latestCompleted, latestFailed, latestSav obj
	inProgress                               *fakeInProgress
	history                                  []obj // newest first
}

type fakeInProgress struct {
	id, trigger int64
	typ         string
	acked, tot  int
}

const fakeJobID = "1179434693738364929"

func newFakeZeta(t *testing.T) (*fakeZeta, *httptest.Server) {
	f := &fakeZeta{
		t: t, jobID: fakeJobID, jobStatus: "RUNNING", pipelines: map[int]*fakePipeline{},
		env: obj{
			{"checkpoint.timeout", "3000"}, {"job.name", "ce-knob"}, {"job.mode", "STREAMING"},
			{"checkpoint.interval", "1500"}, {"parallelism", "2"},
		},
		requests: map[string]int{},
	}
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	return f, srv
}

// obj is a JSON object that keeps its key order, as Hazelcast's JsonObject does.
type obj []kv

type kv struct {
	k string
	v any
}

func (o obj) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, e := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(e.k)
		v, err := json.Marshal(e.v)
		if err != nil {
			return nil, err
		}
		b.Write(k)
		b.WriteByte(':')
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

func (f *fakeZeta) pipeline(p int) *fakePipeline {
	pl := f.pipelines[p]
	if pl == nil {
		pl = &fakePipeline{id: p, nextID: 1, latestCompleted: obj{}, latestFailed: obj{}, latestSav: obj{}}
		f.pipelines[p] = pl
	}
	return pl
}

func (f *fakeZeta) touch() { f.updatedAt = time.Now().UnixMilli() }

// trigger starts checkpoint nextID of pipeline p (CheckpointMonitorService.onCheckpointTriggered).
func (f *fakeZeta) trigger(p int, typ string, total int) int64 {
	f.mu.Lock()
	defer f.mu.Unlock()
	pl := f.pipeline(p)
	id := pl.nextID
	if typ == TypeCompletedPoint {
		id = CompletedPointID
	} else {
		pl.nextID++
	}
	pl.triggered++
	pl.inProgress = &fakeInProgress{id: id, trigger: time.Now().UnixMilli(), typ: typ, tot: total}
	f.touch()
	return id
}

func (f *fakeZeta) ack(p, acked int) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if ip := f.pipeline(p).inProgress; ip != nil {
		ip.acked = acked
		f.touch()
	}
}

// complete ends the checkpoint in flight (onCheckpointCompleted).
func (f *fakeZeta) complete(p int, stateBlobs int64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	pl := f.pipeline(p)
	ip := pl.inProgress
	now := time.Now().UnixMilli()
	info := obj{
		{"checkpointId", ip.id}, {"checkpointType", ip.typ}, {"status", "COMPLETED"},
		{"triggerTimestamp", ip.trigger}, {"completedTimestamp", now}, {"durationMillis", now - ip.trigger},
		{"stateSize", stateBlobs},
	}
	pl.completed++
	pl.latestCompleted = info
	if ip.typ == TypeSavepoint {
		pl.latestSav = info
	}
	pl.addHistory(info)
	pl.inProgress = nil
	f.touch()
}

// fail ends the checkpoint in flight with a close reason (onCheckpointFailed): CANCELED only for
// CHECKPOINT_COORDINATOR_COMPLETED, reason text plus " - " and the cause when there is one.
func (f *fakeZeta) fail(p int, reason, message, cause string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	pl := f.pipeline(p)
	ip := pl.inProgress
	status := "FAILED"
	if reason == "CHECKPOINT_COORDINATOR_COMPLETED" {
		status = "CANCELED"
	}
	text := message
	if cause != "" {
		text = message + " - " + cause
	}
	info := obj{
		{"checkpointId", ip.id}, {"checkpointType", ip.typ}, {"status", status},
		{"triggerTimestamp", ip.trigger}, {"stateSize", int64(0)}, {"failureReason", text},
	}
	pl.failed++
	pl.latestFailed = info
	pl.addHistory(info)
	pl.inProgress = nil
	f.touch()
}

func (pl *fakePipeline) addHistory(info obj) {
	pl.history = append([]obj{{{"pipelineId", pl.id}, {"checkpoint", info}}}, pl.history...)
	if len(pl.history) > HistoryCapacity {
		pl.history = pl.history[:HistoryCapacity]
	}
}

func (f *fakeZeta) set(fn func(f *fakeZeta)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

func (f *fakeZeta) count(endpoint string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.requests[endpoint]
}

func (f *fakeZeta) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	path := r.URL.Path
	f.requests[templateOf(path)]++
	if f.wantAuth != "" && r.Header.Get("Authorization") != f.wantAuth {
		http.Error(w, "unauthorized", http.StatusUnauthorized)
		return
	}
	if f.frozen {
		http.Error(w, "injected: master unreachable", http.StatusServiceUnavailable)
		return
	}
	switch {
	case path == "/overview":
		f.write(w, obj{{"projectVersion", "2.3.13"}, {"gitCommitAbbrev", "deadbee"}, {"totalSlot", "0"},
			{"unassignedSlot", "0"}, {"runningJobs", "1"}, {"finishedJobs", "0"},
			{"failedJobs", "0"}, {"cancelledJobs", "0"}, {"workers", "1"}})
	case path == "/running-jobs":
		f.write(w, []obj{f.jobInfo()})
	case path == "/finished-jobs" && f.finishedJobsOnlyByState:
		jetty404(w, r)
	case path == "/finished-jobs":
		f.write(w, []obj{})
	case strings.HasPrefix(path, "/job-info/"):
		if strings.TrimPrefix(path, "/job-info/") != f.jobID {
			f.write(w, obj{{"jobId", ""}})
			return
		}
		f.write(w, f.jobInfo())
	case strings.HasPrefix(path, "/jobs/checkpoints/"):
		if f.noCheckpointAPI {
			jetty404(w, r)
			return
		}
		if strings.HasPrefix(path, "/jobs/checkpoints/history/") {
			f.writeHistory(w, r)
			return
		}
		f.writeOverview(w, strings.TrimPrefix(path, "/jobs/checkpoints/"))
	case strings.HasPrefix(path, "/metrics/realtime/jobs"):
		switch {
		case f.realtime == "":
			jetty404(w, r)
		case f.realtime == "disabled":
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = w.Write([]byte(`{"status":"fail","message":"Realtime metrics are disabled"}`))
		case path == "/metrics/realtime/jobs":
			f.write(w, obj{{"jobs", []obj{}}})
		case strings.HasSuffix(path, "/edges"):
			f.write(w, f.realtimeEdges)
		case strings.HasSuffix(path, "/vertices"):
			f.write(w, f.realtimeVerts)
		default:
			jetty404(w, r)
		}
	default:
		jetty404(w, r)
	}
}

func templateOf(path string) string {
	parts := strings.Split(path, "/")
	for i, p := range parts {
		if _, err := strconv.ParseInt(p, 10, 64); err == nil {
			parts[i] = ":jobId"
		}
	}
	return strings.Join(parts, "/")
}

// jetty404 is what Jetty 9.4's ErrorHandler answers for a path no servlet serves.
func jetty404(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/html;charset=iso-8859-1")
	w.WriteHeader(http.StatusNotFound)
	fmt.Fprintf(w, "<html>\n<head>\n<meta http-equiv=\"Content-Type\" content=\"text/html;charset=utf-8\"/>\n<title>Error 404 Not Found</title>\n</head>\n<body><h2>HTTP ERROR 404 Not Found</h2>\n<table>\n<tr><th>URI:</th><td>%s</td></tr>\n</table>\n</body>\n</html>\n", r.URL.Path)
}

func (f *fakeZeta) write(w http.ResponseWriter, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		f.t.Errorf("fakeZeta: %v", err)
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

func (f *fakeZeta) jobInfo() obj {
	if model.JobEnded(f.jobStatus) {
		// An ended job is answered from its history (BaseService.getJobInfoJson): no env options.
		return obj{
			{"jobId", f.jobID}, {"jobName", "ce-knob"}, {"jobStatus", f.jobStatus}, {"errorMsg", nil},
			{"createTime", "2026-11-29 14:58:19"}, {"finishTime", "2026-11-29 15:08:19"},
			{"jobDag", f.jobDag()}, {"pluginJarsUrls", []string{}}, {"metrics", f.metricsBlock()},
		}
	}
	return obj{
		{"jobId", f.jobID}, {"jobName", "ce-knob"}, {"jobStatus", f.jobStatus}, {"envOptions", f.env},
		{"createTime", "2026-11-29 14:58:19"},
		{"jobDag", f.jobDag()},
		{"metrics", f.metricsBlock()},
		{"pluginJarsUrls", []string{}}, {"isStartWithSavePoint", false},
	}
}

func (f *fakeZeta) jobDag() obj {
	return obj{
		{"jobId", f.jobID},
		{"pipelineEdges", obj{{"1", []obj{
			{{"inputVertexId", "1"}, {"targetVertexId", "4"}},
			{{"inputVertexId", "4"}, {"targetVertexId", "3"}},
		}}}},
		{"envOptions", f.env},
		{"vertexInfoMap", []obj{
			{{"vertexId", 1}, {"type", "source"}, {"vertexName", "pipeline-1 [Source[0]-FakeSource]"}, {"tablePaths", []string{"fake"}}},
			{{"vertexId", 3}, {"type", "sink"}, {"vertexName", "pipeline-1 [Sink[0]-Console-MultiTableSink]"}, {"tablePaths", []string{"fake"}}},
			{{"vertexId", 4}, {"type", "transform"}, {"vertexName", "pipeline-1 [TransformChain[Transform[0]-Sql]]"}, {"tablePaths", []string{"fake"}}},
		}},
	}
}

func (f *fakeZeta) pipelineIDs() []int {
	ids := make([]int, 0, len(f.pipelines))
	for id := range f.pipelines {
		ids = append(ids, id)
	}
	for i := 1; i < len(ids); i++ {
		for j := i; j > 0 && ids[j] < ids[j-1]; j-- {
			ids[j], ids[j-1] = ids[j-1], ids[j]
		}
	}
	return ids
}

func (f *fakeZeta) metricsBlock() obj {
	switch {
	case f.live != nil:
		return f.live()
	case f.metrics != nil:
		return f.metrics
	}
	return obj{{"SourceReceivedCount", "1000"}, {"SinkWriteCount", "990"}}
}

// setMetrics gives job-info a fixed metrics block (metricsBlock).
func (f *fakeZeta) setMetrics(started time.Time, at time.Time, read, written, committed, queued int64) {
	m := metricsBlock(started, at, read, written, committed, queued)
	f.set(func(f *fakeZeta) { f.metrics = m })
}

// metricsBlock is the metrics block of a 2.3.13 node (BaseService.getJobMetrics: every value a
// string) with these counters of the fake's one source (Source[0]) and one sink (Sink[0]). The
// QPS values are the counts over the time since started, as the engine's meters give them.
func metricsBlock(started time.Time, at time.Time, read, written, committed, queued int64) obj {
	secs := at.Sub(started).Seconds()
	qps := func(n int64) string { return strconv.FormatFloat(float64(n)/secs, 'g', -1, 64) }
	n := func(v int64) string { return strconv.FormatInt(v, 10) }
	const src, sink = "Source[0].fake", "Sink[0].fake"
	return obj{
		{"TableSourceReceivedCount", obj{{src, n(read)}}}, {"TableSourceReceivedQPS", obj{{src, qps(read)}}},
		{"SinkCommittedCount", n(committed)}, {"TableSinkWriteQPS", obj{{sink, qps(written)}}},
		{"TableSinkWriteCount", obj{{sink, n(written)}}}, {"IntermediateQueueSize", n(queued)},
		{"SourceReceivedCount", n(read)}, {"SinkWriteCount", n(written)}, {"SinkWriteQPS", qps(written)},
		{"TableSinkCommittedCount", obj{{sink, n(committed)}}}, {"SourceReceivedQPS", qps(read)},
		{"SinkCommittedQPS", qps(committed)},
	}
}

func (f *fakeZeta) writeOverview(w http.ResponseWriter, jobID string) {
	if f.refreshEvery <= 0 || jobID != f.jobID {
		f.write(w, f.overview(jobID))
		return
	}
	now := time.Now()
	if f.clock != nil {
		now = f.clock()
	}
	if slot := now.UnixNano() / int64(f.refreshEvery); slot != f.snapSlot || f.snapshot == nil {
		at := f.updatedAt
		f.updatedAt = slot * int64(f.refreshEvery) / int64(time.Millisecond)
		f.snapSlot, f.snapshot = slot, f.overview(jobID)
		f.updatedAt = at
	}
	f.write(w, f.snapshot)
}

// overview renders the checkpoint overview as CheckpointMonitorRestService does.
func (f *fakeZeta) overview(jobID string) obj {
	out := obj{{"jobId", jobID}}
	if jobID != f.jobID || len(f.pipelines) == 0 {
		return out // getOverview(jobId) is empty: only the jobId
	}
	var pipes []obj
	for _, id := range f.pipelineIDs() {
		pl := f.pipelines[id]
		inProgress := []obj{}
		var inFlight int64
		if ip := pl.inProgress; ip != nil {
			inFlight = 1
			inProgress = append(inProgress, obj{{"checkpointId", ip.id}, {"checkpointType", ip.typ},
				{"triggerTimestamp", ip.trigger}, {"acknowledged", ip.acked}, {"total", ip.tot}})
		}
		pipes = append(pipes, obj{
			{"pipelineId", id},
			{"counts", obj{{"triggered", pl.triggered}, {"completed", pl.completed}, {"failed", pl.failed},
				{"inProgress", inFlight}, {"restored", pl.restored}}},
			{"latestCompleted", pl.latestCompleted}, {"latestFailed", pl.latestFailed}, {"latestSavepoint", pl.latestSav},
			{"inProgress", inProgress},
			{"history", append([]obj{}, pl.history...)},
		})
	}
	out = append(out, kv{"updatedAt", f.updatedAt}, kv{"pipelines", pipes})
	return out
}

// writeHistory is CheckpointHistoryServlet: pipelineId, limit (default 20), status filters,
// newest trigger first.
func (f *fakeZeta) writeHistory(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit := 20
	if s := q.Get("limit"); s != "" {
		limit, _ = strconv.Atoi(s)
	}
	var out []obj
	for _, id := range f.pipelineIDs() {
		if p := q.Get("pipelineId"); p != "" && p != strconv.Itoa(id) {
			continue
		}
		for _, h := range f.pipelines[id].history {
			info := h[1].v.(obj)
			if s := q.Get("status"); s != "" && info[2].v != strings.ToUpper(s) {
				continue
			}
			out = append(out, h)
		}
	}
	if len(out) > limit {
		out = out[:limit]
	}
	if out == nil {
		out = []obj{}
	}
	f.write(w, out)
}
