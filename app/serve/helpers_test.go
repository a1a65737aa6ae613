package serve

import (
	"io"
	"log/slog"
	"net/http"
	"testing"

	"checkpoint-explorer/app"
	"checkpoint-explorer/app/apptest"
)

// send makes a request with the token as a bearer (none when ""), and returns the status and
// the body.
func send(t *testing.T, method, url, token string, body io.Reader) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	return do(t, req)
}

// do makes the request and returns the status and the body.
func do(t *testing.T, req *http.Request) (int, string) {
	t.Helper()
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

// testApp is a started app over an empty data dir, without polling or the
// bundled samples, closed when t ends; logs go to logger (nil: nowhere).
func testApp(t *testing.T, logger *slog.Logger) *app.Service {
	t.Helper()
	return apptest.Start(t, false, logger)
}
