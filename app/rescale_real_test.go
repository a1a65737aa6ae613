package app

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/testenv/flinkenv"
)

// A rescale of the same job (#32), on Flink 2.3 with the adaptive scheduler: the knob job runs
// at parallelism 2, its resource requirements are raised to 4 (PUT
// /jobs/:jobid/resource-requirements), and Flink restarts it at 4 from its latest checkpoint.
// The report marks one rescale 2 → 4 per vertex, at the first checkpoint with 4 subtasks (after
// the last with 2), and no restart apart for the restart the adaptive scheduler rescales with.
// Flink 2.3's own rescale history (/jobs/:jobid/rescales/history) is the witness of when it
// rescaled.
func TestFlinkRescaleOnTheAdaptiveSchedulerIsOneChange(t *testing.T) {
	onTrack(t, trackOwnA)
	start := time.Now()
	env := flinkenv.DedicatedAdaptive(t, "app-rescale")
	var conf []struct{ Key, Value string }
	flinkREST(t, http.MethodGet, env.RESTURL+"/jobmanager/config", nil, &conf)
	if !slices.Contains(conf, struct{ Key, Value string }{"jobmanager.scheduler", "adaptive"}) {
		t.Fatalf("the dedicated adaptive cluster's configuration has no jobmanager.scheduler: adaptive: %+v", conf)
	}
	jid := env.Submit(t, "--name", fmt.Sprintf("ce-rescale-%d", start.UnixNano()), "--parallelism", "2", "--interval-ms", "1000")
	a := newAdviceApp(t, env.RESTURL)
	waitDetailed(t, a, 3*time.Minute, 5, jid)
	slowMap := vertexByName(t, a, jid, "Slow Map")

	reqURL := env.RESTURL + "/jobs/" + jid + "/resource-requirements"
	var req map[string]vertexRequirements
	flinkREST(t, http.MethodGet, reqURL, nil, &req)
	if len(req) != 6 || req[slowMap].Parallelism.UpperBound != 2 {
		t.Fatalf("resource requirements %+v: want the knob job's 6 vertices, Slow Map (%s) at most 2", req, slowMap)
	}
	for id, r := range req {
		r.Parallelism.UpperBound = 4
		req[id] = r
	}
	asked := time.Now()
	flinkREST(t, http.MethodPut, reqURL, req, nil)

	// Rescaled once the adaptive scheduler's cooldown since the job's start has passed (30 s
	// by default), at a checkpoint it completes.
	waitForState(t, 4*time.Minute, "3 completed checkpoints with 4 subtasks for every vertex", func() (bool, string) {
		n, at2 := 0, 0
		for _, c := range finalCheckpoints(t, a, jid) {
			switch {
			case c.Status != model.StatusCompleted || len(c.Tasks) == 0:
			case everyVertexAt(c, 4):
				n++
			case everyVertexAt(c, 2):
				at2++
			}
		}
		return n >= 3, fmt.Sprintf("%d completed at 4, %d at 2", n, at2)
	})
	t.Logf("rescaled %v after the requirements were raised", time.Since(asked).Round(time.Second))
	history := flinkRescales(t, env.RESTURL, jid)
	var counts struct {
		Counts struct{ Restored int64 } `json:"counts"`
	}
	flinkREST(t, http.MethodGet, env.RESTURL+"/jobs/"+jid+"/checkpoints", nil, &counts)
	stopAndCancel(t, a, env, jid)

	// Per vertex, the trigger of the last checkpoint the collector saw at 2 and of the first at 4.
	cps := finalCheckpoints(t, a, jid)
	lastAt2, firstAt4 := map[string]int64{}, map[string]int64{}
	names := map[string]bool{}
	var seen []string // runs of checkpoints by subtasks per vertex, and every one not completed
	prev := ""
	for _, c := range cps {
		var perVertex []string
		for _, ts := range c.Tasks {
			perVertex = append(perVertex, fmt.Sprint(ts.NumSubtasks))
			switch ts.NumSubtasks {
			case 2:
				lastAt2[ts.VertexID] = max(lastAt2[ts.VertexID], c.TriggerMs)
			case 4:
				if f, ok := firstAt4[ts.VertexID]; !ok || c.TriggerMs < f {
					firstAt4[ts.VertexID] = c.TriggerMs
				}
			}
		}
		if p := strings.Join(perVertex, " "); p != prev || c.Status != model.StatusCompleted {
			seen = append(seen, fmt.Sprintf("from %d (triggered %d) %s [%s] %s", c.ID, c.TriggerMs, c.Status, p, c.FailureMessage))
			prev = p
		}
	}
	t.Logf("%d checkpoints, subtasks per vertex:\n%s", len(cps), strings.Join(seen, "\n"))
	for _, h := range history {
		t.Logf("Flink's rescale history: %s %s %d–%d, %d vertices", h.TriggerCause, h.TerminalState, h.StartMs, h.EndMs, len(h.Vertices))
	}
	t.Logf("Flink restored the job %d times; Slow Map's last checkpoint at 2 triggered at %d, its first at 4 at %d",
		counts.Counts.Restored, lastAt2[slowMap], firstAt4[slowMap])

	r, err := a.Report("flink", jid, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	rescaled := map[string]model.Change{}
	var restarts []model.Change
	for _, c := range r.Changes {
		t.Logf("change %s at %d (from %s): %+v", c.Kind, c.TimeMs, c.Source, c.Detail)
		switch c.Kind {
		case model.ChangeRescale:
			if _, dup := rescaled[c.Detail.VertexID]; dup {
				t.Errorf("vertex %s rescaled twice: %+v", c.Detail.VertexID, c.Detail)
			}
			rescaled[c.Detail.VertexID] = c.Change
			names[c.Detail.VertexName] = true
		case model.ChangeRestart:
			restarts = append(restarts, c.Change)
		}
	}
	if len(firstAt4) != 6 || len(lastAt2) != 6 {
		t.Fatalf("vertices seen at 2: %v, at 4: %v; want the 6 of the knob job at both", lastAt2, firstAt4)
	}
	// The job restarted only to rescale (Flink's one restore): no restart of its own, whether a
	// checkpoint in flight was aborted by it (after the last checkpoint at 2 was triggered) or not.
	for _, c := range restarts {
		t.Errorf("restart %+v at %d (the last checkpoint at parallelism 2 triggered at %d, the first at 4 at %d; Flink restored %d times): the rescale's own restart is listed apart",
			c.Detail, c.TimeMs, lastAt2[slowMap], firstAt4[slowMap], counts.Counts.Restored)
	}
	for v, first := range firstAt4 {
		c, ok := rescaled[v]
		switch {
		case !ok:
			t.Errorf("vertex %s: no rescale among the changes; Flink rescaled it 2 → 4 (first checkpoint at 4 triggered at %d)", v, first)
		case c.Detail.From != 2 || c.Detail.To != 4 || c.TimeMs <= lastAt2[v] || c.TimeMs > first || c.Detail.VertexName == "":
			t.Errorf("vertex %s: rescale %+v at %d; want 2 → 4, named, after the last checkpoint at 2 (%d), by the first at 4 (%d)",
				v, c.Detail, c.TimeMs, lastAt2[v], first)
		}
	}
	if c := rescaled[slowMap]; c.Detail.VertexName != "Slow Map" {
		t.Errorf("Slow Map's rescale names the vertex %q", c.Detail.VertexName)
	}
	if len(rescaled) != len(firstAt4) {
		t.Errorf("%d vertices marked rescaled, %d rescaled", len(rescaled), len(firstAt4))
	}

	// Flink's history: the rescale asked for, completed 2 → 4, started before the first
	// checkpoint at 4 and after the requirements were raised.
	var done *jobRescale
	for i, h := range history {
		if h.TriggerCause == "UPDATE_REQUIREMENT" && h.TerminalState == "COMPLETED" {
			done = &history[i]
		}
	}
	switch {
	case done == nil:
		t.Errorf("Flink's rescale history has no completed rescale for the raised requirements")
	case len(done.Vertices) != 6 || slices.ContainsFunc(slices.Collect(maps.Values(done.Vertices)), func(v vertexRescale) bool { return v.Pre != 2 || v.Post != 4 }):
		t.Errorf("Flink's rescale of the vertices: %+v, want each 2 → 4", done.Vertices)
	case done.StartMs < asked.UnixMilli()-1000 || rescaled[slowMap].TimeMs < done.StartMs:
		t.Errorf("Flink's rescale started at %d (requirements raised at %d), the report marks it at %d", done.StartMs, asked.UnixMilli(), rescaled[slowMap].TimeMs)
	default:
		t.Logf("Flink rescaled %d–%d (%v); the report marks it at %d, %v after its end", done.StartMs, done.EndMs,
			time.Duration(done.EndMs-done.StartMs)*time.Millisecond, rescaled[slowMap].TimeMs, time.Duration(rescaled[slowMap].TimeMs-done.EndMs)*time.Millisecond)
	}
	t.Logf("%s: %v; rescales named %v", t.Name(), time.Since(start).Round(time.Second), names)
}

// vertexRequirements is one vertex's entry of Flink's resource requirements (the adaptive
// scheduler runs it at the highest parallelism in its bounds the slots allow).
type vertexRequirements struct {
	Parallelism struct {
		LowerBound int `json:"lowerBound"`
		UpperBound int `json:"upperBound"`
	} `json:"parallelism"`
}

// jobRescale is what a test reads of one entry of Flink 2.3's rescale history.
type jobRescale struct {
	UUID          string                   `json:"rescaleUuid"`
	StartMs       int64                    `json:"startTimestampInMillis"`
	EndMs         int64                    `json:"endTimestampInMillis"`
	TriggerCause  string                   `json:"triggerCause"`
	TerminalState string                   `json:"terminalState"`
	Vertices      map[string]vertexRescale `json:"vertices"`
}

type vertexRescale struct {
	Pre  int `json:"preRescaleParallelism"`
	Post int `json:"postRescaleParallelism"`
}

// flinkRescales is the job's rescale history, each entry with its details (the history lists
// no vertices).
func flinkRescales(t *testing.T, restURL, jid string) []jobRescale {
	t.Helper()
	var out []jobRescale
	flinkREST(t, http.MethodGet, restURL+"/jobs/"+jid+"/rescales/history", nil, &out)
	for i, h := range out {
		flinkREST(t, http.MethodGet, restURL+"/jobs/"+jid+"/rescales/details/"+h.UUID, nil, &out[i])
	}
	return out
}

// everyVertexAt reports whether every vertex of c ran n subtasks.
func everyVertexAt(c model.Checkpoint, n int) bool {
	return len(c.Tasks) > 0 && !slices.ContainsFunc(c.Tasks, func(ts model.TaskStats) bool { return ts.NumSubtasks != n })
}

// flinkREST sends a request with body (JSON, when not nil) to Flink's REST API, fails t unless
// Flink answers 2xx, and decodes the answer into out (when not nil).
func flinkREST(t *testing.T, method, url string, body, out any) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil || res.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %s %s (%v)", method, url, res.Status, strings.TrimSpace(string(b)), err)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s %s: %v in %s", method, url, err, b)
		}
	}
}
