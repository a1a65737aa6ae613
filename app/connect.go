package app

import (
	"context"
	"fmt"
	"time"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/flink"
	"checkpoint-explorer/backend/source/seatunnel"
)

// ConnectionTest is the answer of TestConnection.
type ConnectionTest struct {
	OK      bool   `json:"ok"`
	Version string `json:"version"`
	Jobs    int    `json:"jobs"`
	Message string `json:"message"`
}

// TestConnection checks that the cluster answers, without saving it. A failed
// connection is an answer (OK false, Message why), not an error.
func (a *App) TestConnection(in ClusterInput) (ConnectionTest, error) {
	c := in.cluster()
	if old, ok := a.configuredCluster(c.Name); ok && old.Auth.Kind == c.Auth.Kind {
		if c.Auth.Password == "" {
			c.Auth.Password = old.Auth.Password
		}
		if c.Auth.Token == "" {
			c.Auth.Token = old.Auth.Token
		}
	}
	if c.Name == "" {
		c.Name = "test"
	}
	if err := validateCluster(c); err != nil {
		return ConnectionTest{Message: err.Error()}, nil
	}
	ctx, cancel := a.callCtx()
	defer cancel()
	// A connection test answers within 15 s, whatever the engine does.
	ctx, cancelTest := context.WithTimeout(ctx, 15*time.Second)
	defer cancelTest()
	switch c.Engine {
	case model.EngineFlink:
		cl, err := flink.New(flinkConfig(c))
		if err != nil {
			return ConnectionTest{Message: err.Error()}, nil
		}
		v, err := cl.Version(ctx)
		if err != nil {
			return ConnectionTest{Message: err.Error()}, nil
		}
		jobs, err := cl.Jobs(ctx)
		if err != nil {
			return ConnectionTest{Version: v, Message: err.Error()}, nil
		}
		t := prometheusCheck(ctx, c, ConnectionTest{OK: true, Version: v, Jobs: len(jobs), Message: fmt.Sprintf("Flink %s, %d jobs", v, len(jobs))})
		return tracesCheck(ctx, c, t), nil
	case model.EngineSeaTunnel:
		cl, err := seatunnel.New(seatunnelConfig(c))
		if err != nil {
			return ConnectionTest{Message: err.Error()}, nil
		}
		ov, err := cl.Overview(ctx)
		if err != nil {
			return ConnectionTest{Message: err.Error()}, nil
		}
		jobs, err := cl.Jobs(ctx)
		if err != nil {
			return ConnectionTest{Version: ov.Version, Message: err.Error()}, nil
		}
		return prometheusCheck(ctx, c, ConnectionTest{OK: true, Version: ov.Version, Jobs: len(jobs), Message: fmt.Sprintf("SeaTunnel %s, %d jobs", ov.Version, len(jobs))}), nil
	default:
		return ConnectionTest{Message: fmt.Sprintf("engine %q: choose flink or seatunnel", c.Engine)}, nil
	}
}

func seatunnelConfig(c model.Cluster) seatunnel.Config {
	return seatunnel.Config{BaseURL: c.BaseURL, Auth: c.Auth, CAFile: c.CAFile, InsecureSkipVerify: c.InsecureSkipVerify, Timeout: 10 * time.Second, Cluster: c.Name}
}

func flinkConfig(c model.Cluster) flink.Config {
	return flink.Config{BaseURL: c.BaseURL, Auth: c.Auth, CAFile: c.CAFile, InsecureSkipVerify: c.InsecureSkipVerify, Timeout: 10 * time.Second}
}

// prometheusCheck adds the optional Prometheus's answer to a connection test.
// A Prometheus that does not answer fails the test: the user typed its URL.
func prometheusCheck(ctx context.Context, c model.Cluster, t ConnectionTest) ConnectionTest {
	if c.PrometheusURL == "" {
		return t
	}
	pc, err := prometheusClient(c)
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
