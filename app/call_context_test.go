package app

import (
	"context"
	"testing"
	"time"
)

// A call made through the window or the CLI ends when the app closes, and has
// no deadline of its own (an import may take as long as the file needs).
func TestCallsEndWithTheAppAndHaveNoDeadline(t *testing.T) {
	a := newTestApp(t, Options{NoSample: true})
	ctx, cancel := a.callCtx()
	defer cancel()
	if _, ok := ctx.Deadline(); ok {
		t.Error("a call has a deadline; user-started work must have none")
	}
	req, cancelReq := context.WithCancel(context.Background())
	rctx, rcancel := withCallContext(a, req).callCtx()
	defer rcancel()
	if _, ok := rctx.Deadline(); ok {
		t.Error("a request's call has a deadline of its own")
	}
	cancelReq()
	select {
	case <-rctx.Done():
	case <-time.After(time.Second):
		t.Error("a request's call did not end when the request did")
	}
	rctx2, rcancel2 := withCallContext(a, context.Background()).callCtx()
	defer rcancel2()
	if err := closeApp(a); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]context.Context{"window": ctx, "request": rctx2} {
		select {
		case <-c.Done():
		case <-time.After(time.Second):
			t.Errorf("a %s call did not end when the app closed", name)
		}
	}
}
