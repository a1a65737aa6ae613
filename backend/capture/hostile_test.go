package capture

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
)

// hugeLine streams a capture whose second line is a checkpoint with a string
// of n bytes, without ever holding it in memory.
func newHugeLine(n int64) io.Reader {
	return io.MultiReader(
		strings.NewReader(headerLine+"\n"+`{"type":"checkpoint","failure_message":"`),
		io.LimitReader(repeatByte('a'), n),
		strings.NewReader("\"}\n"+`{"type":"end","records":1}`+"\n"),
	)
}

type repeatByte byte

func (b repeatByte) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

func TestHugeLineRefused(t *testing.T) {
	t.Run("100 MiB line, default limit", func(t *testing.T) {
		_, err := Read(context.Background(), newHugeLine(100<<20), Limits{}, Visitor{})
		if err == nil || err.Error() != "capture: line 2: longer than the 64 MiB line limit" {
			t.Fatalf("error = %v", err)
		}
	})
	t.Run("gzip, configured limit", func(t *testing.T) {
		pr, pw := io.Pipe()
		go func() {
			zw, _ := gzip.NewWriterLevel(pw, gzip.BestSpeed)
			_, err := io.Copy(zw, newHugeLine(8<<20))
			if err == nil {
				err = zw.Close()
			}
			pw.CloseWithError(err)
		}()
		_, err := Read(context.Background(), pr, Limits{MaxLineBytes: 1 << 20, MaxStringBytes: 16 << 20}, Visitor{})
		pr.CloseWithError(io.ErrClosedPipe) // stop the writer goroutine
		if err == nil || err.Error() != "capture: line 2: longer than the 1.0 MiB line limit" {
			t.Fatalf("error = %v", err)
		}
	})
	t.Run("just under the limit is read", func(t *testing.T) {
		// Line 2 is `{"type":"checkpoint","failure_message":"` + n + `"}`: 40+n+2 bytes.
		lim := Limits{MaxLineBytes: 300 << 10, MaxStringBytes: 300 << 10}
		n := int64(lim.MaxLineBytes - 42)
		_, err := Read(context.Background(), newHugeLine(n), lim, Visitor{})
		// The line fits; the record then fails validation, not the line limit.
		if err == nil || !strings.Contains(err.Error(), "line 2: checkpoint: empty cluster") {
			t.Fatalf("error = %v", err)
		}
		_, err = Read(context.Background(), newHugeLine(n+1), lim, Visitor{})
		if err == nil || !strings.Contains(err.Error(), "longer than the 300 KiB line limit") {
			t.Fatalf("error = %v", err)
		}
	})
}

func TestDeepNestingRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		depth int
		lim   Limits
		want  string
	}{
		{"10,000 arrays", 10000, Limits{}, "capture: line 2: JSON nested deeper than 32 levels"},
		{"33 levels", 33, Limits{}, "capture: line 2: JSON nested deeper than 32 levels"},
		{"configured", 9, Limits{MaxDepth: 8}, "capture: line 2: JSON nested deeper than 8 levels"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// The record itself is level 1, tasks is level 2.
			inner := strings.Repeat("[", tc.depth-2) + strings.Repeat("]", tc.depth-2)
			line := `{"type":"checkpoint","tasks":[` + inner + `]}`
			_, err := readErr(t, lines(headerLine, line, `{"type":"end","records":1}`), tc.lim)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error = %v, want %q", err, tc.want)
			}
		})
	}
	t.Run("32 levels pass the depth check", func(t *testing.T) {
		inner := strings.Repeat("[", 30) + strings.Repeat("]", 30)
		_, err := readErr(t, lines(headerLine, `{"type":"checkpoint","tasks":[`+inner+`]}`, `{"type":"end","records":1}`), Limits{})
		if err == nil || strings.Contains(err.Error(), "nested") {
			t.Fatalf("error = %v, want a decoding error, not depth", err)
		}
	})
	t.Run("brackets inside strings do not count", func(t *testing.T) {
		msg := strings.Repeat("[{", 1000) + `\"` + strings.Repeat("]}", 1000)
		line := `{"type":"checkpoint","cluster":"c","job_id":"j","id":1,"kind":"checkpoint","status":"FAILED","trigger_ms":1,"failure_message":"` + msg + `"}`
		var cps []*model.Checkpoint
		_, err := Read(context.Background(), bytes.NewReader(lines(headerLine, line, `{"type":"end","records":1}`)), Limits{},
			Visitor{Checkpoint: func(cp *model.Checkpoint) error { cps = append(cps, cp); return nil }})
		if err != nil {
			t.Fatal(err)
		}
		if len(cps) != 1 || len(cps[0].FailureMessage) != 4001 {
			t.Errorf("checkpoints = %d, message %d bytes", len(cps), len(cps[0].FailureMessage))
		}
	})
}

func TestHugeStringRefused(t *testing.T) {
	big := strings.Repeat("x", 1<<20+1)
	for _, tc := range []struct {
		name string
		line string
		lim  Limits
		want string
	}{
		{"failure message", `{"type":"checkpoint","cluster":"c","failure_message":"` + big + `"}`, Limits{},
			`capture: line 2: field "failure_message" is 1048577 bytes, over the 1.0 MiB string limit`},
		{"nested vertex name", `{"type":"job","cluster":"c","id":"j","vertices":[{"id":"v","name":"` + big + `"}]}`, Limits{},
			`capture: line 2: field "name" is 1048577 bytes, over the 1.0 MiB string limit`},
		{"key", `{"type":"gap","` + big + `":1}`, Limits{},
			`capture: line 2: an object key of 1048577 bytes is over the 1.0 MiB string limit`},
		{"unknown record type", `{"type":"future","blob":"` + big + `"}`, Limits{},
			`capture: line 2: field "blob" is 1048577 bytes, over the 1.0 MiB string limit`},
		{"configured limit", `{"type":"cluster","name":"` + strings.Repeat("n", 31) + `","engine":"flink"}`, Limits{MaxStringBytes: 30},
			`capture: line 2: field "name" is 31 bytes, over the 30 B string limit`},
		// Invalid UTF-8 decodes to U+FFFD, three bytes each: caught after decoding.
		{"grows when decoded", `{"type":"cluster","name":"` + strings.Repeat("\xff", 11) + `","engine":"flink"}`, Limits{MaxStringBytes: 30},
			`capture: line 2: cluster: field "name" is 33 bytes, over the 30 B limit`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readErr(t, lines(headerLine, tc.line, `{"type":"end","records":1}`), tc.lim)
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error = %v\nwant %q", err, tc.want)
			}
		})
	}
}

func TestTaskLimits(t *testing.T) {
	cp := func(tasks, subtasksPerTask int) string {
		var b strings.Builder
		b.WriteString(`{"type":"checkpoint","cluster":"c","job_id":"j","id":1,"kind":"checkpoint","status":"COMPLETED","trigger_ms":1,"tasks":[`)
		for i := 0; i < tasks; i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"vertex_id":"v%d","subtasks":[`, i)
			for k := 0; k < subtasksPerTask; k++ {
				if k > 0 {
					b.WriteByte(',')
				}
				fmt.Fprintf(&b, `{"index":%d,"status":"completed"}`, k)
			}
			b.WriteString(`]}`)
		}
		b.WriteString(`]}`)
		return b.String()
	}
	lim := Limits{MaxTasks: 4, MaxSubtasks: 10}
	for _, tc := range []struct {
		name            string
		tasks, subtasks int
		want            string
	}{
		{"at the limits", 2, 5, ""},
		{"too many tasks", 5, 0, "capture: line 2: checkpoint: 5 tasks, over the limit of 4"},
		{"too many subtasks", 3, 4, "capture: line 2: checkpoint: more than 10 subtasks"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readErr(t, lines(headerLine, cp(tc.tasks, tc.subtasks), `{"type":"end","records":1}`), lim)
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || err.Error() != tc.want {
				t.Fatalf("error = %v, want %q", err, tc.want)
			}
		})
	}
	t.Run("default subtask limit is 100,000", func(t *testing.T) {
		_, err := readErr(t, lines(headerLine, cp(2, 50_001), `{"type":"end","records":1}`), Limits{})
		if err == nil || err.Error() != "capture: line 2: checkpoint: more than 100000 subtasks" {
			t.Fatalf("error = %v", err)
		}
	})
}
