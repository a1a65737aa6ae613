package app

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// The app's own metrics: requests and errors per cluster and endpoint, the
// cache's size and count, what retention removed (the HTTP door serves them
// behind its token, tested in app/serve).
func TestMetricsHandlerExportsRequestsAndTheCache(t *testing.T) {
	a := newTestApp(t, Options{NoSample: true})
	ts := httptest.NewServer(metricsHandler(a))
	defer ts.Close()
	a.metrics.observe("prod", "/jobs/:jid/checkpoints", 503, 20*time.Millisecond, nil)
	res, err := http.Get(ts.URL)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	for _, want := range []string{
		`checkpoint_explorer_cluster_requests_total{cluster="prod",code="503",endpoint="/jobs/:jid/checkpoints"} 1`,
		`checkpoint_explorer_cluster_request_errors_total{cluster="prod",endpoint="/jobs/:jid/checkpoints"} 1`,
		"checkpoint_explorer_store_bytes ",
		"checkpoint_explorer_store_checkpoints 0",
		"checkpoint_explorer_retention_pruned_checkpoints_total 0",
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("metrics lack %q", want)
		}
	}
}
