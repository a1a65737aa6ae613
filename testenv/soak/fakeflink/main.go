// Command fakeflink serves Flink's REST shapes for N synthetic streaming jobs
// that checkpoint every second, for the load part of `make soak`
// (testenv/soak.sh). Each job behaves as a Flink 2.x job with
// execution.checkpointing.interval 1 s, max-concurrent 1 and the default
// web.checkpoints.history of 10: the list shows the newest 10 checkpoints
// (the running one IN_PROGRESS), newest first, from statistics refreshed every
// web.refresh-interval (3 s); details and per-vertex subtask statistics are
// served for the checkpoints the history still holds, 404 otherwise (as Flink
// answers for an evicted checkpoint). Every 97th checkpoint fails, every 50th
// runs longer than the interval (the next trigger waits for it).
//
// A cluster may front a real JobManager (upstream=URL): its job list is the
// real jobs (only those in keep=, if given) plus the fake ones; requests for
// fake jobs are answered here, everything else is proxied. So one cluster in
// the app holds real and replayed jobs together.
//
// Every cluster listens on its own loopback port and counts the requests it
// gets; GET /soak/stats (not counted) returns the counts and, per fake job,
// the newest checkpoint id triggered and finished, for reconciliation.
//
//	fakeflink -ports-file F -cluster name=fake-1,jobs=10 -cluster name=f2,jobs=7,upstream=http://127.0.0.1:8081,keep=ID+ID
package main

import (
	"crypto/sha1"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"os/signal"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

var (
	interval   = flag.Duration("interval", time.Second, "checkpoint interval of every fake job")
	history    = flag.Int("history", 10, "web.checkpoints.history: checkpoints the list holds")
	statsCache = flag.Duration("stats-cache", 3*time.Second, "web.refresh-interval: how old the list's statistics may be")
	version    = flag.String("flink-version", "2.3.0", "flink-version reported by /config and /overview")
)

type clusterSpecs []string

func (c *clusterSpecs) String() string     { return strings.Join(*c, " ") }
func (c *clusterSpecs) Set(v string) error { *c = append(*c, v); return nil }

func main() {
	var specs clusterSpecs
	flag.Var(&specs, "cluster", "name=N,jobs=J[,vertices=V][,parallelism=P][,upstream=URL][,keep=ID+ID...] (repeat)")
	portsFile := flag.String("ports-file", "", "write one line per cluster: NAME URL")
	flag.Parse()
	if len(specs) == 0 {
		log.Fatal("fakeflink: give at least one -cluster")
	}
	var lines []string
	for _, spec := range specs {
		c, err := newCluster(spec)
		if err != nil {
			log.Fatalf("fakeflink: -cluster %q: %v", spec, err)
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			log.Fatal(err)
		}
		u := "http://" + ln.Addr().String()
		lines = append(lines, c.name+" "+u)
		go func() {
			srv := &http.Server{Handler: c, ReadHeaderTimeout: 10 * time.Second}
			log.Fatal(srv.Serve(ln))
		}()
		log.Printf("fakeflink: cluster %s on %s: %d fake jobs (%d vertices × %d), upstream %q", c.name, u, len(c.jobs), c.vertices, c.parallelism, c.upstreamURL)
	}
	if *portsFile != "" {
		if err := os.WriteFile(*portsFile+".tmp", []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			log.Fatal(err)
		}
		if err := os.Rename(*portsFile+".tmp", *portsFile); err != nil {
			log.Fatal(err)
		}
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
}

// cluster is one fake (or fronted) JobManager.
type cluster struct {
	name                  string
	vertices, parallelism int
	jobs                  []*job
	byID                  map[string]*job
	upstreamURL           string
	proxy                 *httputil.ReverseProxy
	keep                  map[string]bool
	started               time.Time

	mu       sync.Mutex
	requests int64
	byRoute  map[string]int64
	byCode   map[int]int64
	firstReq time.Time
	lastReq  time.Time
}

func newCluster(spec string) (*cluster, error) {
	c := &cluster{vertices: 3, parallelism: 2, byID: map[string]*job{}, byRoute: map[string]int64{}, byCode: map[int]int64{}, started: time.Now()}
	n := 0
	var keep string
	for _, kv := range strings.Split(spec, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("%q is not key=value", kv)
		}
		var err error
		switch k {
		case "name":
			c.name = v
		case "jobs":
			n, err = strconv.Atoi(v)
		case "vertices":
			c.vertices, err = strconv.Atoi(v)
		case "parallelism":
			c.parallelism, err = strconv.Atoi(v)
		case "upstream":
			c.upstreamURL = strings.TrimRight(v, "/")
		case "keep":
			keep = v
		default:
			return nil, fmt.Errorf("unknown key %q", k)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
	}
	if c.name == "" {
		return nil, fmt.Errorf("no name")
	}
	if c.upstreamURL != "" {
		u, err := url.Parse(c.upstreamURL)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("upstream %q: not a URL", c.upstreamURL)
		}
		c.proxy = httputil.NewSingleHostReverseProxy(u)
		if keep != "" {
			c.keep = map[string]bool{}
			for _, id := range strings.Split(keep, "+") {
				c.keep[id] = true
			}
		}
	}
	now := time.Now()
	for i := 0; i < n; i++ {
		h := sha1.Sum([]byte(c.name + "/job-" + strconv.Itoa(i)))
		j := &job{
			id:   hex.EncodeToString(h[:16]),
			name: fmt.Sprintf("soak fake %s #%d", c.name, i),
			// Running for a while already: the history is full at the first poll.
			startMs: now.Add(-time.Duration(120+int(h[0])*4) * time.Second).UnixMilli(),
			seed:    int64(h[1]) | int64(h[2])<<8,
		}
		for v := 0; v < c.vertices; v++ {
			vh := sha1.Sum([]byte(j.id + "/v" + strconv.Itoa(v)))
			j.verts = append(j.verts, vertex{id: hex.EncodeToString(vh[:16]), name: vertexName(v, c.vertices), par: c.parallelism})
		}
		j.nextID, j.nextTrig = 1, j.startMs+1000
		c.jobs = append(c.jobs, j)
		c.byID[j.id] = j
	}
	return c, nil
}

func vertexName(v, n int) string {
	switch {
	case v == 0:
		return "Source: Fake Numbers"
	case v == n-1:
		return "Sink: Fake Discard"
	}
	return fmt.Sprintf("Fake Map %d", v)
}

type vertex struct {
	id, name string
	par      int
}

// ckpt is one triggered checkpoint of a fake job.
type ckpt struct {
	id, trig, dur int64
	failed        bool
}

func (c ckpt) end() int64               { return c.trig + c.dur }
func (c ckpt) finalAt(nowMs int64) bool { return nowMs >= c.end() }
func (c ckpt) acked(nowMs int64, n int) int {
	if c.finalAt(nowMs) {
		if c.failed {
			return n - 1
		}
		return n
	}
	return int(int64(n) * (nowMs - c.trig) / max(c.dur, 1))
}

type job struct {
	id, name string
	startMs  int64
	seed     int64
	verts    []vertex

	mu       sync.Mutex
	recent   []ckpt // the newest triggered, oldest first
	nextID   int64
	nextTrig int64
	listAt   int64  // when the cached list was computed
	listBody []byte // the cached /checkpoints body
}

// duration of checkpoint id: mostly tens of ms, every 50th longer than the interval.
func (j *job) duration(id int64) int64 {
	k := (id*7919 + j.seed) % 1000
	if id%50 == 0 {
		return 1200 + k%400
	}
	return 25 + k%150
}

// advance triggers every checkpoint due by nowMs: max-concurrent 1, so a
// checkpoint is triggered one interval after the previous trigger or when the
// previous one ends, whichever is later.
func (j *job) advance(nowMs int64) {
	iv := interval.Milliseconds()
	for j.nextTrig <= nowMs {
		c := ckpt{id: j.nextID, trig: j.nextTrig, dur: j.duration(j.nextID), failed: j.nextID%97 == 0}
		j.recent = append(j.recent, c)
		j.nextID++
		j.nextTrig = c.trig + max(iv, c.dur+1)
	}
	if keepN := 4 * *history; len(j.recent) > keepN {
		j.recent = append(j.recent[:0], j.recent[len(j.recent)-keepN:]...)
	}
}

// inHistory is the newest `history` checkpoints, oldest first.
func (j *job) inHistory() []ckpt {
	if len(j.recent) <= *history {
		return j.recent
	}
	return j.recent[len(j.recent)-*history:]
}

func (j *job) subtasks() int {
	n := 0
	for _, v := range j.verts {
		n += v.par
	}
	return n
}

func (c *cluster) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path == "/soak/stats" {
		c.writeStats(w)
		return
	}
	rec := &statusWriter{ResponseWriter: w, code: 200}
	c.route(rec, r)
	c.mu.Lock()
	now := time.Now()
	if c.requests == 0 {
		c.firstReq = now
	}
	c.lastReq = now
	c.requests++
	c.byRoute[template(r.URL.Path)]++
	c.byCode[rec.code]++
	c.mu.Unlock()
}

type statusWriter struct {
	http.ResponseWriter
	code int
}

func (s *statusWriter) WriteHeader(code int) {
	s.code = code
	s.ResponseWriter.WriteHeader(code)
}

var (
	hexID  = regexp.MustCompile(`/[0-9a-f]{32}`)
	numSeg = regexp.MustCompile(`/[0-9]+(/|$)`)
)

// template turns a path into its endpoint ("/jobs/:id/checkpoints/details/:n").
func template(p string) string {
	p = hexID.ReplaceAllString(p, "/:id")
	return numSeg.ReplaceAllString(p, "/:n$1")
}

func (c *cluster) route(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if r.Method != http.MethodGet {
		c.forward(w, r)
		return
	}
	switch {
	case r.URL.Path == "/jobs/overview":
		c.jobsOverview(w, r)
		return
	case r.URL.Path == "/config" && c.proxy == nil:
		writeJSON(w, map[string]any{"refresh-interval": statsCache.Milliseconds(), "timezone-name": "Coordinated Universal Time",
			"timezone-offset": 0, "flink-version": *version, "flink-revision": "fakeflink",
			"features": map[string]bool{"web-submit": false, "web-cancel": false, "web-rescale": false, "web-history": false}})
		return
	case r.URL.Path == "/overview" && c.proxy == nil:
		writeJSON(w, map[string]any{"taskmanagers": 1, "slots-total": len(c.jobs), "slots-available": 0,
			"jobs-running": len(c.jobs), "jobs-finished": 0, "jobs-cancelled": 0, "jobs-failed": 0, "flink-version": *version, "flink-commit": "fake"})
		return
	case r.URL.Path == "/jobmanager/logs" && c.proxy == nil:
		writeJSON(w, map[string]any{"logs": []any{}})
		return
	case len(parts) >= 2 && parts[0] == "jobs":
		if j, ok := c.byID[parts[1]]; ok {
			c.serveJob(w, r, j, parts[2:])
			return
		}
	}
	c.forward(w, r)
}

func (c *cluster) forward(w http.ResponseWriter, r *http.Request) {
	if c.proxy != nil {
		c.proxy.ServeHTTP(w, r)
		return
	}
	notFound(w, "Not found: "+r.URL.Path)
}

func notFound(w http.ResponseWriter, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.WriteHeader(http.StatusNotFound)
	json.NewEncoder(w).Encode(map[string]any{"errors": []string{msg}})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	json.NewEncoder(w).Encode(v)
}

func writeRaw(w http.ResponseWriter, b []byte) {
	w.Header().Set("Content-Type", "application/json; charset=UTF-8")
	w.Write(b)
}

func (c *cluster) jobsOverview(w http.ResponseWriter, r *http.Request) {
	var list []any
	if c.proxy != nil {
		resp, err := http.Get(c.upstreamURL + "/jobs/overview")
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		var up struct {
			Jobs []map[string]any `json:"jobs"`
		}
		err = json.NewDecoder(resp.Body).Decode(&up)
		resp.Body.Close()
		if err != nil || resp.StatusCode != 200 {
			http.Error(w, fmt.Sprintf("upstream /jobs/overview: %d %v", resp.StatusCode, err), http.StatusBadGateway)
			return
		}
		for _, j := range up.Jobs {
			if id, _ := j["jid"].(string); c.keep == nil || c.keep[id] {
				list = append(list, j)
			}
		}
	}
	now := time.Now().UnixMilli()
	for _, j := range c.jobs {
		n := j.subtasks()
		list = append(list, map[string]any{"jid": j.id, "name": j.name, "jobType": "STREAMING", "start-time": j.startMs,
			"end-time": -1, "duration": now - j.startMs, "state": "RUNNING", "last-modification": j.startMs + 200,
			"tasks": map[string]int{"running": n, "total": n}})
	}
	if list == nil {
		list = []any{}
	}
	writeJSON(w, map[string]any{"jobs": list})
}

func (c *cluster) serveJob(w http.ResponseWriter, r *http.Request, j *job, rest []string) {
	now := time.Now().UnixMilli()
	j.mu.Lock()
	defer j.mu.Unlock()
	j.advance(now)
	switch {
	case len(rest) == 0:
		writeJSON(w, j.detail(now))
	case len(rest) == 1 && rest[0] == "checkpoints":
		if j.listBody == nil || now-j.listAt >= statsCache.Milliseconds() {
			b, _ := json.Marshal(j.list(now))
			j.listBody, j.listAt = b, now
		}
		writeRaw(w, j.listBody)
	case len(rest) == 2 && rest[0] == "checkpoints" && rest[1] == "config":
		writeJSON(w, map[string]any{"mode": "exactly_once", "interval": interval.Milliseconds(), "timeout": 600000, "min_pause": 0,
			"max_concurrent": 1, "externalization": map[string]bool{"enabled": true, "delete_on_cancellation": false},
			"state_backend": "HashMapStateBackend", "checkpoint_storage": "FileSystemCheckpointStorage", "unaligned_checkpoints": false,
			"tolerable_failed_checkpoints": 1000000, "aligned_checkpoint_timeout": 0, "checkpoints_after_tasks_finish": true,
			"state_changelog_enabled": false})
	case len(rest) >= 3 && rest[0] == "checkpoints" && rest[1] == "details":
		cid, err := strconv.ParseInt(rest[2], 10, 64)
		if err != nil {
			notFound(w, "bad checkpoint id")
			return
		}
		var cp *ckpt
		for _, c := range j.inHistory() {
			if c.id == cid {
				cp = &c
				break
			}
		}
		if cp == nil {
			notFound(w, fmt.Sprintf("Could not find checkpointing statistics for checkpoint %d.", cid))
			return
		}
		switch {
		case len(rest) == 3:
			writeJSON(w, j.checkpointJSON(*cp, now, true))
		case len(rest) == 5 && rest[3] == "subtasks":
			for vi, v := range j.verts {
				if v.id == rest[4] {
					writeJSON(w, j.subtasksJSON(*cp, vi, now))
					return
				}
			}
			notFound(w, "There is no checkpoint statistics for task "+rest[4]+".")
		default:
			notFound(w, "Not found")
		}
	case len(rest) == 4 && rest[0] == "vertices" && rest[2] == "subtasks" && rest[3] == "metrics":
		j.metrics(w, r, rest[1], now)
	case len(rest) == 3 && rest[0] == "vertices" && rest[2] == "backpressure":
		var subs []any
		for _, v := range j.verts {
			if v.id == rest[1] {
				for i := 0; i < v.par; i++ {
					subs = append(subs, map[string]any{"subtask": i, "backpressureLevel": "ok", "ratio": 0.0, "idleRatio": 0.9, "busyRatio": 0.1})
				}
			}
		}
		writeJSON(w, map[string]any{"status": "ok", "backpressureLevel": "ok", "end-timestamp": now, "subtasks": subs})
	default:
		notFound(w, "Not found: "+r.URL.Path)
	}
}

func (j *job) detail(now int64) map[string]any {
	var verts, nodes []any
	for i, v := range j.verts {
		verts = append(verts, map[string]any{"id": v.id, "name": v.name, "maxParallelism": 128, "parallelism": v.par, "status": "RUNNING",
			"start-time": j.startMs + 100, "end-time": -1, "duration": now - j.startMs, "tasks": map[string]int{"RUNNING": v.par}})
		node := map[string]any{"id": v.id, "parallelism": v.par, "operator": "", "operator_strategy": "", "description": v.name}
		if i > 0 {
			node["inputs"] = []any{map[string]any{"id": j.verts[i-1].id, "num": 0, "ship_strategy": "HASH", "exchange": "pipelined_bounded"}}
		}
		nodes = append(nodes, node)
	}
	// Flink lists plan nodes sinks first.
	for a, b := 0, len(nodes)-1; a < b; a, b = a+1, b-1 {
		nodes[a], nodes[b] = nodes[b], nodes[a]
	}
	return map[string]any{"jid": j.id, "name": j.name, "isStoppable": false, "state": "RUNNING", "job-type": "STREAMING",
		"start-time": j.startMs, "end-time": -1, "duration": now - j.startMs, "maxParallelism": -1, "now": now,
		"vertices": verts, "plan": map[string]any{"jid": j.id, "name": j.name, "type": "STREAMING", "nodes": nodes}}
}

func (j *job) checkpointJSON(c ckpt, now int64, withTasks bool) map[string]any {
	n := j.subtasks()
	status, class := "IN_PROGRESS", "in_progress"
	ack := c.acked(now, n)
	latestAck := c.trig + (now-c.trig)*int64(ack)/int64(max(n, 1))
	e2e := now - c.trig
	if c.finalAt(now) {
		status, class, latestAck, e2e = "COMPLETED", "completed", c.end(), c.dur
		if c.failed {
			status, class = "FAILED", "failed"
		}
	}
	state := int64(1<<20) + c.id*64
	m := map[string]any{"className": class, "id": c.id, "status": status, "is_savepoint": false, "savepointFormat": nil,
		"trigger_timestamp": c.trig, "latest_ack_timestamp": latestAck, "checkpointed_size": state / 4, "state_size": state,
		"end_to_end_duration": e2e, "alignment_buffered": 0, "processed_data": 0, "persisted_data": 0,
		"num_subtasks": n, "num_acknowledged_subtasks": ack, "checkpoint_type": "CHECKPOINT", "tasks": map[string]any{}}
	if status == "COMPLETED" {
		m["external_path"] = fmt.Sprintf("file:/fake/checkpoints/%s/chk-%d", j.id, c.id)
		m["discarded"] = false
	}
	if status == "FAILED" {
		m["failure_timestamp"] = c.end()
		m["failure_message"] = "Asynchronous task checkpoint failed."
	}
	if withTasks {
		tasks := map[string]any{}
		left := ack
		for _, v := range j.verts {
			a := min(left, v.par)
			left -= a
			tasks[v.id] = map[string]any{"id": c.id, "status": status, "latest_ack_timestamp": latestAck, "checkpointed_size": state / 4 / int64(len(j.verts)),
				"state_size": state / int64(len(j.verts)), "end_to_end_duration": e2e, "alignment_buffered": 0, "processed_data": 0,
				"persisted_data": 0, "num_subtasks": v.par, "num_acknowledged_subtasks": a}
		}
		m["tasks"] = tasks
	}
	return m
}

func (j *job) list(now int64) map[string]any {
	hist := j.inHistory()
	var entries []any
	var latestCompleted, latestFailed any
	for i := len(hist) - 1; i >= 0; i-- {
		e := j.checkpointJSON(hist[i], now, false)
		entries = append(entries, e)
		if latestCompleted == nil && e["status"] == "COMPLETED" {
			latestCompleted = e
		}
		if latestFailed == nil && e["status"] == "FAILED" {
			latestFailed = e
		}
	}
	triggered := j.nextID - 1
	inProgress := int64(0)
	lastFinal := triggered
	if len(j.recent) > 0 && !j.recent[len(j.recent)-1].finalAt(now) {
		inProgress, lastFinal = 1, triggered-1
	}
	failed := lastFinal / 97
	return map[string]any{
		"counts":  map[string]int64{"restored": 0, "total": triggered, "in_progress": inProgress, "completed": lastFinal - failed, "failed": failed},
		"latest":  map[string]any{"completed": latestCompleted, "savepoint": nil, "failed": latestFailed, "restored": nil},
		"history": entries,
	}
}

func (j *job) subtasksJSON(c ckpt, vi int, now int64) map[string]any {
	v := j.verts[vi]
	n := j.subtasks()
	ack := c.acked(now, n)
	before := 0
	for _, u := range j.verts[:vi] {
		before += u.par
	}
	var subs []any
	acked := 0
	for i := 0; i < v.par; i++ {
		k := (c.id*131 + int64(vi*17+i*7) + j.seed) % 97
		if before+i >= ack {
			subs = append(subs, map[string]any{"index": i, "status": "pending_or_failed"})
			continue
		}
		acked++
		e2e := max(c.dur-k%20, 1)
		sync := 1 + k%5
		async := max(e2e-sync-k%7-2, 0)
		subs = append(subs, map[string]any{"className": "completed", "index": i, "ack_timestamp": c.trig + e2e, "end_to_end_duration": e2e,
			"checkpointed_size": 4096 + k, "state_size": 16384 + k*3, "checkpoint": map[string]int64{"sync": sync, "async": async},
			"alignment": map[string]int64{"buffered": 0, "processed": 0, "persisted": 0, "duration": k % 7}, "start_delay": 2,
			"unaligned_checkpoint": false, "aborted": false, "status": "completed"})
	}
	status := "IN_PROGRESS"
	if c.finalAt(now) {
		status = "COMPLETED"
		if c.failed {
			status = "FAILED"
		}
	}
	return map[string]any{"id": c.id, "status": status, "latest_ack_timestamp": c.trig + c.dur, "checkpointed_size": int64(4096 * v.par),
		"state_size": int64(16384 * v.par), "end_to_end_duration": c.dur, "alignment_buffered": 0, "processed_data": 0, "persisted_data": 0,
		"num_subtasks": v.par, "num_acknowledged_subtasks": acked, "subtasks": subs}
}

var knownMetrics = []string{"backPressuredTimeMsPerSecond", "busyTimeMsPerSecond", "idleTimeMsPerSecond",
	"numRecordsInPerSecond", "numRecordsOutPerSecond", "checkpointStartDelayNanos"}

func (j *job) metrics(w http.ResponseWriter, r *http.Request, vid string, now int64) {
	get := r.URL.Query().Get("get")
	if get == "" {
		var out []any
		for _, m := range knownMetrics {
			out = append(out, map[string]string{"id": m})
		}
		writeJSON(w, out)
		return
	}
	// Flink answers an empty list if any requested name is unknown.
	var out []any
	for _, name := range strings.Split(get, ",") {
		known := false
		for _, m := range knownMetrics {
			known = known || m == name
		}
		if !known {
			writeJSON(w, []any{})
			return
		}
		// Values change every metrics.fetcher.update-interval (10 s).
		slot := now / 10000
		v := float64((slot*37 + int64(len(name))*11 + j.seed) % 1000)
		if name == "idleTimeMsPerSecond" {
			v = 1000 - v
		}
		out = append(out, map[string]any{"id": name, "max": v, "avg": v / 2})
	}
	writeJSON(w, out)
}

func (c *cluster) writeStats(w http.ResponseWriter) {
	now := time.Now()
	type jobStats struct {
		ID              string `json:"id"`
		Name            string `json:"name"`
		LatestTriggered int64  `json:"latest_triggered"`
		LatestFinal     int64  `json:"latest_final"`
		Failed          int64  `json:"failed"`
	}
	var jobs []jobStats
	for _, j := range c.jobs {
		j.mu.Lock()
		j.advance(now.UnixMilli())
		js := jobStats{ID: j.id, Name: j.name, LatestTriggered: j.nextID - 1}
		js.LatestFinal = js.LatestTriggered
		if len(j.recent) > 0 && !j.recent[len(j.recent)-1].finalAt(now.UnixMilli()) {
			js.LatestFinal--
		}
		js.Failed = js.LatestFinal / 97
		j.mu.Unlock()
		jobs = append(jobs, js)
	}
	c.mu.Lock()
	routes := make([]string, 0, len(c.byRoute))
	for r := range c.byRoute {
		routes = append(routes, r)
	}
	sort.Strings(routes)
	byRoute := map[string]int64{}
	for _, r := range routes {
		byRoute[r] = c.byRoute[r]
	}
	codes := map[string]int64{}
	for k, v := range c.byCode {
		codes[strconv.Itoa(k)] = v
	}
	out := map[string]any{"cluster": c.name, "upstream": c.upstreamURL, "requests": c.requests, "by_route": byRoute, "by_code": codes,
		"first_request_ms": c.firstReq.UnixMilli(), "last_request_ms": c.lastReq.UnixMilli(), "now_ms": now.UnixMilli(), "jobs": jobs}
	c.mu.Unlock()
	writeJSON(w, out)
}
