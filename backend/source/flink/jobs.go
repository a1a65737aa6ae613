package flink

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"checkpoint-explorer/backend/model"
)

// Version returns the cluster's Flink version from GET /config ("flink-version").
func (c *Client) Version(ctx context.Context) (string, error) {
	var cfg struct {
		Version string `json:"flink-version"`
	}
	if err := c.get(ctx, "/config", "/config", nil, &cfg); err != nil {
		return "", err
	}
	if cfg.Version == "" {
		return "", errors.New("flink: GET /config: no flink-version in the response (is this a Flink JobManager?)")
	}
	return cfg.Version, nil
}

// Overview is the cluster summary from GET /overview.
type Overview struct {
	Version        string `json:"flink-version"`
	TaskManagers   int    `json:"taskmanagers"`
	SlotsTotal     int    `json:"slots-total"`
	SlotsAvailable int    `json:"slots-available"`
	JobsRunning    int    `json:"jobs-running"`
	JobsFinished   int    `json:"jobs-finished"`
	JobsCancelled  int    `json:"jobs-cancelled"`
	JobsFailed     int    `json:"jobs-failed"`
}

// Overview returns the cluster summary; a cheap call to test a connection.
func (c *Client) Overview(ctx context.Context) (Overview, error) {
	var o Overview
	err := c.get(ctx, "/overview", "/overview", nil, &o)
	return o, err
}

type jobOverview struct {
	ID        string `json:"jid"`
	Name      string `json:"name"`
	State     string `json:"state"`
	StartMs   int64  `json:"start-time"`
	EndMs     int64  `json:"end-time"`
	UpdatedMs int64  `json:"last-modification"`
}

// Jobs lists every job the JobManager knows (running and recently finished), without vertices.
func (c *Client) Jobs(ctx context.Context) ([]model.Job, error) {
	var resp struct {
		Jobs []jobOverview `json:"jobs"`
	}
	if err := c.get(ctx, "/jobs/overview", "/jobs/overview", nil, &resp); err != nil {
		return nil, err
	}
	jobs := make([]model.Job, 0, len(resp.Jobs))
	for _, j := range resp.Jobs {
		if j.ID == "" {
			return nil, errors.New("flink: GET /jobs/overview: a job without jid")
		}
		jobs = append(jobs, c.job(j))
	}
	return jobs, nil
}

func (c *Client) job(j jobOverview) model.Job {
	return model.Job{
		Cluster:   c.cluster(),
		ID:        j.ID,
		Name:      j.Name,
		Engine:    model.EngineFlink,
		State:     j.State,
		StartMs:   positive(j.StartMs),
		EndMs:     positive(j.EndMs), // Flink sends -1 while running
		UpdatedMs: positive(j.UpdatedMs),
	}
}

// Job returns one job with its vertices (in Flink's order, sources first) and the edges between
// them, taken from plan.nodes[].inputs[].
func (c *Client) Job(ctx context.Context, jid string) (model.Job, error) {
	var resp struct {
		jobOverview
		Now      int64 `json:"now"`
		Vertices []struct {
			ID          string `json:"id"`
			Name        string `json:"name"`
			Parallelism int    `json:"parallelism"`
		} `json:"vertices"`
		Plan struct {
			Nodes []struct {
				ID     string `json:"id"`
				Inputs []struct {
					ID           string `json:"id"`
					Num          int    `json:"num"`
					ShipStrategy string `json:"ship_strategy"`
				} `json:"inputs"`
			} `json:"nodes"`
		} `json:"plan"`
	}
	path, err := c.getJob(ctx, jid, "", &resp)
	if err != nil {
		return model.Job{}, err
	}
	if resp.ID == "" {
		resp.ID = jid
	}
	job := c.job(resp.jobOverview)
	if resp.UpdatedMs == 0 {
		job.UpdatedMs = positive(resp.Now)
	}

	order := make(map[string]int, len(resp.Vertices))
	for i, v := range resp.Vertices {
		if v.ID == "" {
			return model.Job{}, fmt.Errorf("flink: GET %s: vertex %d has no id", path, i)
		}
		order[v.ID] = i
		job.Vertices = append(job.Vertices, model.Vertex{ID: v.ID, Name: v.Name, Parallelism: max(v.Parallelism, 0)})
	}
	type ranked struct {
		edge     model.Edge
		tgt, num int
		src      int
	}
	var edges []ranked
	for i, n := range resp.Plan.Nodes {
		for _, in := range n.Inputs {
			// An edge must name both ends (a capture refuses one that does not).
			if n.ID == "" {
				return model.Job{}, fmt.Errorf("flink: GET %s: plan node %d has inputs but no id", path, i)
			}
			if in.ID == "" {
				return model.Job{}, fmt.Errorf("flink: GET %s: plan node %s has an input without id", path, n.ID)
			}
			e := model.Edge{Source: in.ID, Target: n.ID, ShipStrategy: in.ShipStrategy}
			edges = append(edges, ranked{edge: e, tgt: rank(order, n.ID), num: in.Num, src: rank(order, in.ID)})
		}
	}
	// Flink lists plan nodes sinks first; order edges by the vertex list so output is stable.
	sort.SliceStable(edges, func(i, j int) bool {
		a, b := edges[i], edges[j]
		if a.tgt != b.tgt {
			return a.tgt < b.tgt
		}
		if a.num != b.num {
			return a.num < b.num
		}
		return a.src < b.src
	})
	for _, e := range edges {
		job.Edges = append(job.Edges, e.edge)
	}
	return job, nil
}

// rank is a vertex's position in the job's vertex list; unknown ids sort last.
func rank(order map[string]int, id string) int {
	if i, ok := order[id]; ok {
		return i
	}
	return len(order)
}

func checkID(what, id string) error {
	if id == "" {
		return fmt.Errorf("flink: empty %s", what)
	}
	return nil
}

func positive(v int64) int64 {
	if v < 0 {
		return 0
	}
	return v
}
