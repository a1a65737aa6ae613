package store

import (
	"context"
	"errors"
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
)

func note(cluster, job string, atMs int64, text string) model.Change {
	return model.Change{Kind: model.ChangeNote, TimeMs: atMs, Cluster: cluster, JobID: job, Detail: model.ChangeDetail{Text: text}}
}

// Notes are kept per job, by time, once each (the same note again adds
// nothing); one that is not a valid note is refused; DeleteNote removes the
// note of a time and text, and a run kept apart takes its notes along.
func TestNotes(t *testing.T) {
	ctx := context.Background()
	s := openTest(t, DefaultRetention())
	if got, err := s.Notes(ctx, "c", "j"); err != nil || len(got) != 0 {
		t.Fatalf("notes of a job without any: %v (%v), want none", got, err)
	}
	for _, n := range []model.Change{note("c", "j", 3000, "deployed v42"), note("c", "j", 1000, "scaled the Map"),
		note("c", "j", 3000, "deployed v42"), note("c", "j", 3000, "and the sink"), note("c", "other", 2000, "elsewhere")} {
		if err := s.PutNote(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Notes(ctx, "c", "j")
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, n := range got {
		texts = append(texts, n.Detail.Text)
		if n.Kind != model.ChangeNote || n.Source != model.ChangeFromUser || n.Cluster != "c" || n.JobID != "j" {
			t.Errorf("note read back as %+v: want kind note, source user, its cluster and job", n)
		}
	}
	if want := "scaled the Map|deployed v42|and the sink"; strings.Join(texts, "|") != want {
		t.Errorf("notes %q, want %q (by time, then as added; the same note once)", strings.Join(texts, "|"), want)
	}

	for _, bad := range []model.Change{note("", "j", 1000, "x"), note("c", "j", 0, "x"), note("c", "j", 1000, ""),
		{Kind: model.ChangeRestart, TimeMs: 1000, Cluster: "c", JobID: "j"}, note("c", "j", 1000, strings.Repeat("x", MaxNoteRunes+1))} {
		var ne NoteError
		if err := s.PutNote(ctx, bad); !errors.As(err, &ne) {
			t.Errorf("PutNote(%+v) = %v, want a NoteError", bad, err)
		}
	}

	if err := s.DeleteNote(ctx, "c", "j", 3000, "deployed v42"); err != nil {
		t.Fatal(err)
	}
	var none NoteError
	if err := s.DeleteNote(ctx, "c", "j", 3000, "never written"); !errors.As(err, &none) || !strings.Contains(err.Error(), "no note at 3000") {
		t.Errorf("DeleteNote of no such note = %v, want a NoteError", err)
	}
	if got, _ = s.Notes(ctx, "c", "j"); len(got) != 2 || got[1].Detail.Text != "and the sink" {
		t.Errorf("after the delete: %+v, want the other two", got)
	}

	// A run kept apart (its job id taken by a new run) keeps its notes.
	prev := model.Job{Cluster: "c", ID: "j", Name: "n", Engine: model.EngineFlink, State: "RUNNING", StartMs: 500}
	if err := s.PutJob(ctx, prev); err != nil {
		t.Fatal(err)
	}
	if err := s.PutCheckpoints(ctx, []model.Checkpoint{{Cluster: "c", JobID: "j", ID: 1, Kind: model.KindCheckpoint,
		Status: model.StatusCompleted, TriggerMs: 900, LatestAckMs: 950}}); err != nil {
		t.Fatal(err)
	}
	kept, err := s.KeepRunApart(ctx, prev, 5000)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Notes(ctx, "c", kept); len(got) != 2 || got[0].JobID != kept {
		t.Errorf("the run kept apart as %s has notes %+v, want 2 of it", kept, got)
	}
	if got, _ := s.Notes(ctx, "c", "j"); len(got) != 0 {
		t.Errorf("the new run has the earlier run's notes: %+v", got)
	}
	// Removing the cluster removes its notes.
	if err := s.DeleteCluster(ctx, "c"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.Notes(ctx, "c", kept); len(got) != 0 {
		t.Errorf("notes %+v outlive their cluster", got)
	}
}
