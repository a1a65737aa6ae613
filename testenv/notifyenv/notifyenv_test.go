package notifyenv

import "testing"

// Start is once per test: a second call gets the same daemon, which holds
// no notification yet.
func TestStartOncePerTest(t *testing.T) {
	env := Start(t)
	if again := Start(t); again != env {
		t.Errorf("a second Start started another service: %+v, then %+v", env, again)
	}
	if displayed, history := env.Count(t); displayed != 0 || history != 0 {
		t.Errorf("a new daemon holds %d on screen and %d in its history", displayed, history)
	}
	if got := env.History(t); len(got) != 0 {
		t.Errorf("a new daemon's history: %v", got)
	}
}
