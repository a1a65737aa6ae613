package flink

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"checkpoint-explorer/backend/model"
)

// ReadTestdata reads testdata/<path>; the external tests (package flink_test) use it too.
func ReadTestdata(tb testing.TB, path ...string) []byte {
	tb.Helper()
	b, err := os.ReadFile(filepath.Join(append([]string{"testdata"}, path...)...))
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func TestKindOf(t *testing.T) {
	tests := []struct {
		typ       string
		savepoint bool
		want      model.CheckpointKind
	}{
		{"CHECKPOINT", false, model.KindCheckpoint},
		{"UNALIGNED_CHECKPOINT", false, model.KindUnaligned},
		{"SAVEPOINT", false, model.KindSavepoint},
		{"SYNC_SAVEPOINT", false, model.KindSavepoint},
		{"CHECKPOINT", true, model.KindSavepoint}, // before 1.18 only is_savepoint says so
		{"", false, model.KindCheckpoint},
		{"SOMETHING_NEW", false, model.KindCheckpoint},
	}
	for _, tt := range tests {
		if got := kindOf(tt.typ, tt.savepoint); got != tt.want {
			t.Errorf("kindOf(%q, %v) = %q, want %q", tt.typ, tt.savepoint, got, tt.want)
		}
	}
}

func TestStatusOf(t *testing.T) {
	tests := []struct {
		status, class string
		want          model.Status
	}{
		{"COMPLETED", "completed", model.StatusCompleted},
		{"FAILED", "failed", model.StatusFailed},
		{"IN_PROGRESS", "in_progress", model.StatusInProgress},
		{"", "completed", model.StatusCompleted},
		{"", "failed", model.StatusFailed},
		{"", "in_progress", model.StatusInProgress},
		{"PENDING_FINALIZATION", "", model.StatusInProgress}, // unknown: not final, fetch again
	}
	for _, tt := range tests {
		if got := statusOf(tt.status, tt.class); got != tt.want {
			t.Errorf("statusOf(%q, %q) = %q, want %q", tt.status, tt.class, got, tt.want)
		}
	}
}

func TestSnippetKeepsUTF8(t *testing.T) {
	s := snippet([]byte(strings.Repeat("a", maxMessage-1) + "é and more"))
	if !utf8.ValidString(s) || len(s) > maxMessage || !strings.HasPrefix(s, strings.Repeat("a", maxMessage-1)) {
		t.Errorf("snippet = %q (len %d)", s, len(s))
	}
}

func TestStripExceptionClass(t *testing.T) {
	tests := []struct{ in, want string }{
		{"org.apache.flink.runtime.rest.NotFoundException: Job x not found", "Job x not found"},
		{"Not found: /jobs/x", "Not found: /jobs/x"},
		{"Could not find checkpointing statistics for checkpoint 1.", "Could not find checkpointing statistics for checkpoint 1."},
	}
	for _, tt := range tests {
		if got := stripExceptionClass(tt.in); got != tt.want {
			t.Errorf("stripExceptionClass(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// A checkpoint kept in the JobManager's memory has no path: Flink's placeholder is not shown as one.
func TestExternalPathPlaceholder(t *testing.T) {
	for in, want := range map[string]string{
		"<checkpoint-not-externally-addressable>": "",
		"file:/tmp/cp/chk-7":                      "file:/tmp/cp/chk-7",
		"":                                        "",
	} {
		if got := externalPath(in); got != want {
			t.Errorf("externalPath(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCommitterMetricsPrefersIcebergFilesCommitter(t *testing.T) {
	var ids []string
	want := map[string]string{}
	for _, m := range []struct{ id, metric string }{
		{"IcebergCommitter.t.lastCommitDurationMs", ""}, // IcebergFilesCommitter's is found first
		{"Sink__t.IcebergFilesCommitter.t.lastCommitDurationMs", model.MetricCommitDurationMs},
		{"Sink__t.Committer.successfulCommittables", model.MetricCommittedCommittables},
		{"IcebergCommitter.t.committedDataFilesCount", model.MetricCommittedFiles},
		{"IcebergFilesCommitter.t.elapsedSecondsSinceLastSuccessfulCommit", ""},
	} {
		ids = append(ids, m.id)
		if m.metric != "" {
			want[m.id] = m.metric
		}
	}
	if got := CommitterMetrics(ids); !maps.Equal(got, want) {
		t.Errorf("CommitterMetrics = %v, want %v", got, want)
	}
}
