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
	e, err := engineOf(c)
	if err != nil {
		return Answer{Message: err.Error()}
	}
	v, err := e.version(ctx)
	if err != nil {
		return Answer{Message: err.Error()}
	}
	jobs, err := e.jobs(ctx)
	if err != nil {
		return Answer{Version: v, Message: err.Error()}
	}
	t := prometheusCheck(ctx, c, Answer{OK: true, Version: v, Jobs: len(jobs), Message: fmt.Sprintf("%s %s, %d jobs", e.name, v, len(jobs))})
	if e.traces {
		t = tracesCheck(ctx, c, t)
	}
	return t
}

// testedEngine is what a connection test asks of the cluster's engine.
type testedEngine struct {
	name    string
	version func(context.Context) (string, error)
	jobs    func(context.Context) ([]model.Job, error)
	// traces: the engine's checkpoints can come from a tracing backend too.
	traces bool
}

func engineOf(c model.Cluster) (testedEngine, error) {
	switch c.Engine {
	case model.EngineFlink:
		cl, err := flink.New(flinkConfig(c, nil))
		if err != nil {
			return testedEngine{}, err
		}
		return testedEngine{name: "Flink", version: cl.Version, jobs: cl.Jobs, traces: true}, nil
	case model.EngineSeaTunnel:
		cl, err := seatunnel.New(seatunnelConfig(c, nil))
		if err != nil {
			return testedEngine{}, err
		}
		version := func(ctx context.Context) (string, error) {
			ov, err := cl.Overview(ctx)
			return ov.Version, err
		}
		return testedEngine{name: "SeaTunnel", version: version, jobs: cl.Jobs}, nil
	default:
		return testedEngine{}, fmt.Errorf("engine %q: choose flink or seatunnel", c.Engine)
	}
}

// prometheusCheck adds the optional Prometheus's answer to a connection test.
// A Prometheus that does not answer fails the test: the user typed its URL.
func prometheusCheck(ctx context.Context, c model.Cluster, t Answer) Answer {
	if c.PrometheusURL == "" {
		return t
	}
	return backendCheck(ctx, t, "Prometheus", "Prometheus answers", func() (checkable, error) { return Prometheus(c) })
}

// tracesCheck adds what the cluster's Jaeger says to a connection test.
func tracesCheck(ctx context.Context, c model.Cluster, t Answer) Answer {
	if c.TracesURL == "" {
		return t
	}
	return backendCheck(ctx, t, "traces", fmt.Sprintf("Jaeger has spans of %q", c.TracesService),
		func() (checkable, error) { return Traces(c, 1) })
}

// checkable is a backend a connection test asks whether it answers.
type checkable interface{ Check(context.Context) error }

// backendCheck adds the answer of a backend the user named (name, and what
// it says when it answers) to a connection test: one that does not answer
// fails the test.
func backendCheck(ctx context.Context, t Answer, name, answers string, open func() (checkable, error)) Answer {
	b, err := open()
	if err == nil {
		err = b.Check(ctx)
	}
	if err != nil {
		t.OK = false
		t.Message += "; " + name + ": " + err.Error()
		return t
	}
	t.Message += "; " + answers
	return t
}
