package model

import "testing"

// A span ends where its checkpoint does.
func TestSpanEndsWithItsCheckpoint(t *testing.T) {
	for _, c := range []Checkpoint{
		{Status: StatusCompleted, TriggerMs: 100, LatestAckMs: 150, CompletionMs: 160, EndToEndMs: 50},
		{Status: StatusFailed, TriggerMs: 100, FailureMs: 170, EndToEndMs: 20},
		{Status: StatusFailed, TriggerMs: 100, LatestAckMs: 140},
		{Status: StatusFailed, TriggerMs: 100, EndToEndMs: 30},
		{Status: StatusInProgress, TriggerMs: 100, LatestAckMs: 140, EndToEndMs: 40},
	} {
		s := c.Span()
		if got, want := s.EndMs(), c.EndMs(); got != want {
			t.Errorf("%+v: span ends at %d, checkpoint at %d", c, got, want)
		}
	}
}
