package cli

import (
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/app"
	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/model"
)

// The text and markdown reports say each change with its finding, the slow stretches as
// episodes (not as the runs they break into), and after an advice item what became of it.
func TestReportsPrintChangesEpisodesAndWhatBecameOfTheAdvice(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.Local).UnixMilli()
	unaligned := model.Change{Kind: model.ChangeConfig, TimeMs: at, Source: model.ChangeFromConfigHistory, Cluster: "c", JobID: "j",
		Detail: model.ChangeDetail{Keys: []model.ConfigKeyChange{{Key: "execution.checkpointing.unaligned.enabled", Old: "false", New: "true"}}}}
	finding := "after execution.checkpointing.unaligned.enabled went false → true; end-to-end p90 fell from 1.2 s to 314 ms (−73%, 95% interval −74…−73%)"
	effect := analyze.Effect{AtMs: at, Finding: finding}
	var r app.Report
	r.Checkpoints = []analyze.CheckpointAnalysis{}
	r.Changes = []analyze.ChangeEffect{{Change: unaligned, Effect: effect},
		{Change: model.Change{Kind: model.ChangeNote, TimeMs: at + 60_000, Detail: model.ChangeDetail{Text: "deployed v42\nmore"}},
			Effect: analyze.Effect{Finding: "after the note “deployed v42”; too few checkpoints to compare"}}}
	r.Episodes = []analyze.Episode{{FirstID: 21, LastID: 37, StartMs: at - 200_000, EndMs: at - 9_000, Slow: 15, Ordinary: 2,
		Cause: &analyze.EpisodeCause{Phase: analyze.PhaseAlignment, VertexName: "Map", Checkpoints: 15}, EndedBy: &unaligned}}
	r.SlowCheckpoints = []analyze.SlowRun{{Phase: analyze.EndToEnd, CheckpointIDs: []int64{21, 22, 23}}}
	r.Advice = []analyze.Advice{{Code: analyze.AdviceUnaligned, Severity: analyze.SeverityWarning, Title: "Barriers wait behind data",
		Text: "turn on unaligned checkpoints", ConfigKeys: []string{"execution.checkpointing.unaligned.enabled"}}}
	r.AdviceFollowUp = []analyze.AdviceOutcome{{AdviceFollowUp: analyze.AdviceFollowUp{Code: analyze.AdviceUnaligned,
		Status: analyze.AdviceApplied, Change: &unaligned, Key: "execution.checkpointing.unaligned.enabled"}, Effect: &effect}}
	when := fmtTime(at)
	text, md := renderReports(r)
	for _, want := range []string{
		"Changes:\n  " + when + " config (execution.checkpointing.unaligned.enabled false → true): " + finding + "\n",
		"  " + fmtTime(at+60_000) + " note (“deployed v42”): after the note",
		"Repeatedly slow (episodes):\n  checkpoints 21–37 from " + fmtTime(at-200_000) + " to " + fmtTime(at-9_000) +
			": 15 slow, 0 failed, 2 ordinary among them; alignment in Map (15 of them); ended by the config change at " + when + "\n",
		"    Since: applied: execution.checkpointing.unaligned.enabled was changed at " + when + "; " + finding + "\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text report lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "21, 22, 23") {
		t.Errorf("the text report lists the slow runs beside the episodes:\n%s", text)
	}
	for _, want := range []string{
		"\n## Changes\n\n- " + when + " config (execution.checkpointing.unaligned.enabled false → true): after",
		"\n## Repeatedly slow (episodes)\n\n- checkpoints 21–37",
		"  - Since: applied: execution.checkpointing.unaligned.enabled was changed at",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown report lacks %q:\n%s", want, md)
		}
	}

	// Advice whose evidence lies before the change that ended its episode says so.
	r.AdviceFollowUp[0] = analyze.AdviceOutcome{AdviceFollowUp: analyze.AdviceFollowUp{Code: analyze.AdviceUnaligned,
		Status: analyze.AdviceOutdated, Change: &unaligned}}
	if text, _ = renderReports(r); !strings.Contains(text, "    Since: outdated: its evidence lies before the config change at "+when) {
		t.Errorf("an outdated advice item:\n%s", text)
	}
	r.AdviceFollowUp[0] = analyze.AdviceOutcome{AdviceFollowUp: analyze.AdviceFollowUp{Code: analyze.AdviceUnaligned, Status: analyze.AdviceCurrent}}
	if text, _ = renderReports(r); strings.Contains(text, "Since:") {
		t.Errorf("a current advice item says what became of it:\n%s", text)
	}
}
