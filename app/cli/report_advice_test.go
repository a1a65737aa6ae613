package cli

import (
	"bytes"
	"strings"
	"testing"

	"checkpoint-explorer/app"
	"checkpoint-explorer/backend/analyze"
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
	var text, md bytes.Buffer
	writeReportText(&text, r, tallyOf(r))
	writeReportMarkdown(&md, r, tallyOf(r))
	for _, want := range []string{
		"Advice:\n  [critical] 2 checkpoint(s) expired while still acknowledging\n    raise *it*.\n",
		"    Keys: execution.checkpointing.timeout = 10 s, execution.checkpointing.min-pause (not reported)\n",
		"    Checkpoints: 7, 9; see https://example.org/docs\n",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text report lacks %q:\n%s", want, text.String())
		}
	}
	want := "## Advice\n\n- **2 checkpoint(s) expired while still acknowledging** (critical): raise \\*it\\*.\n" +
		"  - Keys: execution.checkpointing.timeout = 10 s, execution.checkpointing.min-pause (not reported)\n" +
		"  - Checkpoints: 7, 9 — [docs](https://example.org/docs)\n"
	if !strings.Contains(md.String(), want) {
		t.Errorf("markdown report lacks\n%s\nin\n%s", want, md.String())
	}
}
