package flink

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"checkpoint-explorer/backend/collect"
	"checkpoint-explorer/backend/model"
)

// fakeJobManagerLog serves /jobmanager/logs and /jobmanager/log the way
// Flink does (the whole file, no Range), with faults a real one gives only
// in some setups: no log served (404), a log over the cap.
type fakeJobManagerLog struct {
	mu       sync.Mutex
	body     string
	status   int // of /jobmanager/log; 0 = 200
	listed   int64
	reads    int
	listings int
}

func (f *fakeJobManagerLog) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch r.URL.Path {
	case "/jobmanager/logs":
		f.listings++
		size := int64(len(f.body))
		if f.listed > 0 {
			size = f.listed
		}
		fmt.Fprintf(w, `{"logs":[{"name":"taskmanager.log","size":99,"mtime":1},{"name":"flink-root-standalonesession-0-host.log","size":%d,"mtime":%d}]}`,
			size, len(f.body))
	case "/jobmanager/log":
		if f.status != 0 {
			w.WriteHeader(f.status)
			fmt.Fprint(w, `{"errors":["Not Found"]}`)
			return
		}
		f.reads++
		fmt.Fprint(w, f.body)
	default:
		http.NotFound(w, r)
	}
}

func (f *fakeJobManagerLog) set(fn func(f *fakeJobManagerLog)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(f)
}

func readLogFixture(t *testing.T, name string) string {
	t.Helper()
	return string(ReadTestdata(t, name))
}

func newTestLogReader(t *testing.T, f *fakeJobManagerLog, mode model.JobManagerLogMode) (*logReader, *time.Time) {
	t.Helper()
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	c, err := New(Config{BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	l := newLogReader(c, collect.NewBudget(collect.BudgetOptions{RequestsPerSecond: 1000, Burst: 100}), mode)
	now := time.Unix(1_800_000_000, 0)
	l.now = func() time.Time { return now }
	return l, &now
}

func TestJobManagerLogReadsWhenItGrewAtMostOnceAMinute(t *testing.T) {
	f := &fakeJobManagerLog{body: readLogFixture(t, "jobmanager-2.3.log")}
	l, now := newTestLogReader(t, f, "")
	ctx := context.Background()
	job := &model.Job{ID: "e09b50e34602282ff7b73473e35768e1"}
	cps, st, err := l.LogCheckpoints(ctx, job, false)
	if err != nil || st.State != model.LogRead || len(cps) != 4 || st.Checkpoints != 4 {
		t.Fatalf("first read: %d checkpoints, state %+v, %v", len(cps), st, err)
	}
	// Asked again within the minute: nothing new, no request.
	cps, st, _ = l.LogCheckpoints(ctx, job, false)
	if cps != nil || st.State != model.LogRead || f.listings != 1 {
		t.Errorf("within the minute: %d checkpoints, %d listings", len(cps), f.listings)
	}
	// Another job of the cluster gets its own checkpoints from the same read.
	if other, _, _ := l.LogCheckpoints(ctx, &model.Job{ID: "0123456789abcdef0123456789abcdef"}, false); len(other) != 1 {
		t.Errorf("the other job's checkpoints: %+v", other)
	}
	// A minute later, unchanged: listed, not read again.
	*now = now.Add(time.Minute)
	if cps, _, _ = l.LogCheckpoints(ctx, job, false); cps != nil || f.reads != 1 || f.listings != 2 {
		t.Errorf("unchanged log: %d checkpoints, %d reads, %d listings", len(cps), f.reads, f.listings)
	}
	// It grew: read again, the cut line now whole.
	f.set(func(f *fakeJobManagerLog) { f.body += "0 ms, finalizationTime=3 ms).\n" })
	*now = now.Add(time.Minute)
	cps, _, _ = l.LogCheckpoints(ctx, job, false)
	if len(cps) != 5 || f.reads != 2 || cps[4].ID != 5 || *cps[4].FinalizeMs != 3 {
		t.Errorf("grown log: %+v, %d reads", cps, f.reads)
	}
	// force (a job's first poll, a capture's end) reads before the minute is up.
	f.set(func(f *fakeJobManagerLog) { f.body += "\n" })
	*now = now.Add(2 * time.Second)
	if _, _, _ = l.LogCheckpoints(ctx, job, true); f.reads != 3 {
		t.Errorf("forced read: %d reads, want 3", f.reads)
	}
}

func TestJobManagerLogSaysWhyItCannotBeRead(t *testing.T) {
	ctx := context.Background()
	job := &model.Job{ID: "e09b50e34602282ff7b73473e35768e1"}
	t.Run("not served", func(t *testing.T) {
		f := &fakeJobManagerLog{body: "x", status: 404}
		l, _ := newTestLogReader(t, f, "")
		cps, st, err := l.LogCheckpoints(ctx, job, true)
		if cps != nil || err != nil || st.State != model.LogUnavailable || !strings.Contains(st.Reason, "404") {
			t.Errorf("auto: %v, %+v, %v", cps, st, err)
		}
		l, _ = newTestLogReader(t, f, model.JobManagerLogOn)
		if _, st, err = l.LogCheckpoints(ctx, job, true); err == nil || st.State != model.LogUnavailable {
			t.Errorf("on: a log that cannot be read is an error: %+v, %v", st, err)
		}
	})
	t.Run("over the cap, then read on demand", func(t *testing.T) {
		f := &fakeJobManagerLog{body: readLogFixture(t, "jobmanager-2.3.log"), listed: LogLimit + 1}
		l, now := newTestLogReader(t, f, "")
		cps, st, err := l.LogCheckpoints(ctx, job, true)
		if cps != nil || err != nil || st.State != model.LogTooLarge || f.reads != 0 || !strings.Contains(st.Reason, "16 MiB") {
			t.Fatalf("over the cap: %v, %+v, %v, %d reads", cps, st, err, f.reads)
		}
		l.readBeyondLimit()
		*now = now.Add(time.Second)
		cps, st, _ = l.LogCheckpoints(ctx, job, false)
		if len(cps) != 4 || st.State != model.LogRead || f.reads != 1 {
			t.Errorf("on demand: %d checkpoints, %+v, %d reads", len(cps), st, f.reads)
		}
	})
	t.Run("a body over the cap", func(t *testing.T) {
		f := &fakeJobManagerLog{body: readLogFixture(t, "jobmanager-2.3.log"), listed: 10}
		l, _ := newTestLogReader(t, f, "")
		l.limit = 1000
		if _, st, _ := l.LogCheckpoints(ctx, job, true); st.State != model.LogTooLarge {
			t.Errorf("a log that grew past the cap while it came: %+v", st)
		}
	})
	t.Run("unknown format", func(t *testing.T) {
		f := &fakeJobManagerLog{body: readLogFixture(t, "jobmanager-unknown.log")}
		l, _ := newTestLogReader(t, f, "")
		cps, st, _ := l.LogCheckpoints(ctx, job, true)
		if cps != nil || st.State != model.LogUnrecognised || !strings.Contains(st.Reason, "2 line(s)") {
			t.Errorf("unknown format: %v, %+v", cps, st)
		}
	})
	t.Run("off", func(t *testing.T) {
		f := &fakeJobManagerLog{body: readLogFixture(t, "jobmanager-2.3.log")}
		l, _ := newTestLogReader(t, f, model.JobManagerLogOff)
		if cps, st, _ := l.LogCheckpoints(ctx, job, true); cps != nil || st.State != model.LogOff || f.listings != 0 {
			t.Errorf("off: %v, %+v, %d listings", cps, st, f.listings)
		}
	})
}
