package cli

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"checkpoint-explorer/app"
	"checkpoint-explorer/app/apptest"
	"checkpoint-explorer/testenv/fuzzenv"
)

// cutReport keeps a report's summary and verdict and a few of each list (the slowest
// checkpoint among them, which the renderers single out): a seed of a few KB.
func cutReport(r app.Report) app.Report {
	if c := tallyOf(r).slowest; c != nil {
		slow := *c
		r.Checkpoints = append(r.Checkpoints[:min(2, len(r.Checkpoints))], slow)
	}
	r.Failures = r.Failures[:min(2, len(r.Failures))]
	r.SlowPhases = r.SlowPhases[:min(2, len(r.SlowPhases))]
	r.SlowCheckpoints = r.SlowCheckpoints[:min(2, len(r.SlowCheckpoints))]
	return r
}

// FuzzReportRenderers feeds a report decoded from anything to the text and markdown renderers
// of the report command: they must not panic, and the markdown failure table keeps one row
// of four cells per failure cluster, whatever the strings hold. Seeds are the reports of the
// bundled samples (real recordings), cut down.
//
// `go test` runs every seed and every input under testdata/fuzz/ (found problems, kept as
// regressions); testenv/fuzz.sh (make fuzz) fuzzes it for a while.
func FuzzReportRenderers(f *testing.F) {
	a := apptest.Start(f, true, nil).App()
	jobs, err := a.ListJobs("")
	if err != nil || len(jobs) == 0 {
		f.Fatalf("the samples hold no job: %v", err)
	}
	for _, j := range jobs {
		r, err := a.Report(j.Cluster, j.ID, 0, 0)
		if err != nil {
			f.Fatal(err)
		}
		b, err := json.Marshal(cutReport(r))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}

	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzenv.Count()
		var r app.Report
		if json.Unmarshal(data, &r) != nil {
			return
		}
		var text, md bytes.Buffer
		writeReportText(&text, r, tallyOf(r))
		writeReportMarkdown(&md, r, tallyOf(r))
		if !strings.HasPrefix(text.String(), "Job ") || !strings.HasPrefix(md.String(), "# Checkpoints of ") {
			t.Fatalf("reports start\n%q\n%q", text.String()[:min(40, text.Len())], md.String()[:min(40, md.Len())])
		}
		if len(r.Failures) == 0 {
			return
		}
		_, table, ok := strings.Cut(md.String(), "| count | phase | checkpoints | message |\n|---|---|---|---|\n")
		if !ok {
			t.Fatal("no failure table")
		}
		rows := strings.SplitN(table, "\n", len(r.Failures)+1)
		for i := range r.Failures {
			if i >= len(rows) || strings.Count(strings.ReplaceAll(rows[i], `\|`, ""), "|") != 5 {
				t.Fatalf("failure %d: the table row is not four cells: %q", i, rows[min(i, len(rows)-1)])
			}
		}
	})
}
