package serve

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"testing"

	"checkpoint-explorer/app"
	"checkpoint-explorer/app/apptest"
	"checkpoint-explorer/testenv/fuzzenv"
)

// fuzzMethods are the facade methods the serve fuzz target calls: those that only read the
// cache, the config and the log. The others (saving and removing clusters, exporting and
// saving files, opening captures, connecting to an engine or a Prometheus) would write files
// or make requests wherever the input says; their arguments go through the same decoding.
var fuzzMethods = []string{"Checkpoint", "CheckpointView", "Checkpoints", "Compare", "DefaultCompare", "Heatmap",
	"Insights", "JobReconciliation", "ListClusters", "ListJobs", "Log", "Report", "Retention", "Timeline", "Version"}

// FuzzServeCall feeds anything as the body of POST /api/app.App.<Method> to the browser door's
// handler (httptest recorder, an App holding the bundled samples). The bridge must not panic;
// a body that is not a JSON array of the method's arguments is a 400 naming the method, never
// a 500; every answer is JSON with a result or an error message.
//
// Seeds are the calls the UI makes, with the samples' real cluster, job and checkpoint ids.
// `go test` runs every seed and every input under testdata/fuzz/ (found problems, kept as
// regressions); testenv/fuzz.sh (make fuzz) fuzzes it for a while.
func FuzzServeCall(f *testing.F) {
	svc := apptest.Start(f, true, nil)
	a := svc.App()
	srv, err := New(svc, Options{Token: "fuzz"})
	if err != nil {
		f.Fatal(err)
	}
	h := srv.Handler()

	jobs, err := a.ListJobs("")
	if err != nil || len(jobs) == 0 {
		f.Fatalf("the samples hold no job: %v", err)
	}
	seed := func(method string, args ...any) {
		i := -1
		for k, m := range fuzzMethods {
			if m == method {
				i = k
			}
		}
		if i < 0 {
			f.Fatalf("seed for %s, not a fuzzed method", method)
		}
		b, err := json.Marshal(args)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(uint8(i), b)
	}
	seed("Version")
	seed("ListClusters")
	seed("Retention")
	seed("Log", 200)
	for _, j := range jobs {
		seed("ListJobs", j.Cluster)
		seed("Checkpoints", j.Cluster, j.ID, 0, 0)
		seed("Report", j.Cluster, j.ID, 0, 0)
		seed("Insights", j.Cluster, j.ID, 0, 0)
		seed("JobReconciliation", j.Cluster, j.ID)
		seed("DefaultCompare", j.Cluster, j.ID, 0, 0)
		seed("Timeline", app.TimelineRequest{Cluster: j.Cluster, Job: j.ID, WidthPx: 1200})
		seed("Heatmap", app.HeatmapRequest{Cluster: j.Cluster, Job: j.ID, Kind: "phase", Phase: "sync", Buckets: 60})
		seed("Heatmap", app.HeatmapRequest{Cluster: j.Cluster, Job: j.ID, Kind: "failure", Buckets: 60})
		rows, err := a.Checkpoints(j.Cluster, j.ID, 0, 0)
		if err != nil {
			f.Fatal(err)
		}
		if len(rows) > 1 {
			r0, r1 := rows[0], rows[len(rows)-1]
			seed("Checkpoint", j.Cluster, j.ID, r0.Pipeline, r0.ID)
			seed("CheckpointView", j.Cluster, j.ID, r1.Pipeline, r1.ID)
			seed("Compare", j.Cluster, j.ID, r0.Pipeline, r0.ID, r1.Pipeline, r1.ID)
		}
	}
	f.Add(uint8(0), []byte(`{"not":"an array"}`))
	f.Add(uint8(2), []byte(`["a", "b", "c"]`))

	methods := facadeMethods()
	f.Fuzz(func(t *testing.T, which uint8, body []byte) {
		fuzzenv.Count()
		name := "app.App." + fuzzMethods[int(which)%len(fuzzMethods)]
		req := httptest.NewRequest(http.MethodPost, "/api/"+name, bytes.NewReader(body))
		req.Header.Set("Authorization", "Bearer fuzz")
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)

		var answer struct {
			Result json.RawMessage `json:"result"`
			Error  *string         `json:"error"`
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &answer); err != nil {
			t.Fatalf("HTTP %d, not a JSON answer: %q", rec.Code, rec.Body.Bytes())
		}
		if rec.Code != http.StatusOK && (answer.Error == nil || len(*answer.Error) < 10) {
			t.Fatalf("HTTP %d without a clear message: %q", rec.Code, rec.Body.Bytes())
		}
		if bad := argumentsProblem(methods[name].Type, body); bad != "" {
			if rec.Code != http.StatusBadRequest || !strings.Contains(*answer.Error, name) {
				t.Fatalf("%s; got HTTP %d %q, want a 400 naming %s", bad, rec.Code, rec.Body.Bytes(), name)
			}
			return
		}
		// Well-formed arguments: a result, or a refusal of the values (4xx). These methods only
		// read, so a 500 would be a bug, not a failure of the disk or of an engine.
		if rec.Code >= 500 {
			t.Fatalf("HTTP %d for well-formed arguments %q: %s", rec.Code, body, *answer.Error)
		}
	})
}

// argumentsProblem says why body is not a JSON array of arguments for the method of type mt
// (the receiver first), or "" when it is.
func argumentsProblem(mt reflect.Type, body []byte) string {
	var raw []json.RawMessage
	if len(bytes.TrimSpace(body)) > 0 {
		if err := json.Unmarshal(body, &raw); err != nil {
			return "not a JSON array"
		}
	}
	if len(raw) != mt.NumIn()-1 {
		return fmt.Sprintf("%d arguments for %d", len(raw), mt.NumIn()-1)
	}
	for i := range raw {
		if err := json.Unmarshal(raw[i], reflect.New(mt.In(i+1)).Interface()); err != nil {
			return fmt.Sprintf("argument %d does not decode", i+1)
		}
	}
	return ""
}
