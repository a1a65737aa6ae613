package store

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/model/modeltest"
)

// The crash test re-executes the test binary as a writer process (selected
// by crashChildEnv), kills it with SIGKILL while it writes, and checks the
// database it leaves behind.
const (
	crashChildEnv = "STORE_CRASH_CHILD_DB"
	crashBatch    = 40 // checkpoints per transaction
)

// crashShape derives a checkpoint's shape from its id, so the checker knows
// exactly which rows each stored checkpoint must have.
func crashShape(id int64) (vertices, subtasks int) {
	return 1 + int(id%4), 1 + int((id*7)%64)
}

func crashCheckpoint(id int64) model.Checkpoint {
	v, n := crashShape(id)
	return modeltest.Checkpoint("crash", "job", id, 1_000_000+id*1000, v, n)
}

// TestCrashChildWriter is the child process; it does nothing in a normal run.
func TestCrashChildWriter(t *testing.T) {
	path := os.Getenv(crashChildEnv)
	if path == "" {
		t.Skip("only runs as the child of TestCrashSafety")
	}
	ctx := context.Background()
	s, err := Open(ctx, path, Retention{})
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(2)
	}
	last, _, err := s.LatestCheckpointID(ctx, "crash", "job", 0)
	if err != nil {
		fmt.Println("ERROR", err)
		os.Exit(2)
	}
	next := last + 1
	for batch := 0; ; batch++ {
		cps := make([]model.Checkpoint, crashBatch)
		for i := range cps {
			cps[i] = crashCheckpoint(next + int64(i))
		}
		if batch%2 == 0 {
			err = s.PutCheckpoints(ctx, cps)
		} else {
			err = s.Bulk(ctx, func(w Writer) error {
				for i := range cps {
					if err := w.PutCheckpoint(&cps[i]); err != nil {
						return err
					}
					if err := w.PutAckSample(model.AckSample{Cluster: "crash", JobID: "job", CheckpointID: cps[i].ID, TimeMs: cps[i].TriggerMs}); err != nil {
						return err
					}
				}
				return nil
			})
		}
		if err != nil {
			fmt.Println("ERROR", err)
			os.Exit(2)
		}
		next += crashBatch
		if batch == 0 {
			fmt.Println("READY") // something is committed; the parent may kill now
		}
	}
}

func TestCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns writer processes")
	}
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "crash.db")
	var lastCount int
	for round := range 4 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChildWriter$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		ready := make(chan error, 1)
		drained := make(chan struct{})
		go func() {
			defer close(drained)
			sc := bufio.NewScanner(out)
			signalled := false
			for sc.Scan() {
				switch line := sc.Text(); {
				case signalled:
				case line == "READY":
					ready <- nil
					signalled = true
				case strings.HasPrefix(line, "ERROR"):
					ready <- fmt.Errorf("child: %s", line)
					signalled = true
				}
			}
			if !signalled {
				ready <- fmt.Errorf("child exited before writing")
			}
		}()
		kill := func() {
			cmd.Process.Signal(syscall.SIGKILL)
			<-drained // all reads done before Wait closes the pipe
			cmd.Wait()
		}
		select {
		case err := <-ready:
			if err != nil {
				kill()
				t.Fatal(err)
			}
		case <-time.After(60 * time.Second):
			kill()
			t.Fatal("child never became ready")
		}
		// Kill at a different point of the write loop each round.
		time.Sleep(time.Duration(15+round*20) * time.Millisecond)
		kill()

		count := checkCrashDB(t, ctx, path)
		if count <= lastCount {
			t.Errorf("round %d: %d checkpoints stored, not more than %d before", round, count, lastCount)
		}
		lastCount = count
		t.Logf("round %d: %d whole checkpoints after SIGKILL", round, count)
	}
}

// checkCrashDB opens the database a killed writer left, checks its integrity
// and that it holds whole batches of whole checkpoints only.
func checkCrashDB(t *testing.T, ctx context.Context, path string) int {
	t.Helper()
	s, err := Open(ctx, path, Retention{})
	if err != nil {
		t.Fatalf("open after crash: %v", err)
	}
	defer s.Close()
	var integrity string
	if err := s.r.QueryRowContext(ctx, "PRAGMA integrity_check").Scan(&integrity); err != nil {
		t.Fatal(err)
	}
	if integrity != "ok" {
		t.Fatalf("integrity_check: %s", integrity)
	}
	var mismatched int
	if err := s.r.QueryRowContext(ctx, `SELECT count(*) FROM checkpoints c
		WHERE c.subtask_rows != (SELECT coalesce(sum(max(t.subtask_rows, 0)), 0) FROM task_stats t WHERE t.ckpt = c.pk)
		   OR c.task_rows != (SELECT count(*) FROM task_stats t WHERE t.ckpt = c.pk)
		   OR EXISTS (SELECT 1 FROM task_stats t LEFT JOIN subtask_packs p ON p.id = t.ckpt << 16 | t.ord
		              WHERE t.ckpt = c.pk AND (p.packed IS NULL) != (t.subtask_rows < 0))`).Scan(&mismatched); err != nil {
		t.Fatal(err)
	}
	if mismatched != 0 {
		t.Errorf("%d checkpoints whose row counts disagree with their detail rows", mismatched)
	}
	var orphans int
	if err := s.r.QueryRowContext(ctx, `SELECT
		(SELECT count(*) FROM subtask_packs WHERE id >> 16 NOT IN (SELECT pk FROM checkpoints)) +
		(SELECT count(*) FROM task_stats WHERE ckpt NOT IN (SELECT pk FROM checkpoints))`).Scan(&orphans); err != nil {
		t.Fatal(err)
	}
	if orphans != 0 {
		t.Errorf("%d detail rows without a checkpoint", orphans)
	}

	n := 0
	err = s.ScanCheckpoints(ctx, Query{Cluster: "crash", JobID: "job"}, true, func(c *model.Checkpoint) error {
		n++
		if c.ID != int64(n) {
			return fmt.Errorf("checkpoint #%d has id %d: a batch is partly missing", n, c.ID)
		}
		want := crashCheckpoint(c.ID)
		if len(c.Tasks) != len(want.Tasks) {
			return fmt.Errorf("checkpoint %d has %d tasks, was written with %d", c.ID, len(c.Tasks), len(want.Tasks))
		}
		for i := range want.Tasks {
			if len(c.Tasks[i].Subtasks) != len(want.Tasks[i].Subtasks) {
				return fmt.Errorf("checkpoint %d vertex %d has %d subtasks, was written with %d",
					c.ID, i, len(c.Tasks[i].Subtasks), len(want.Tasks[i].Subtasks))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n == 0 || n%crashBatch != 0 {
		t.Errorf("%d checkpoints stored: not a whole number of %d-checkpoint batches", n, crashBatch)
	}
	return n
}
