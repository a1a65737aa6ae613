package collect

import (
	"database/sql"
	"strings"
	"testing"
	"time"

	_ "github.com/mattn/go-sqlite3" // integrity_check on the file left behind

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/store"
)

// waitHealth polls the cluster's health until ok says it is what the test
// waits for.
func waitHealth(t *testing.T, m *Manager, within time.Duration, what string, ok func(Health) bool) Health {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		h, _ := m.Health("c1")
		if ok(h) {
			return h
		}
		if time.Now().After(deadline) {
			t.Fatalf("health never %s within %s: %+v", what, within, h)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func (e *rollingEngine) counts() (history, details int) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, n := range e.details {
		details += n
	}
	return len(e.historyCalls), details
}

func diskIsFull(h Health) bool {
	return h.State == "error" && strings.HasPrefix(h.LastError, "the cache's disk is full: ")
}

// A full disk under the cache pauses collection: the health says so, the
// engine is still polled (at a bounded pace, without fetching details that
// could not be stored), nothing is half-written, and when there is room
// again collection resumes by itself; what the engine forgot meanwhile
// became gaps, every id is accounted for.
func TestCollectorPausesOnAFullDiskAndResumes(t *testing.T) {
	st := openStore(t)
	eng := &rollingEngine{start: time.Now(), interval: 40 * time.Millisecond, dur: 15 * time.Millisecond, capacity: 10, details: map[int64]int{}}
	m := startUntilStored(t, st, eng)
	ctx := t.Context()
	time.Sleep(300 * time.Millisecond)

	pages, err := st.SetMaxPageCount(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	h := waitHealth(t, m, 5*time.Second, "the disk is full", diskIsFull)
	if !strings.Contains(h.LastError, st.Path()) || !strings.Contains(h.LastError, "resumes by itself") {
		t.Errorf("health %q does not name the cache and say it resumes", h.LastError)
	}
	t.Logf("full at %d pages; health: %s", pages, h.LastError)

	// Paused for 40 intervals: the engine, 10 deep, forgets some 30.
	hist0, det0 := eng.counts()
	pause := 40 * eng.interval
	time.Sleep(pause)
	hist1, det1 := eng.counts()
	h, _ = m.Health("c1")
	if !diskIsFull(h) {
		t.Errorf("health during the pause: %+v", h)
	}
	polls, details := hist1-hist0, det1-det0
	t.Logf("during a %s pause: %d history polls, %d detail fetches", pause, polls, details)
	// Still polling, but not spinning: waits of at least MinPoll (20 ms), backing off.
	if polls < 3 || polls > int(pause/(20*time.Millisecond))+2 {
		t.Errorf("%d history polls in %s while the disk was full", polls, pause)
	}
	if details > polls/2 {
		t.Errorf("%d detail fetches in %d polls while the disk was full: details cannot be stored", details, polls)
	}

	// Room again: collection resumes by itself.
	if _, err := st.SetMaxPageCount(ctx, 1<<30); err != nil {
		t.Fatal(err)
	}
	resumedAt := time.Now()
	waitHealth(t, m, 5*time.Second, "ok again", func(h Health) bool { return h.State == "ok" })
	t.Logf("resumed %s after the room came back", time.Since(resumedAt).Round(time.Millisecond))
	// Polling resumed for real: a poll stores what the engine still lists. (Waited for rather
	// than slept on: on a loaded machine the polls come late.)
	waitWithin(t, 15*time.Second, "a checkpoint the engine still lists stored, the newest with their details", func() bool {
		cps, _ := storedJob(t, st)
		if len(cps) == 0 || cps[len(cps)-1].ID < eng.triggered(time.Now())-int64(eng.capacity) {
			return false
		}
		newest := cps[len(cps)-1].ID
		for _, full := range withDetails(t, st, cps, func(c model.Checkpoint) bool { return c.Status == model.StatusCompleted && c.ID > newest-5 }) {
			if len(full.Tasks) == 0 {
				return false
			}
		}
		return true
	})
	m.Stop()

	cps, gaps := storedJob(t, st)
	_, inGaps := accountedFor(t, cps, gaps)
	if inGaps == 0 {
		t.Error("no gap although the engine forgot checkpoints while the disk was full")
	}
	maxID := cps[len(cps)-1].ID
	completed := func(c model.Checkpoint) bool { return c.Status == model.StatusCompleted && c.ID > maxID-5 }
	for _, full := range withDetails(t, st, cps, completed) {
		if len(full.Tasks) != 1 || len(full.Tasks[0].Subtasks) != 1 {
			t.Errorf("checkpoint %d stored after the pause without its details", full.ID)
		}
	}
	t.Logf("stored %d checkpoints, %d ids in %d gaps, last id %d", len(cps), inGaps, len(gaps), maxID)

	// Nothing half-written.
	path := st.Path()
	st.Close()
	db, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var res string
	if err := db.QueryRow("PRAGMA integrity_check").Scan(&res); err != nil || res != "ok" {
		t.Errorf("integrity_check: %q %v", res, err)
	}
}

// Retention freeing pages inside the file is room too.
func TestCollectorResumesWhenRetentionFreesRoom(t *testing.T) {
	st := openStore(t)
	eng := &rollingEngine{start: time.Now(), interval: 20 * time.Millisecond, dur: 5 * time.Millisecond, capacity: 10, details: map[int64]int{}}
	m := startPolling(t.Context(), fastOptions(st, nil), eng)
	defer m.Stop()
	time.Sleep(800 * time.Millisecond) // some 40 checkpoints
	if _, err := st.SetMaxPageCount(t.Context(), 1); err != nil {
		t.Fatal(err)
	}
	waitHealth(t, m, 5*time.Second, "the disk is full", diskIsFull)
	st.SetRetention(store.Retention{MaxCheckpointsPerJob: 5})
	res, err := st.ApplyRetention(t.Context())
	if err != nil {
		t.Fatalf("retention on a full cache: %v", err)
	}
	waitHealth(t, m, 5*time.Second, "ok after retention", func(h Health) bool { return h.State == "ok" })
	t.Logf("retention removed %d checkpoints (%d bytes returned); collection resumed", res.Checkpoints, res.FreedBytes)
}
