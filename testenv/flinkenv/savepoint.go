package flinkenv

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"
)

// StopWithSavepoint stops a job with a savepoint in the cluster's savepoint directory (POST
// /jobs/:jid/stop, without draining) and returns the savepoint's path once Flink reports the
// operation done; the job then finishes. It waits up to d for the savepoint, which a
// backpressured aligned job takes long to reach.
func (e Env) StopWithSavepoint(t testing.TB, jid string, d time.Duration) string {
	t.Helper()
	var trigger struct {
		RequestID string `json:"request-id"`
	}
	restJSON(t, http.MethodPost, e.RESTURL+"/jobs/"+jid+"/stop", `{"drain": false}`, &trigger)
	if trigger.RequestID == "" {
		t.Fatalf("flinkenv: stop %s with a savepoint: no request id", jid)
	}
	deadline := time.Now().Add(d)
	for {
		var st struct {
			Status struct {
				ID string `json:"id"`
			} `json:"status"`
			Operation struct {
				Location     string         `json:"location"`
				FailureCause map[string]any `json:"failure-cause"`
			} `json:"operation"`
		}
		restJSON(t, http.MethodGet, e.RESTURL+"/jobs/"+jid+"/savepoints/"+trigger.RequestID, "", &st)
		switch {
		case st.Status.ID == "COMPLETED" && st.Operation.Location != "":
			return st.Operation.Location
		case st.Status.ID == "COMPLETED":
			t.Fatalf("flinkenv: stop %s with a savepoint failed: %v", jid, st.Operation.FailureCause["stack-trace"])
		case time.Now().After(deadline):
			t.Fatalf("flinkenv: stop %s with a savepoint: still %s after %v", jid, st.Status.ID, d)
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// restJSON sends a request to Flink's REST API and decodes its JSON answer into out; any
// status but 2xx fails the test with Flink's errors.
func restJSON(t testing.TB, method, url, body string, out any) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Do(req)
	if err != nil {
		t.Fatalf("flinkenv: %s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	var raw json.RawMessage
	err = json.NewDecoder(resp.Body).Decode(&raw)
	if err == nil && resp.StatusCode/100 == 2 {
		err = json.Unmarshal(raw, out)
	} else if err == nil {
		err = fmt.Errorf("HTTP %d: %s", resp.StatusCode, raw)
	}
	if err != nil {
		t.Fatalf("flinkenv: %s %s: %v", method, url, err)
	}
}
