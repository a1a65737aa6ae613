package jaeger

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"checkpoint-explorer/backend/model"
)

// DefaultJobWindows is how many windows a Jobs call splits its range into, one request each.
const DefaultJobWindows = 8

// SeenJob is a job whose checkpoint spans a Jobs call found.
type SeenJob struct {
	Job model.Job
	// Checkpoints counts the job's checkpoints in the answers: a lower bound, since each answer
	// holds at most PageSize traces.
	Checkpoints int
	// FirstTriggerMs and LatestTriggerMs span the checkpoints seen.
	FirstTriggerMs, LatestTriggerMs int64
}

// JobsResult is what one Jobs call read.
type JobsResult struct {
	// Jobs are by the latest checkpoint seen, newest first.
	Jobs     []SeenJob
	Requests int
}

// Jobs lists the jobs whose Checkpoint spans Config.Service holds in [from, to): the range is
// split into DefaultJobWindows windows, newest first, each asked once for its PageSize most
// recent checkpoint traces (Jaeger has no query for distinct tag values). A job checkpointing
// rarely beside a busy one may be missed; its id can still be read with Checkpoints.
func (c *Client) Jobs(ctx context.Context, from, to time.Time) (JobsResult, error) {
	var res JobsResult
	if !to.After(from) {
		return res, fmt.Errorf("jaeger: empty time range %s", Window{from, to})
	}
	windows := min(DefaultJobWindows, c.cfg.MaxRequests)
	step := to.Sub(from) / time.Duration(windows)
	byID := map[string]*SeenJob{}
	for i := 0; i < windows; i++ {
		w := Window{To: to.Add(-step * time.Duration(i)), From: to.Add(-step * time.Duration(i+1))}
		if i == windows-1 {
			w.From = from
		}
		q := url.Values{}
		q.Set("service", c.cfg.Service)
		q.Set("operation", DefaultOperation)
		q.Set("start", micros(w.From))
		q.Set("end", micros(w.To.Add(-time.Microsecond)))
		q.Set("limit", strconv.Itoa(c.cfg.PageSize))
		q.Set("raw", "true")
		res.Requests++
		data, err := c.getTraces(ctx, q)
		if err != nil {
			return res, err
		}
		a, err := parseAnswer(data, c.cfg.Cluster)
		if err != nil {
			return res, newError(endpointTraces+"?"+q.Encode(), 200, err.Error(), nil)
		}
		names := map[string]string{}
		for _, j := range a.jobs {
			names[j.ID] = j.Name
		}
		for _, cp := range a.checkpoints {
			if cp.JobID == "" {
				continue
			}
			s := byID[cp.JobID]
			if s == nil {
				s = &SeenJob{Job: model.Job{Cluster: c.cfg.Cluster, ID: cp.JobID, Name: cp.JobID, Engine: model.EngineFlink},
					FirstTriggerMs: cp.TriggerMs, LatestTriggerMs: cp.TriggerMs}
				byID[cp.JobID] = s
			}
			if n := names[cp.JobID]; n != "" && n != cp.JobID {
				s.Job.Name = n
			}
			s.Checkpoints++
			s.FirstTriggerMs = min(s.FirstTriggerMs, cp.TriggerMs)
			s.LatestTriggerMs = max(s.LatestTriggerMs, cp.TriggerMs)
		}
	}
	for _, s := range byID {
		res.Jobs = append(res.Jobs, *s)
	}
	sort.Slice(res.Jobs, func(i, j int) bool {
		a, b := res.Jobs[i], res.Jobs[j]
		if a.LatestTriggerMs != b.LatestTriggerMs {
			return a.LatestTriggerMs > b.LatestTriggerMs
		}
		return a.Job.ID < b.Job.ID
	})
	return res, nil
}

const endpointServices = "/api/services"

// Services lists the service names Jaeger holds spans of (GET /api/services): one request.
func (c *Client) Services(ctx context.Context) ([]string, error) {
	data, err := c.get(ctx, endpointServices, nil)
	if err != nil {
		return nil, err
	}
	var a struct {
		Data   []string `json:"data"`
		Errors []struct {
			Msg string `json:"msg"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(data, &a); err != nil {
		return nil, newError(endpointServices, 200, "not Jaeger's services JSON: "+err.Error(), nil)
	}
	if len(a.Errors) > 0 {
		return nil, newError(endpointServices, 200, "Jaeger answered an error: "+a.Errors[0].Msg, nil)
	}
	sort.Strings(a.Data)
	return a.Data, nil
}

// Check asks Jaeger for its services and fails unless Config.Service is one: the query URL is
// Jaeger's and Flink's reporter has sent spans under that name.
func (c *Client) Check(ctx context.Context) error {
	svcs, err := c.Services(ctx)
	if err != nil {
		return err
	}
	if slices.Contains(svcs, c.cfg.Service) {
		return nil
	}
	known := "none"
	if len(svcs) > 0 {
		if len(svcs) > 10 {
			svcs = append(svcs[:10], "…")
		}
		known = strings.Join(svcs, ", ")
	}
	return fmt.Errorf("jaeger: no spans of service %q yet (services there: %s); check traces.reporter.<name>.service.name", c.cfg.Service, known)
}
