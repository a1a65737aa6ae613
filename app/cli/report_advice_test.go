package cli

import (
	"bytes"
	"strings"
	"testing"

	"checkpoint-explorer/app"
	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/model"
)

// The text and markdown reports print each advice item with its keys, the
// values the engine reported ("not reported" for the others), the
// checkpoints it rests on and its docs.
func TestReportsPrintTheAdvice(t *testing.T) {
	var r app.Report
	r.Checkpoints = []analyze.CheckpointAnalysis{}
	r.Advice = []analyze.Advice{{Code: analyze.AdviceTimeout, Severity: analyze.SeverityCritical,
		Title: "2 checkpoint(s) expired while still acknowledging", Text: "raise *it*.",
		ConfigKeys: []string{"execution.checkpointing.timeout", "execution.checkpointing.min-pause"},
		Current:    map[string]string{"execution.checkpointing.timeout": "10 s"},
		Evidence:   analyze.AdviceEvidence{CheckpointIDs: []int64{7, 9}}, DocsURL: "https://example.org/docs"}}
	text, md := renderReports(r)
	for _, want := range []string{
		"Advice:\n  [critical] 2 checkpoint(s) expired while still acknowledging\n    raise *it*.\n",
		"    Keys: execution.checkpointing.timeout = 10 s, execution.checkpointing.min-pause (not reported)\n",
		"    Checkpoints: 7, 9; see https://example.org/docs\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text report lacks %q:\n%s", want, text)
		}
	}
	want := "## Advice\n\n- **2 checkpoint(s) expired while still acknowledging** (critical): raise \\*it\\*.\n" +
		"  - Keys: execution.checkpointing.timeout = 10 s, execution.checkpointing.min-pause (not reported)\n" +
		"  - Checkpoints: 7, 9 — [docs](https://example.org/docs)\n"
	if !strings.Contains(md, want) {
		t.Errorf("markdown report lacks\n%s\nin\n%s", want, md)
	}
}

// renderReports is r as the text and the markdown report say it.
func renderReports(r app.Report) (text, md string) {
	var tb, mb bytes.Buffer
	writeReportText(&tb, r, tallyOf(r))
	writeReportMarkdown(&mb, r, tallyOf(r))
	return tb.String(), mb.String()
}

// The text and markdown reports say, in one line, which parts of the job's configuration did
// not answer (the keys "not reported" may be theirs); nothing when every part did.
func TestReportsNameTheUnknownConfigurationParts(t *testing.T) {
	r := app.Report{Config: &model.JobConfig{StateBackend: "hashmap", Unknown: []model.ConfigGap{
		{Part: model.ConfigPartExecution, Endpoint: "GET /jobs/:jid/config", Error: "flink: GET /jobs/j/config: 404 Not Found"},
		{Part: model.ConfigPartJobManager, Endpoint: "GET /jobmanager/config", Error: "flink: GET /jobmanager/config: 500 Internal Server Error"},
	}}}
	r.Checkpoints = []analyze.CheckpointAnalysis{}
	text, md := renderReports(r)
	const want = "Configuration unknown: GET /jobs/:jid/config — flink: GET /jobs/j/config: 404 Not Found; " +
		"GET /jobmanager/config — flink: GET /jobmanager/config: 500 Internal Server Error\n"
	if !strings.Contains(text, want) || !strings.Contains(md, "- "+want) {
		t.Errorf("the reports lack %q:\n%s\n%s", want, text, md)
	}
	r.Config.Unknown = nil
	if text, md = renderReports(r); strings.Contains(text+md, "Configuration unknown") {
		t.Errorf("a configuration every part of which answered is reported unknown:\n%s\n%s", text, md)
	}
}
