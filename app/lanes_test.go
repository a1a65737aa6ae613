package app

import (
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
)

func TestParseLane(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want model.Lane
		err  string
	}{
		{in: "lag=promql:max(kafka_lag{job=\"$job_id\"})", want: model.Lane{Name: "lag", PromQL: `max(kafka_lag{job="$job_id"})`}},
		{in: " out = metric:numRecordsOutPerSecond", want: model.Lane{Name: "out", Metric: "numRecordsOutPerSecond"}},
		{in: "a=promql:x=y", want: model.Lane{Name: "a", PromQL: "x=y"}},
		{in: "noequals", err: "want NAME=promql:QUERY"},
		{in: "=promql:up", err: "want NAME=promql:QUERY"},
		{in: "a=sql:select", err: `"sql" is neither promql nor metric`},
		{in: "a=metric:", err: "want NAME="},
	} {
		got, err := ParseLane(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q: error %v, want one saying %q", tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q: %+v, %v; want %+v", tc.in, got, err, tc.want)
		}
	}
}
