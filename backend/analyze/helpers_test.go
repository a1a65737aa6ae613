package analyze

import (
	"checkpoint-explorer/backend/model"
)

// A Flink-shaped job: Source → Map → Window → Sink, 4 subtasks each.
const (
	vSrc  = "bc764cd8ddf7a0cff126f51c16239658"
	vMap  = "0a448493b4782967b150582570326227"
	vWin  = "ea632d67b7d595e5b851708ae9ad79d6"
	vSink = "6d2677a0ecc3fd8df0b72ec675edf8f4"

	nameSrc  = "Source: Kafka(orders)"
	nameMap  = "Map(enrich)"
	nameWin  = "Window(TumblingEventTimeWindows(10000), EventTimeTrigger, SumAggregator)"
	nameSink = "Sink: JDBC(payments)"
)

func flinkJob() model.Job {
	return model.Job{
		Cluster: "prod", ID: "4c0ffee0000000000000000000000001", Name: "orders", Engine: model.EngineFlink,
		Vertices: []model.Vertex{
			{ID: vSrc, Name: nameSrc, Parallelism: 4},
			{ID: vMap, Name: nameMap, Parallelism: 4},
			{ID: vWin, Name: nameWin, Parallelism: 4},
			{ID: vSink, Name: nameSink, Parallelism: 4},
		},
		Edges: []model.Edge{
			{Source: vSrc, Target: vMap, ShipStrategy: "FORWARD"},
			{Source: vMap, Target: vWin, ShipStrategy: "HASH"},
			{Source: vWin, Target: vSink, ShipStrategy: "FORWARD"},
		},
	}
}

// ph is one subtask's measured phases plus its ack residual, in ms.
type ph struct{ sd, al, sy, as, ack int64 }

func (p ph) e2e() int64 { return p.sd + p.al + p.sy + p.as + p.ack }

var healthy = ph{sd: 2, al: 1, sy: 3, as: 20, ack: 4} // 30 ms

func ackedSub(idx int, p ph, trigger int64) model.SubtaskStats {
	return model.SubtaskStats{
		Index: idx, Status: model.SubtaskCompleted, AckMs: trigger + p.e2e(), EndToEndMs: p.e2e(),
		StartDelayMs: p.sd, AlignmentMs: p.al, SyncMs: p.sy, AsyncMs: p.as,
		StateSize: 1000, CheckpointedSize: 100,
	}
}

func pendingSub(idx int) model.SubtaskStats {
	return model.SubtaskStats{Index: idx, Status: model.SubtaskPendingOrFailed}
}

// vtx describes one vertex of a built checkpoint: a phase per subtask, nil
// for a subtask that never acknowledged.
type vtx struct {
	id   string
	subs []*ph
}

func all4(p ph) []*ph { return []*ph{&p, &p, &p, &p} }

// with returns the four subtasks healthy except index i, which has p.
func with(i int, p ph) []*ph {
	s := all4(healthy)
	s[i] = &p
	return s
}

// buildCP builds a checkpoint from per-vertex subtasks. It is completed when
// every subtask acknowledged, failed (after failAfter ms, with msg) otherwise.
func buildCP(id, trigger int64, vs []vtx, failAfter int64, msg string) model.Checkpoint {
	c := model.Checkpoint{Cluster: "prod", JobID: "4c0ffee0000000000000000000000001", ID: id, Kind: model.KindCheckpoint, TriggerMs: trigger}
	var last int64
	for _, v := range vs {
		ts := model.TaskStats{VertexID: v.id, NumSubtasks: len(v.subs)}
		for i, p := range v.subs {
			if p == nil {
				ts.Subtasks = append(ts.Subtasks, pendingSub(i))
				continue
			}
			s := ackedSub(i, *p, trigger)
			ts.Subtasks = append(ts.Subtasks, s)
			ts.NumAcknowledged++
			ts.CheckpointedSize += s.CheckpointedSize
			ts.StateSize += s.StateSize
			ts.EndToEndMs = max(ts.EndToEndMs, s.EndToEndMs)
			ts.LatestAckMs = max(ts.LatestAckMs, s.AckMs)
		}
		c.NumSubtasks += ts.NumSubtasks
		c.NumAcknowledged += ts.NumAcknowledged
		c.CheckpointedSize += ts.CheckpointedSize
		c.StateSize += ts.StateSize
		last = max(last, ts.LatestAckMs)
		c.Tasks = append(c.Tasks, ts)
	}
	c.LatestAckMs = last
	if c.NumAcknowledged == c.NumSubtasks && failAfter == 0 {
		c.Status = model.StatusCompleted
		c.EndToEndMs = last - trigger
		c.CompletionMs = last
		return c
	}
	c.Status = model.StatusFailed
	c.FailureMs = trigger + failAfter
	c.EndToEndMs = failAfter
	c.FailureMessage = msg
	return c
}

// healthyCP is a completed checkpoint where every subtask took 30 ms.
func healthyCP(id, trigger int64) model.Checkpoint {
	return buildCP(id, trigger, []vtx{{vSrc, all4(healthy)}, {vMap, all4(healthy)}, {vWin, all4(healthy)}, {vSink, all4(healthy)}}, 0, "")
}

func i64p(v int64) *int64 { return &v }

func intp(v int) *int { return &v }
