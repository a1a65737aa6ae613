package flinkenv

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/testenv/envscript"
)

// TestMatrixVersions keeps versions.txt well formed and the Go and script readings of it equal.
func TestMatrixVersions(t *testing.T) {
	t.Setenv("FLINK_MATRIX", "")
	got, err := MatrixVersions()
	if err != nil {
		t.Fatal(err)
	}
	if len(got) < 2 || !slices.Contains(got, DefaultVersion) {
		t.Errorf("matrix %v: want several versions, %s among them", got, DefaultVersion)
	}
	script, err := Script("matrix.sh")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := envscript.Run(ctx, []string{"FLINK_MATRIX="}, script, "list")
	if err != nil {
		t.Fatal(err)
	}
	if s := strings.Fields(out); !slices.Equal(s, got) {
		t.Errorf("matrix.sh list = %v, MatrixVersions = %v", s, got)
	}

	t.Setenv("FLINK_MATRIX", "1.19.3, 2.3.0")
	if got, err := MatrixVersions(); err != nil || !slices.Equal(got, []string{"1.19.3", "2.3.0"}) {
		t.Errorf("FLINK_MATRIX narrowed to %v, %v", got, err)
	}
	t.Setenv("FLINK_MATRIX", "1.19")
	if _, err := MatrixVersions(); err == nil {
		t.Error("FLINK_MATRIX=1.19 accepted")
	}
}
