package app

import (
	"fmt"
	"net/http"
	"slices"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
)

// Restarts on a real Flink cluster (#32): the knob job's Snapshot Thrower fails its task in
// every 6th checkpoint's synchronous part, and Flink restarts the job under its id from the
// latest completed checkpoint, its restore count one higher each time. The cache keeps the
// counts the polls saw, and the job's restarts carry them: the restarts' counts grow with time,
// and one has the count Flink had at the last poll, marked at or shortly before Flink's own time
// of that restore. (Several restores between two polls give the count they reached to one
// restart: the test asks no more than that, whatever the machine's load.)
func TestFlinkRestartsCarryTheEngineRestoreCount(t *testing.T) {
	env := flinkOn(t, trackFlinkB)
	jid := env.Submit(t, "--name", "ce-restarts", "--interval-ms", "1000", "--fail-task-every", "6")
	a := newCollectingApp(t, env.RESTURL)
	url := env.RESTURL + "/jobs/" + jid + "/checkpoints"
	var seen struct {
		Counts struct {
			Restored int64 `json:"restored"`
		} `json:"counts"`
	}
	waitForState(t, 4*time.Minute, "Flink restored the job 3 times and the collector polled since", func() (bool, string) {
		flinkREST(t, http.MethodGet, url, nil, &seen)
		r, ok, err := a.store.Reconciliation(t.Context(), "flink", jid)
		polled := int64(-1)
		if err == nil && ok && r.Engine != nil {
			polled = r.Engine.Restored
		}
		return seen.Counts.Restored >= 3 && polled == seen.Counts.Restored,
			fmt.Sprintf("Flink restored %d times, the collector's last poll saw %d", seen.Counts.Restored, polled)
	})
	a.stopCollector()
	rcs, err := a.store.RestoreCounts(t.Context(), "flink", jid)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("restore counts kept: %+v", rcs)
	last := rcs[len(rcs)-1]
	if last.Restored < 3 || last.LastRestoreMs <= 0 {
		t.Fatalf("the newest restore count kept %+v, want 3 or more with Flink's restore time", last)
	}

	r, err := a.Report("flink", jid, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	var restarts []model.Change
	for _, c := range r.Changes {
		if c.Kind == model.ChangeRestart {
			restarts = append(restarts, c.Change)
			t.Logf("restart at %d (from %s): %+v", c.TimeMs, c.Source, c.Detail)
		}
	}
	if len(restarts) == 0 {
		t.Fatalf("no restart among the changes %+v; Flink restored the job %d times", r.Changes, last.Restored)
	}
	var prev int64
	for _, c := range restarts {
		if c.Detail.Restored == 0 {
			continue // a restart several restores before the next poll: the count went to a later one
		}
		if c.Detail.Restored <= prev {
			t.Errorf("restart at %d has restore count %d after one with %d: the counts must grow with time", c.TimeMs, c.Detail.Restored, prev)
		}
		prev = c.Detail.Restored
	}
	// The restart that reached the newest count: at Flink's restore, or at the abort before it.
	i := slices.IndexFunc(restarts, func(c model.Change) bool { return c.Detail.Restored == last.Restored })
	if i < 0 {
		t.Fatalf("no restart has restore count %d, the newest the polls saw", last.Restored)
	}
	if at := restarts[i].TimeMs; at > last.LastRestoreMs || at < last.LastRestoreMs-60_000 {
		t.Errorf("the restart to restore count %d is at %d: want at or within a minute before Flink's restore at %d", last.Restored, at, last.LastRestoreMs)
	}
}
