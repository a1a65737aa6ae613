package restclient

import "testing"

func TestRequestErrorText(t *testing.T) {
	for _, tc := range []struct {
		e    RequestError
		want string
	}{
		{RequestError{Source: "flink", Method: "GET", Path: "/jobs/x", Status: 404, StatusText: "Not Found", Message: "Job x not found"},
			"flink: GET /jobs/x: 404 Not Found: Job x not found"},
		{RequestError{Source: "seatunnel", Method: "GET", Path: "/overview", Status: 503}, "seatunnel: GET /overview: 503"},
		{RequestError{Source: "flink", Method: "GET", Path: "/config", Message: "dial tcp 127.0.0.1:1: connection refused"},
			"flink: GET /config: dial tcp 127.0.0.1:1: connection refused"},
	} {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.e, got, tc.want)
		}
	}
}
