package app

import (
	"context"
	"errors"
	"strings"

	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/store"
)

// Changes lists a job's changes (configuration, restarts, rescales,
// resubmissions, the user's notes), each with the before/after at its
// moment (docs/phases.md, "Changes and their effect").
func (a *App) Changes(cluster, job string) ([]analyze.ChangeEffect, error) {
	r, err := a.Insights(cluster, job, 0, 0)
	return r.Changes, err
}

// BeforeAfter compares a job's checkpoints triggered before atMs with those
// from it on, each side bounded by the neighbouring changes and by windowMs
// (0: by the changes alone).
func (a *App) BeforeAfter(cluster, job string, atMs, windowMs int64) (analyze.Effect, error) {
	if atMs <= 0 || windowMs < 0 {
		return analyze.Effect{}, badRequest("the moment (%d) must be an epoch millisecond and the window (%d) 0 or more", atMs, windowMs)
	}
	ctx, cancel := a.callCtx()
	defer cancel()
	var from, to int64 // a window bounds what is analysed
	if windowMs > 0 {
		from, to = max(1, atMs-windowMs), atMs+windowMs
	}
	_, cc, err := a.report(ctx, cluster, job, from, to, analyze.Streaming{})
	if err != nil {
		return analyze.Effect{}, err
	}
	return cc.Effect(atMs, windowMs)
}

// AddNote puts the user's note ("deployed v42") on a job's timeline at
// timeMs, where it is a change like the others, and returns it.
func (a *App) AddNote(cluster, job string, timeMs int64, text string) (model.Change, error) {
	n := model.Change{Kind: model.ChangeNote, TimeMs: timeMs, Source: model.ChangeFromUser, Cluster: cluster, JobID: job,
		Detail: model.ChangeDetail{Text: strings.TrimSpace(text)}}
	return n, a.onNotes(cluster, job, func(ctx context.Context) error { return a.store.PutNote(ctx, n) })
}

// DeleteNote removes a job's note at timeMs that says text.
func (a *App) DeleteNote(cluster, job string, timeMs int64, text string) error {
	return a.onNotes(cluster, job, func(ctx context.Context) error {
		return a.store.DeleteNote(ctx, cluster, job, timeMs, strings.TrimSpace(text))
	})
}

// onNotes changes the notes of a job the cache holds; what is wrong with a
// note is a bad request.
func (a *App) onNotes(cluster, job string, change func(context.Context) error) error {
	ctx, cancel := a.callCtx()
	defer cancel()
	_, err := a.cachedJob(ctx, cluster, job)
	if err == nil {
		err = change(ctx)
	}
	if ne := store.NoteError(""); errors.As(err, &ne) {
		return badRequest("%s", ne)
	}
	return err
}

// changeContext gathers what a job's changes are read from: the records of
// its runs (analyze.OtherRuns), its checkpoints (heads, given the subtask
// counts the scan saw) and their analyses (own). Another run is analysed
// when a before/after reaches into it.
func (a *App) changeContext(ctx context.Context, in *analysisInput, heads []model.Checkpoint, own []analyze.CheckpointAnalysis) (*analyze.ChangeContext, error) {
	rr, err := a.store.RunRecords(ctx, in.job, analyze.OtherRuns)
	in.parallelism.Onto(heads)
	ci := analyze.ChangeInputs{Job: in.job, Checkpoints: heads, Configs: rr.Configs, Notes: rr.Notes, Restores: rr.Restores}
	for _, r := range rr.Runs {
		ci.Previous = append(ci.Previous, analyze.PriorRun{Job: r, Last: rr.Last[r.ID]})
	}
	return analyze.NewChangeContext(ci, own, func(run model.Job, fromMs, toMs int64) ([]analyze.CheckpointAnalysis, error) {
		rin, err := a.analysisInput(ctx, run.Cluster, run.ID, fromMs, toMs)
		var cas []analyze.CheckpointAnalysis
		if err == nil {
			_, _, err = a.analyzeStreamed(ctx, &rin, fromMs, toMs, analyze.KeepForChanges(analyze.Streaming{}, &cas))
		}
		return cas, err
	}), err
}
