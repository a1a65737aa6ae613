package jaegerenv

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A Jaeger of the test's own (JAEGER_RUN_DIR): every listener on loopback, a second start reuses
// the running server, a span sent to its OTLP/HTTP receiver comes back from the query API, and
// stop ends exactly its pid.
func TestScriptsStartReuseAndStopTheirOwnJaeger(t *testing.T) {
	shared.SkipUnlessReal(t)
	runDir := "JAEGER_RUN_DIR=" + t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	t.Cleanup(func() {
		if err := Stop(context.Background(), runDir); err != nil {
			t.Error(err)
		}
	})
	e, err := Start(ctx, runDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{e.QueryURL, e.OTLPGRPCEndpoint, e.OTLPHTTPURL} {
		if !strings.HasPrefix(u, "http://127.0.0.1:") {
			t.Errorf("%q is not on 127.0.0.1", u)
		}
	}
	if e.PID == 0 || e.Version != "v1.75.0" {
		t.Errorf("pid %d version %q", e.PID, e.Version)
	}
	again, err := Start(ctx, runDir)
	if err != nil {
		t.Fatal(err)
	}
	if again.PID != e.PID || again.QueryURL != e.QueryURL {
		t.Errorf("second start: %+v, first %+v", again, e)
	}

	// One span over OTLP/HTTP JSON; the memory store has it after the batch processor's flush.
	now := time.Now()
	span := fmt.Sprintf(`{"resourceSpans":[{"resource":{"attributes":[{"key":"service.name","value":{"stringValue":"jaegerenv-test"}}]},
	 "scopeSpans":[{"scope":{"name":"t"},"spans":[{"traceId":"0af7651916cd43dd8448eb211c80319c","spanId":"b7ad6b7169203331",
	 "name":"Checkpoint","kind":1,"startTimeUnixNano":"%d","endTimeUnixNano":"%d",
	 "attributes":[{"key":"jobId","value":{"stringValue":"j1"}}]}]}]}]}`, now.UnixNano(), now.Add(time.Second).UnixNano())
	resp, err := http.Post(e.OTLPHTTPURL+"/v1/traces", "application/json", bytes.NewReader([]byte(span)))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST /v1/traces: %s %s", resp.Status, body)
	}
	q := url.Values{"service": {"jaegerenv-test"}, "tags": {`{"jobId":"j1"}`}, "limit": {"5"},
		"start": {strconv.FormatInt(now.Add(-time.Minute).UnixMicro(), 10)}, "end": {strconv.FormatInt(now.Add(time.Minute).UnixMicro(), 10)}}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var ans struct {
			Data []struct {
				Spans []struct {
					OperationName string `json:"operationName"`
					Duration      int64  `json:"duration"`
				} `json:"spans"`
			} `json:"data"`
		}
		resp, err := http.Get(e.QueryURL + "/api/traces?" + q.Encode())
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(resp.Body).Decode(&ans)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(ans.Data) == 1 && len(ans.Data[0].Spans) == 1 {
			if s := ans.Data[0].Spans[0]; s.OperationName != "Checkpoint" || s.Duration != 1_000_000 {
				t.Errorf("span read back as %+v", s)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the span never came back from the query API: %+v", ans)
		}
		time.Sleep(200 * time.Millisecond)
	}

	if err := Stop(ctx, runDir); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(e.PID, 0); err == nil {
		t.Errorf("pid %d still runs after stop", e.PID)
	}
}
