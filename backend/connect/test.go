package connect

import (
	"context"
	"fmt"
	"time"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/flink"
	"checkpoint-explorer/backend/source/seatunnel"
)

// Answer is what a connection test found: OK false and Message why when the
// cluster (or its Prometheus, or its traces) does not answer.
type Answer struct {
	OK      bool
	Version string
	Jobs    int
	Message string
}

// TestTimeout bounds a connection test, whatever the engine does.
const TestTimeout = 15 * time.Second

// Test checks that the cluster answers, and its Prometheus and traces when
// it names them: a failed connection is an answer, not an error.
func Test(ctx context.Context, c model.Cluster) Answer {
	ctx, cancel := context.WithTimeout(ctx, TestTimeout)
	defer cancel()
	switch c.Engine {
	case model.EngineFlink:
		cl, err := flink.New(flinkConfig(c))
		if err != nil {
			return Answer{Message: err.Error()}
		}
		v, err := cl.Version(ctx)
		if err != nil {
			return Answer{Message: err.Error()}
		}
		jobs, err := cl.Jobs(ctx)
		if err != nil {
			return Answer{Version: v, Message: err.Error()}
		}
		t := prometheusCheck(ctx, c, Answer{OK: true, Version: v, Jobs: len(jobs), Message: fmt.Sprintf("Flink %s, %d jobs", v, len(jobs))})
		return tracesCheck(ctx, c, t)
	case model.EngineSeaTunnel:
		cl, err := seatunnel.New(seatunnelConfig(c))
		if err != nil {
			return Answer{Message: err.Error()}
		}
		ov, err := cl.Overview(ctx)
		if err != nil {
			return Answer{Message: err.Error()}
		}
		jobs, err := cl.Jobs(ctx)
		if err != nil {
			return Answer{Version: ov.Version, Message: err.Error()}
		}
		return prometheusCheck(ctx, c, Answer{OK: true, Version: ov.Version, Jobs: len(jobs), Message: fmt.Sprintf("SeaTunnel %s, %d jobs", ov.Version, len(jobs))})
	default:
		return Answer{Message: fmt.Sprintf("engine %q: choose flink or seatunnel", c.Engine)}
	}
}

// prometheusCheck adds the optional Prometheus's answer to a connection test.
// A Prometheus that does not answer fails the test: the user typed its URL.
func prometheusCheck(ctx context.Context, c model.Cluster, t Answer) Answer {
	if c.PrometheusURL == "" {
		return t
	}
	pc, err := Prometheus(c)
	if err == nil {
		err = pc.Check(ctx)
	}
	if err != nil {
		t.OK = false
		t.Message += "; Prometheus: " + err.Error()
		return t
	}
	t.Message += "; Prometheus answers"
	return t
}

// tracesCheck adds what the cluster's Jaeger says to a connection test.
func tracesCheck(ctx context.Context, c model.Cluster, t Answer) Answer {
	if c.TracesURL == "" {
		return t
	}
	jc, err := Traces(c, 1)
	if err == nil {
		err = jc.Check(ctx)
	}
	if err != nil {
		t.OK = false
		t.Message += "; traces: " + err.Error()
		return t
	}
	t.Message += fmt.Sprintf("; Jaeger has spans of %q", c.TracesService)
	return t
}
