package app

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"checkpoint-explorer/backend/otlpexport"
)

// The export Options.Export asks for sends the cache's final checkpoints with the bearer token,
// which the log never holds, and /metrics counts them; with no endpoint nothing starts.
func TestStartExportSendsTheCacheAndCountsOnMetrics(t *testing.T) {
	var requests atomic.Int64
	var auth atomic.Value
	rcv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		auth.Store(r.Header.Get("Authorization"))
		requests.Add(1)
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer rcv.Close()
	var logBuf syncBuffer
	logger := slog.New(slog.NewTextHandler(&logBuf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	a := newTestApp(t, Options{NoSample: true, Logger: logger, Export: ExportOptions{
		OTLP: otlpexport.Options{Endpoint: rcv.URL, BearerToken: secretToken}, Every: 20 * time.Millisecond}})
	seedJob(t, a)
	svc := &Service{app: a}
	endpoint, err := svc.StartExport()
	if err != nil || endpoint != rcv.URL+"/v1/traces" {
		t.Fatalf("StartExport: %q, %v", endpoint, err)
	}
	metricsOf := func(a *App) string {
		rec := httptest.NewRecorder()
		metricsHandler(a).ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		return rec.Body.String()
	}
	metrics := func() string { return metricsOf(a) }
	label := `{endpoint="` + endpoint + `"}`
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(metrics(), "checkpoint_explorer_export_pending"+label+" 0") ||
		!strings.Contains(metrics(), "checkpoint_explorer_export_checkpoints_total"+label+" 20") {
		if time.Now().After(deadline) {
			t.Fatalf("the 20 checkpoints were not sent within a minute:\n%s", metrics())
		}
		time.Sleep(20 * time.Millisecond)
	}
	m := metrics()
	for _, want := range []string{"checkpoint_explorer_export_errors_total" + label + " 0",
		"checkpoint_explorer_export_dropped_total" + label + " 0"} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	if !regexp.MustCompile(`checkpoint_explorer_export_last_success_timestamp_seconds\{[^}]*\} 1\.[0-9]+e\+09`).MatchString(m) {
		t.Errorf("no last success time:\n%s", m)
	}
	if got, _ := auth.Load().(string); got != "Bearer "+secretToken || requests.Load() == 0 {
		t.Errorf("%d requests, Authorization %q", requests.Load(), got)
	}
	logged := logBuf.String()
	if strings.Contains(logged, secretToken) || !strings.Contains(logged, "exporting the stored checkpoints") {
		t.Errorf("the log holds the token or does not say where it exports:\n%s", logged)
	}
	if _, err := svc.StartExport(); err == nil {
		t.Error("a second StartExport of the same app started")
	}

	off := &Service{app: newTestApp(t, Options{NoSample: true})}
	if endpoint, err := off.StartExport(); endpoint != "" || err != nil {
		t.Errorf("without an endpoint StartExport says %q, %v", endpoint, err)
	}
	if strings.Contains(metricsOf(off.app), "checkpoint_explorer_export_") {
		t.Error("an app that does not export has export metrics")
	}
}
