package app

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"checkpoint-explorer/backend/capture"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/testenv/flinkenv"
)

func TestRecordWritesACompleteCaptureEvenWhenStoppedEarly(t *testing.T) {
	env := flinkenv.Ensure(t)
	jid := flinkenv.SubmitJob(t, "--name", "ce-record", "--interval-ms", "1000", "--rate", "100", "--fail-every", "4")
	out := filepath.Join(t.TempDir(), "rec.ckpt.gz")
	ctx, cancel := context.WithCancel(context.Background())
	var ticks int
	var res RecordProgress
	var err error
	done := make(chan struct{})
	go func() {
		defer close(done)
		res, err = Record(ctx, RecordOptions{
			Cluster: model.Cluster{Name: "lab", Engine: model.EngineFlink, BaseURL: env.RESTURL,
				Auth: model.Auth{Kind: model.AuthBearer, Token: secretToken}},
			JobID: jid, Duration: 10 * time.Minute, Out: out, Every: 200 * time.Millisecond, JobsEvery: time.Second,
			Progress: func(p RecordProgress) {
				ticks++
				if p.Checkpoints >= 8 {
					cancel() // as Ctrl-C would
				}
			},
		})
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		cancel()
		<-done
		t.Fatal("recording did not reach 8 checkpoints in 2 minutes")
	}
	if err != nil {
		t.Fatal(err)
	}
	if res.Checkpoints < 8 || res.Requests == 0 || ticks == 0 {
		t.Fatalf("result %+v after %d progress reports", res, ticks)
	}
	var cps, failed, withTasks int
	sum, err := capture.ReadFile(context.Background(), out, capture.DefaultLimits(), capture.Visitor{
		Cluster: func(c model.Cluster) error {
			if c.Auth.Token != "" || c.Name != "lab" {
				t.Errorf("cluster in the capture: %+v", c)
			}
			return nil
		},
		Checkpoint: func(c *model.Checkpoint) error {
			cps++
			if c.JobID != jid || !c.Status.Final() {
				t.Errorf("checkpoint %d of %s in status %s", c.ID, c.JobID, c.Status)
			}
			if c.Status == model.StatusFailed {
				failed++
			}
			if len(c.Tasks) == 6 {
				withTasks++
			}
			return nil
		},
	})
	if err != nil {
		t.Fatalf("the capture stopped early does not read back: %v", err)
	}
	if int64(cps) != res.Checkpoints || sum.Jobs == 0 || failed == 0 || withTasks < cps-1 {
		t.Errorf("read back %d checkpoints (%d failed, %d with all 6 vertices), %d jobs; recorded %d", cps, failed, withTasks, sum.Jobs, res.Checkpoints)
	}
	// And it opens in the app like any capture.
	a := newTestApp(t, Options{NoSample: true})
	imp, err := a.OpenCapture(out)
	if err != nil || imp.Checkpoints != int64(cps) {
		t.Errorf("import: %+v, %v", imp, err)
	}
}
