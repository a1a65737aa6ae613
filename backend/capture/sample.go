package capture

import (
	"encoding/json"
	"errors"
	"fmt"
	"github.com/dustin/go-humanize"
	"io"
	"math"
	"sort"
	"strings"
	"time"

	"checkpoint-explorer/backend/model"
)

// SampleFormat names the foreign format of the bundled first-run sample: the
// JSON artifact a Flink test harness writes after inducing backpressure
// (phase-2.3-checkpoint-metrics.json). It is recognised by its
// "checkpoint_records" and "time_series" keys.
const SampleFormat = "flink-checkpoint-metrics-artifact"

// Metric names the sample conversion uses besides the model's well-known ones.
// They are the Flink metric names the artifact's values came from.
const (
	// MetricCheckpointAlignmentTime is the task's last alignment time, in milliseconds.
	MetricCheckpointAlignmentTime = "checkpointAlignmentTime"
	// MetricFailedCheckpoints is the job's count of failed checkpoints so far.
	MetricFailedCheckpoints = "numberOfFailedCheckpoints"
	// MetricLastCheckpointDuration is the end-to-end time of the latest completed checkpoint, in milliseconds.
	MetricLastCheckpointDuration = "lastCheckpointDuration"
)

// backpressureMetric names the artifact's "backpressured time" after the
// Flink metric it says it was scraped from. Soft and hard backpressure are
// each a part of backPressuredTimeMsPerSecond: carried under the total's name
// a soft-only 0 would read as "no backpressure", which the file cannot say.
func backpressureMetric(scrapedFrom string) string {
	switch {
	case strings.HasSuffix(scrapedFrom, model.MetricSoftBackPressuredMsPerSec):
		return model.MetricSoftBackPressuredMsPerSec
	case strings.HasSuffix(scrapedFrom, model.MetricHardBackPressuredMsPerSec):
		return model.MetricHardBackPressuredMsPerSec
	}
	return model.MetricBackPressuredMsPerSec
}

// The artifact's numbers are JSON floats ("47.0"), so every number is read
// as a float and converted with a check. Pointers tell null from zero.
type sampleFile struct {
	Artifact      string `json:"artifact"`
	Command       string `json:"command"`
	FinishedAt    string `json:"finished_at"`
	GitSHA        string `json:"git_sha"`
	JobID         string `json:"job_id"`
	Phase         string `json:"phase"`
	RunID         string `json:"run_id"`
	StackVersions struct {
		Flink    string `json:"flink"`
		FlinkCDC string `json:"flink_cdc"`
	} `json:"stack_versions"`
	CheckpointRecords []sampleCheckpoint `json:"checkpoint_records"`
	TimeSeries        []samplePoint      `json:"time_series"`
}

type sampleCheckpoint struct {
	ID                    *float64 `json:"id"`
	Status                string   `json:"status"`
	TriggerTimestamp      *float64 `json:"trigger_timestamp"`
	LatestAckTimestamp    *float64 `json:"latest_ack_timestamp"`
	DurationMs            *float64 `json:"duration_ms"`
	CheckpointedSizeBytes *float64 `json:"checkpointed_size_bytes"`
	ProcessedDataBytes    *float64 `json:"processed_data_bytes"`
	PersistedDataBytes    *float64 `json:"persisted_data_bytes"`
}

type samplePoint struct {
	CollectedAt  string `json:"collected_at"`
	Backpressure struct {
		BackpressuredTimeMsPerSecond *float64 `json:"backpressured_time_ms_per_second"`
		BusyTimeMsPerSecond          *float64 `json:"busy_time_ms_per_second"`
		// MetricNames says which reporter metric each value was scraped from.
		MetricNames struct {
			BackpressureTime string `json:"backpressure_time_ms_per_second"`
		} `json:"metric_names"`
	} `json:"backpressure"`
	Checkpoint struct {
		AlignmentTimeMs   *float64 `json:"alignment_time_ms"`
		DurationMs        *float64 `json:"duration_ms"`
		FailedCount       *float64 `json:"failed_count"`
		LatestCompletedID *float64 `json:"latest_completed_id"`
	} `json:"checkpoint"`
}

// converted is a sample file in model form, in the order it is delivered.
type converted struct {
	header      Header
	cluster     model.Cluster
	job         model.Job
	checkpoints []*model.Checkpoint // by id
	gaps        []model.Gap         // by id; gaps[i] precedes the checkpoint after it
	metrics     []model.MetricSample
	// partialBP is the soft or hard backpressure metric recorded instead of the total, if any.
	partialBP string
}

var errNotCapture = errors.New("capture: not a capture file: line 1 is not a header record, and the file is not a known sample format")

// sample reads a whole foreign document (bounded by MaxLineBytes, as if it
// were one record), converts it and delivers it like a capture.
func (rd *reader) sample(r io.Reader) (Summary, error) {
	data, err := io.ReadAll(io.LimitReader(r, int64(rd.lim.MaxLineBytes)+1))
	if err != nil {
		return rd.sum, streamErr(err, 0)
	}
	if len(data) > rd.lim.MaxLineBytes {
		return rd.sum, fmt.Errorf("capture: not a capture file, and as a JSON document it is over the %s limit", humanize.IBytes(uint64(rd.lim.MaxLineBytes)))
	}
	res, err := rd.scan.scan(data)
	if err != nil {
		return rd.sum, fmt.Errorf("capture: sample: %w", err)
	}
	var keys map[string]json.RawMessage
	if !res.complete || json.Unmarshal(data, &keys) != nil {
		return rd.sum, errNotCapture
	}
	if _, ok := keys["checkpoint_records"]; !ok {
		return rd.sum, errNotCapture
	}
	if _, ok := keys["time_series"]; !ok {
		return rd.sum, errNotCapture
	}
	var f sampleFile
	if err := json.Unmarshal(data, &f); err != nil {
		return rd.sum, fmt.Errorf("capture: sample: %w", err)
	}
	c, err := convertSample(&f, rd.name)
	if err != nil {
		return rd.sum, err
	}
	return rd.sum, rd.deliver(c)
}

// deliver validates the converted records and hands them to the visitor in
// the documented order: header, cluster, job, then each checkpoint preceded
// by the gap before it, then metric samples in time order.
func (rd *reader) deliver(c *converted) error {
	if err := validateHeader(&c.header, rd.lim); err != nil {
		return fmt.Errorf("capture: sample: %w", err)
	}
	rd.sum.Header = c.header
	if err := visit(rd.v.Header, c.header); err != nil {
		return fmt.Errorf("capture: sample: %w", err)
	}
	if err := validateCluster(&c.cluster, rd.lim); err != nil {
		return fmt.Errorf("capture: sample: %w", err)
	}
	rd.sum.Clusters++
	if err := visit(rd.v.Cluster, c.cluster); err != nil {
		return fmt.Errorf("capture: sample: %w", err)
	}
	if err := validateJob(&c.job, rd.lim); err != nil {
		return fmt.Errorf("capture: sample: %w", err)
	}
	rd.sum.Jobs++
	if err := visit(rd.v.Job, c.job); err != nil {
		return fmt.Errorf("capture: sample: %w", err)
	}
	gi := 0
	for _, cp := range c.checkpoints {
		for ; gi < len(c.gaps) && c.gaps[gi].FromID < cp.ID; gi++ {
			if err := rd.gap(c.gaps[gi]); err != nil {
				return err
			}
		}
		if err := validateCheckpoint(cp, rd.lim); err != nil {
			return fmt.Errorf("capture: sample: %w", err)
		}
		rd.sum.Checkpoints++
		if err := visit(rd.v.Checkpoint, cp); err != nil {
			return fmt.Errorf("capture: sample: checkpoint %d: %w", cp.ID, err)
		}
	}
	for ; gi < len(c.gaps); gi++ {
		if err := rd.gap(c.gaps[gi]); err != nil {
			return err
		}
	}
	for i := range c.metrics {
		if err := rd.ctx.Err(); err != nil {
			return fmt.Errorf("capture: sample: reading stopped: %w", err)
		}
		if err := validateMetricSample(&c.metrics[i], rd.lim); err != nil {
			return fmt.Errorf("capture: sample: %w", err)
		}
		rd.sum.MetricSamples++
		if err := visit(rd.v.MetricSample, c.metrics[i]); err != nil {
			return fmt.Errorf("capture: sample: %w", err)
		}
	}
	return nil
}

func (rd *reader) gap(g model.Gap) error {
	if err := validateGap(&g, rd.lim); err != nil {
		return fmt.Errorf("capture: sample: %w", err)
	}
	rd.sum.Gaps++
	if err := visit(rd.v.Gap, g); err != nil {
		return fmt.Errorf("capture: sample: gap %d-%d: %w", g.FromID, g.ToID, err)
	}
	return nil
}

// convertSample maps the artifact onto the model. It is deterministic: the
// same file gives the same records. It adds nothing the file does not say:
// no tasks, no phases, no statuses for checkpoints it did not record.
func convertSample(f *sampleFile, name string) (*converted, error) {
	if f.JobID == "" {
		return nil, errors.New("capture: sample: empty job_id")
	}
	label := "sample"
	if f.Phase != "" {
		label = "phase-" + f.Phase
	} else if f.RunID != "" {
		label = "run " + f.RunID
	}
	flinkName := "Flink"
	if f.StackVersions.Flink != "" {
		flinkName = "Flink " + f.StackVersions.Flink
	}
	jobKind := "Flink job"
	if f.StackVersions.FlinkCDC != "" {
		jobKind = "Flink CDC job"
	}
	c := &converted{
		cluster: model.Cluster{
			Name:     fmt.Sprintf("sample: %s (%s)", label, flinkName),
			Engine:   model.EngineFlink,
			Auth:     model.Auth{Kind: model.AuthNone},
			ReadOnly: true,
		},
	}
	c.job = model.Job{
		Cluster: c.cluster.Name,
		ID:      f.JobID,
		Name:    fmt.Sprintf("%s (%s sample)", jobKind, label),
		Engine:  model.EngineFlink,
	}

	seen := map[int64]bool{}
	for i, r := range f.CheckpointRecords {
		cp, err := sampleCheckpointOf(r, c.cluster.Name, f.JobID)
		if err != nil {
			return nil, fmt.Errorf("capture: sample: checkpoint_records[%d]: %w", i, err)
		}
		if seen[cp.ID] {
			return nil, fmt.Errorf("capture: sample: checkpoint_records[%d]: duplicate id %d", i, cp.ID)
		}
		seen[cp.ID] = true
		c.checkpoints = append(c.checkpoints, cp)
	}
	sort.Slice(c.checkpoints, func(i, j int) bool { return c.checkpoints[i].ID < c.checkpoints[j].ID })

	var (
		firstMs, lastMs         int64
		firstFailed, lastFailed = -1.0, -1.0
		latestIDs               []idAt
	)
	for i, p := range f.TimeSeries {
		t, err := time.Parse(time.RFC3339, p.CollectedAt)
		if err != nil {
			return nil, fmt.Errorf("capture: sample: time_series[%d]: collected_at: %w", i, err)
		}
		ms := t.UnixMilli()
		if ms < 0 {
			return nil, fmt.Errorf("capture: sample: time_series[%d]: collected_at %s is before 1970", i, p.CollectedAt)
		}
		if i == 0 || ms < firstMs {
			firstMs = ms
		}
		if ms > lastMs {
			lastMs = ms
		}
		add := func(metric, agg string, v *float64) {
			if v == nil {
				return
			}
			c.metrics = append(c.metrics, model.MetricSample{
				Cluster: c.cluster.Name, JobID: f.JobID, Subtask: -1,
				Metric: metric, Agg: agg, TimeMs: ms, Value: *v, Source: SourceCapture,
			})
		}
		// Task metrics were the maximum over the job's tasks; job metrics are one value.
		bp := backpressureMetric(p.Backpressure.MetricNames.BackpressureTime)
		if bp != model.MetricBackPressuredMsPerSec && p.Backpressure.BackpressuredTimeMsPerSecond != nil {
			c.partialBP = bp
		}
		add(bp, model.AggMax, p.Backpressure.BackpressuredTimeMsPerSecond)
		add(model.MetricBusyMsPerSec, model.AggMax, p.Backpressure.BusyTimeMsPerSecond)
		add(MetricCheckpointAlignmentTime, model.AggMax, p.Checkpoint.AlignmentTimeMs)
		add(MetricLastCheckpointDuration, model.AggNone, p.Checkpoint.DurationMs)
		add(MetricFailedCheckpoints, model.AggNone, p.Checkpoint.FailedCount)
		if fc := p.Checkpoint.FailedCount; fc != nil {
			if firstFailed < 0 {
				firstFailed = *fc
			}
			lastFailed = *fc
		}
		if p.Checkpoint.LatestCompletedID != nil {
			id, err := toInt("latest_completed_id", p.Checkpoint.LatestCompletedID)
			if err != nil {
				return nil, fmt.Errorf("capture: sample: time_series[%d]: %w", i, err)
			}
			latestIDs = append(latestIDs, idAt{id: id, ms: ms})
		}
	}
	// Stable, so equal times keep file order and the result is deterministic.
	sort.SliceStable(c.metrics, func(i, j int) bool { return c.metrics[i].TimeMs < c.metrics[j].TimeMs })

	c.gaps = sampleGaps(c.checkpoints, latestIDs, c.cluster.Name, f.JobID)

	recordedAt := time.UnixMilli(lastMs).UTC()
	if t, err := time.Parse(time.RFC3339, f.FinishedAt); err == nil {
		recordedAt = t.UTC()
	}
	recordedBy := "sample artifact"
	if f.Command != "" {
		recordedBy += " (" + f.Command + ")"
	}
	c.header = Header{
		Format:     Format,
		Version:    Version,
		RecordedBy: recordedBy,
		RecordedAt: recordedAt,
		Note:       sampleNote(f, c, firstMs, firstFailed, lastFailed),
		Source:     &Origin{Format: SampleFormat, Name: name, RunID: f.RunID, Revision: f.GitSHA},
	}
	return c, nil
}

type idAt struct {
	id int64
	ms int64
}

func sampleCheckpointOf(r sampleCheckpoint, cluster, jobID string) (*model.Checkpoint, error) {
	if r.ID == nil {
		return nil, errors.New("missing id")
	}
	id, err := toInt("id", r.ID)
	if err != nil {
		return nil, err
	}
	cp := &model.Checkpoint{Cluster: cluster, JobID: jobID, ID: id, Kind: model.KindCheckpoint}
	switch s := model.Status(strings.ToUpper(r.Status)); s {
	case model.StatusCompleted, model.StatusFailed, model.StatusInProgress:
		cp.Status = s
	default:
		return nil, fmt.Errorf("checkpoint %d: invalid status %q", id, r.Status)
	}
	for _, f := range []struct {
		name string
		v    *float64
		dst  *int64
	}{
		{"trigger_timestamp", r.TriggerTimestamp, &cp.TriggerMs},
		{"latest_ack_timestamp", r.LatestAckTimestamp, &cp.LatestAckMs},
		{"duration_ms", r.DurationMs, &cp.EndToEndMs},
		{"checkpointed_size_bytes", r.CheckpointedSizeBytes, &cp.CheckpointedSize},
		{"processed_data_bytes", r.ProcessedDataBytes, &cp.ProcessedData},
		{"persisted_data_bytes", r.PersistedDataBytes, &cp.PersistedData},
	} {
		if f.v == nil {
			continue
		}
		if *f.dst, err = toInt(f.name, f.v); err != nil {
			return nil, fmt.Errorf("checkpoint %d: %w", id, err)
		}
	}
	if cp.TriggerMs == 0 {
		return nil, fmt.Errorf("checkpoint %d: missing trigger_timestamp", id)
	}
	if r.DurationMs == nil && cp.LatestAckMs >= cp.TriggerMs {
		cp.EndToEndMs = cp.LatestAckMs - cp.TriggerMs
	}
	return cp, nil
}

// toInt converts a JSON number that must be a non-negative whole number
// small enough to be exact in a float.
func toInt(field string, v *float64) (int64, error) {
	f := *v
	if f < 0 || f != math.Trunc(f) || f > 1<<53 {
		return 0, fmt.Errorf("%s: %v is not a non-negative whole number", field, f)
	}
	return int64(f), nil
}

// sampleGaps marks the ids between the lowest and highest known checkpoint
// that the artifact did not record. Flink numbers checkpoints consecutively,
// so those ids were triggered, but what became of them the file does not say.
// Ids below the first known one are not marked: a job restored from a
// savepoint does not start counting at 1.
func sampleGaps(cps []*model.Checkpoint, latest []idAt, cluster, jobID string) []model.Gap {
	type known struct {
		id, ms int64
	}
	var ks []known
	recorded := map[int64]bool{}
	for _, cp := range cps {
		ks = append(ks, known{cp.ID, cp.TriggerMs})
		recorded[cp.ID] = true
	}
	for _, l := range latest {
		ks = append(ks, known{l.id, l.ms})
	}
	if len(ks) == 0 {
		return nil
	}
	// By id, earliest evidence first, so DetectedMs is when each id was first known.
	sort.Slice(ks, func(i, j int) bool {
		if ks[i].id != ks[j].id {
			return ks[i].id < ks[j].id
		}
		return ks[i].ms < ks[j].ms
	})
	var gaps []model.Gap
	next := ks[0].id // lowest id not yet accounted for
	for i, k := range ks {
		if i > 0 && k.id == ks[i-1].id {
			continue
		}
		to := k.id - 1
		if !recorded[k.id] {
			// Known only from the time series: completed, but its details are not in the file.
			to = k.id
		}
		if to >= next {
			gaps = append(gaps, model.Gap{
				Cluster: cluster, JobID: jobID, FromID: next, ToID: to, DetectedMs: k.ms,
				Reason: "not recorded by the sample artifact, which holds only some of the job's checkpoints; status unknown",
			})
		}
		next = k.id + 1
	}
	return gaps
}

func sampleNote(f *sampleFile, c *converted, firstMs int64, firstFailed, lastFailed float64) string {
	var b strings.Builder
	if f.Artifact != "" {
		b.WriteString(f.Artifact)
		b.WriteString(". ")
	}
	fmt.Fprintf(&b, "Converted from a Flink checkpoint metrics artifact holding %d of the job's checkpoints", len(c.checkpoints))
	if n := len(c.checkpoints); n > 0 {
		fmt.Fprintf(&b, " (ids %d to %d)", c.checkpoints[0].ID, c.checkpoints[n-1].ID)
	}
	b.WriteString("; the ids between them are marked as gaps with unknown status.")
	switch {
	case firstFailed < 0:
	case lastFailed > firstFailed:
		fmt.Fprintf(&b, " The job's failed-checkpoint counter rose from %g to %g while it was recorded; which checkpoints failed is not in the file.", firstFailed, lastFailed)
	case firstFailed > 0:
		fmt.Fprintf(&b, " The job's failed-checkpoint counter was %g from the first poll (%s) to the last: %g checkpoint(s) failed before the first poll and none between the first and the last poll; which is not in the file.",
			firstFailed, time.UnixMilli(firstMs).UTC().Format(time.RFC3339), firstFailed)
	default:
		b.WriteString(" The job's failed-checkpoint counter stayed at 0.")
	}
	if c.partialBP != "" {
		fmt.Fprintf(&b, " Backpressure was recorded only as %s, a part of %s: the total is not in the file.", c.partialBP, model.MetricBackPressuredMsPerSec)
	}
	return b.String()
}
