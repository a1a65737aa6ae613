package connect

import (
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
)

func TestCheckLanes(t *testing.T) {
	flink := func(prom string, ls ...model.Lane) model.Cluster {
		return model.Cluster{Name: "c", Engine: model.EngineFlink, PrometheusURL: prom, Lanes: ls}
	}
	many := make([]model.Lane, MaxLanes+1)
	for i := range many {
		many[i] = model.Lane{Name: string(rune('a' + i)), Metric: "m"}
	}
	for _, tc := range []struct {
		name string
		c    model.Cluster
		err  string
	}{
		{"none", flink(""), ""},
		{"both kinds", flink("http://p", model.Lane{Name: "a", PromQL: "up"}, model.Lane{Name: "b", Metric: "numRecordsIn"}), ""},
		{"promql without prometheus", flink("", model.Lane{Name: "a", PromQL: "up"}), "needs the cluster's Prometheus URL"},
		{"neither", flink("", model.Lane{Name: "a"}), "either a PromQL query or a Flink metric"},
		{"both in one", flink("http://p", model.Lane{Name: "a", PromQL: "up", Metric: "m"}), "either a PromQL query or a Flink metric"},
		{"same name", flink("", model.Lane{Name: "a", Metric: "m"}, model.Lane{Name: "a", Metric: "n"}), "two lanes have this name"},
		{"no name", flink("", model.Lane{Metric: "m"}), "a name of 1 to 40"},
		{"metric list", flink("", model.Lane{Name: "a", Metric: "m,n"}), "one Flink metric name"},
		{"too many", flink("", many...), "at most 8"},
		{"seatunnel", model.Cluster{Name: "s", Engine: model.EngineSeaTunnel, Lanes: []model.Lane{{Name: "a", Metric: "m"}}}, "Flink clusters only"},
	} {
		err := CheckLanes(tc.c)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.err)
		}
	}
}
