package prometheus

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"

	"checkpoint-explorer/backend/model"
)

// Model metric names this package emits besides the model's well-known
// backPressuredTimeMsPerSecond, busyTimeMsPerSecond and idleTimeMsPerSecond. Task metrics are
// per vertex (Agg max or avg over subtasks); job metrics have no vertex and AggNone.
const (
	// MetricIsBackPressured is 0 or 1 per subtask: max says whether any subtask was
	// backpressured, avg the share of subtasks that were.
	MetricIsBackPressured = "isBackPressured"
	// MetricAlignmentTime is the last checkpoint alignment, in milliseconds (the reporter gives
	// nanoseconds). The name and unit are capture.MetricCheckpointAlignmentTime's.
	MetricAlignmentTime = "checkpointAlignmentTime"
	// MetricStartDelayMs is the last checkpoint start delay (trigger → barrier reached the task),
	// in milliseconds, from checkpointStartDelayNanos.
	MetricStartDelayMs = "checkpointStartDelayMs"
	// MetricInPoolUsage and MetricOutPoolUsage are the input and output network buffer pool
	// usage, 0..1 (Flink 2.x Shuffle_Netty_*, or 1.x buffers_* names).
	MetricInPoolUsage  = "inPoolUsage"
	MetricOutPoolUsage = "outPoolUsage"

	// Job-level checkpoint gauges of the JobManager, named as Flink names them.
	MetricLastCheckpointDuration        = "lastCheckpointDuration" // ms
	MetricLastCheckpointSize            = "lastCheckpointSize"     // bytes
	MetricLastCheckpointFullSize        = "lastCheckpointFullSize" // bytes
	MetricLastCheckpointProcessedData   = "lastCheckpointProcessedData"
	MetricLastCheckpointPersistedData   = "lastCheckpointPersistedData"
	MetricLastCompletedCheckpointID     = "lastCompletedCheckpointId"
	MetricNumberOfInProgressCheckpoints = "numberOfInProgressCheckpoints"
	MetricNumberOfCompletedCheckpoints  = "numberOfCompletedCheckpoints"
	MetricNumberOfFailedCheckpoints     = "numberOfFailedCheckpoints"
	MetricTotalNumberOfCheckpoints      = "totalNumberOfCheckpoints"
)

// Disabled as a metric name in MetricNames means "do not query this series" (an empty name
// means "use the default").
const Disabled = "-"

// MetricNames are the Prometheus metric and label names to query, for setups whose relabelling
// renamed what Flink's reporter exports. An empty field takes its DefaultNames value; a metric
// set to Disabled is not queried.
type MetricNames struct {
	// JobLabel holds the Flink JobID, TaskLabel the JobVertexID (the join key with REST),
	// SubtaskLabel the subtask index.
	JobLabel     string `json:"job_label,omitempty"`
	TaskLabel    string `json:"task_label,omitempty"`
	SubtaskLabel string `json:"subtask_label,omitempty"`

	// Task scope.
	BackPressured   string `json:"back_pressured,omitempty"`
	Busy            string `json:"busy,omitempty"`
	Idle            string `json:"idle,omitempty"`
	IsBackPressured string `json:"is_back_pressured,omitempty"`
	// AlignmentTime and StartDelay are in nanoseconds, as Flink reports them.
	AlignmentTime string `json:"alignment_time,omitempty"`
	StartDelay    string `json:"start_delay,omitempty"`
	// InPoolUsage and OutPoolUsage are Flink 2.x names; the Legacy ones are 1.x names,
	// queried as well so one configuration serves both.
	InPoolUsage        string `json:"in_pool_usage,omitempty"`
	OutPoolUsage       string `json:"out_pool_usage,omitempty"`
	LegacyInPoolUsage  string `json:"legacy_in_pool_usage,omitempty"`
	LegacyOutPoolUsage string `json:"legacy_out_pool_usage,omitempty"`

	// Job scope (JobManager).
	LastCheckpointDuration        string `json:"last_checkpoint_duration,omitempty"`
	LastCheckpointSize            string `json:"last_checkpoint_size,omitempty"`
	LastCheckpointFullSize        string `json:"last_checkpoint_full_size,omitempty"`
	LastCheckpointProcessedData   string `json:"last_checkpoint_processed_data,omitempty"`
	LastCheckpointPersistedData   string `json:"last_checkpoint_persisted_data,omitempty"`
	LastCompletedCheckpointID     string `json:"last_completed_checkpoint_id,omitempty"`
	NumberOfInProgressCheckpoints string `json:"number_of_in_progress_checkpoints,omitempty"`
	NumberOfCompletedCheckpoints  string `json:"number_of_completed_checkpoints,omitempty"`
	NumberOfFailedCheckpoints     string `json:"number_of_failed_checkpoints,omitempty"`
	TotalNumberOfCheckpoints      string `json:"total_number_of_checkpoints,omitempty"`
}

// DefaultNames are the names Flink's Prometheus reporter exports (PrometheusReporterFactory,
// default scope formats).
func DefaultNames() MetricNames {
	const task = "flink_taskmanager_job_task_"
	const job = "flink_jobmanager_job_"
	return MetricNames{
		JobLabel:     "job_id",
		TaskLabel:    "task_id",
		SubtaskLabel: "subtask_index",

		BackPressured:      task + "backPressuredTimeMsPerSecond",
		Busy:               task + "busyTimeMsPerSecond",
		Idle:               task + "idleTimeMsPerSecond",
		IsBackPressured:    task + "isBackPressured",
		AlignmentTime:      task + "checkpointAlignmentTime",
		StartDelay:         task + "checkpointStartDelayNanos",
		InPoolUsage:        task + "Shuffle_Netty_Input_Buffers_inPoolUsage",
		OutPoolUsage:       task + "Shuffle_Netty_Output_Buffers_outPoolUsage",
		LegacyInPoolUsage:  task + "buffers_inPoolUsage",
		LegacyOutPoolUsage: task + "buffers_outPoolUsage",

		LastCheckpointDuration:        job + "lastCheckpointDuration",
		LastCheckpointSize:            job + "lastCheckpointSize",
		LastCheckpointFullSize:        job + "lastCheckpointFullSize",
		LastCheckpointProcessedData:   job + "lastCheckpointProcessedData",
		LastCheckpointPersistedData:   job + "lastCheckpointPersistedData",
		LastCompletedCheckpointID:     job + "lastCompletedCheckpointId",
		NumberOfInProgressCheckpoints: job + "numberOfInProgressCheckpoints",
		NumberOfCompletedCheckpoints:  job + "numberOfCompletedCheckpoints",
		NumberOfFailedCheckpoints:     job + "numberOfFailedCheckpoints",
		TotalNumberOfCheckpoints:      job + "totalNumberOfCheckpoints",
	}
}

// Series selects groups of series to fetch.
type Series uint8

const (
	// SeriesBackpressure: backPressuredTimeMsPerSecond, busyTimeMsPerSecond,
	// idleTimeMsPerSecond and isBackPressured per vertex.
	SeriesBackpressure Series = 1 << iota
	// SeriesCheckpoint: checkpointAlignmentTime and checkpointStartDelayMs (ms) per vertex.
	SeriesCheckpoint
	// SeriesBuffers: inPoolUsage and outPoolUsage per vertex.
	SeriesBuffers
	// SeriesJob: the JobManager's job-level checkpoint gauges.
	SeriesJob

	SeriesAll = SeriesBackpressure | SeriesCheckpoint | SeriesBuffers | SeriesJob
)

type scope uint8

const (
	scopeTask scope = iota
	scopeJob
)

// series maps one model metric to the Prometheus names it is read from.
type series struct {
	group  Series
	metric string
	// prom holds the Prometheus names, queried together (Flink 2.x and 1.x never coexist).
	prom  []string
	scope scope
	// scale converts the Prometheus value to the model's unit.
	scale float64
}

const nsToMs = 1e-6

// series returns what n says to read, in a fixed order, skipping disabled names.
func (n MetricNames) series() []series {
	all := []series{
		{SeriesBackpressure, model.MetricBackPressuredMsPerSec, []string{n.BackPressured}, scopeTask, 1},
		{SeriesBackpressure, model.MetricBusyMsPerSec, []string{n.Busy}, scopeTask, 1},
		{SeriesBackpressure, model.MetricIdleMsPerSec, []string{n.Idle}, scopeTask, 1},
		{SeriesBackpressure, MetricIsBackPressured, []string{n.IsBackPressured}, scopeTask, 1},
		{SeriesCheckpoint, MetricAlignmentTime, []string{n.AlignmentTime}, scopeTask, nsToMs},
		{SeriesCheckpoint, MetricStartDelayMs, []string{n.StartDelay}, scopeTask, nsToMs},
		{SeriesBuffers, MetricInPoolUsage, []string{n.InPoolUsage, n.LegacyInPoolUsage}, scopeTask, 1},
		{SeriesBuffers, MetricOutPoolUsage, []string{n.OutPoolUsage, n.LegacyOutPoolUsage}, scopeTask, 1},
		{SeriesJob, MetricLastCheckpointDuration, []string{n.LastCheckpointDuration}, scopeJob, 1},
		{SeriesJob, MetricLastCheckpointSize, []string{n.LastCheckpointSize}, scopeJob, 1},
		{SeriesJob, MetricLastCheckpointFullSize, []string{n.LastCheckpointFullSize}, scopeJob, 1},
		{SeriesJob, MetricLastCheckpointProcessedData, []string{n.LastCheckpointProcessedData}, scopeJob, 1},
		{SeriesJob, MetricLastCheckpointPersistedData, []string{n.LastCheckpointPersistedData}, scopeJob, 1},
		{SeriesJob, MetricLastCompletedCheckpointID, []string{n.LastCompletedCheckpointID}, scopeJob, 1},
		{SeriesJob, MetricNumberOfInProgressCheckpoints, []string{n.NumberOfInProgressCheckpoints}, scopeJob, 1},
		{SeriesJob, MetricNumberOfCompletedCheckpoints, []string{n.NumberOfCompletedCheckpoints}, scopeJob, 1},
		{SeriesJob, MetricNumberOfFailedCheckpoints, []string{n.NumberOfFailedCheckpoints}, scopeJob, 1},
		{SeriesJob, MetricTotalNumberOfCheckpoints, []string{n.TotalNumberOfCheckpoints}, scopeJob, 1},
	}
	out := all[:0]
	for _, s := range all {
		names := s.prom[:0:0]
		for _, p := range s.prom {
			if p != Disabled && p != "" {
				names = append(names, p)
			}
		}
		if len(names) > 0 {
			s.prom = names
			out = append(out, s)
		}
	}
	return out
}

// withDefaults fills empty fields from DefaultNames.
func (n MetricNames) withDefaults() MetricNames {
	d := DefaultNames()
	for _, f := range n.fields(&d) {
		if *f.v == "" {
			*f.v = *f.def
		}
	}
	return n
}

var (
	metricNameRE = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	labelNameRE  = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
)

// Validate reports the first name that is not a valid Prometheus metric or label name. Names
// are pasted into PromQL, so this is also what keeps queries well-formed.
func (n MetricNames) Validate() error {
	n = n.withDefaults()
	d := DefaultNames()
	for _, f := range n.fields(&d) {
		v := *f.v
		switch {
		case f.label && !labelNameRE.MatchString(v):
			return fmt.Errorf("prometheus: names: %s %q is not a valid label name", f.name, v)
		case !f.label && v != Disabled && !metricNameRE.MatchString(v):
			return fmt.Errorf("prometheus: names: %s %q is not a valid metric name (or %q to disable it)", f.name, v, Disabled)
		}
	}
	return nil
}

type nameField struct {
	name   string
	label  bool
	v, def *string
}

// fields lists n's fields beside d's, so defaults and validation cannot miss one.
func (n *MetricNames) fields(d *MetricNames) []nameField {
	return []nameField{
		{"job_label", true, &n.JobLabel, &d.JobLabel},
		{"task_label", true, &n.TaskLabel, &d.TaskLabel},
		{"subtask_label", true, &n.SubtaskLabel, &d.SubtaskLabel},
		{"back_pressured", false, &n.BackPressured, &d.BackPressured},
		{"busy", false, &n.Busy, &d.Busy},
		{"idle", false, &n.Idle, &d.Idle},
		{"is_back_pressured", false, &n.IsBackPressured, &d.IsBackPressured},
		{"alignment_time", false, &n.AlignmentTime, &d.AlignmentTime},
		{"start_delay", false, &n.StartDelay, &d.StartDelay},
		{"in_pool_usage", false, &n.InPoolUsage, &d.InPoolUsage},
		{"out_pool_usage", false, &n.OutPoolUsage, &d.OutPoolUsage},
		{"legacy_in_pool_usage", false, &n.LegacyInPoolUsage, &d.LegacyInPoolUsage},
		{"legacy_out_pool_usage", false, &n.LegacyOutPoolUsage, &d.LegacyOutPoolUsage},
		{"last_checkpoint_duration", false, &n.LastCheckpointDuration, &d.LastCheckpointDuration},
		{"last_checkpoint_size", false, &n.LastCheckpointSize, &d.LastCheckpointSize},
		{"last_checkpoint_full_size", false, &n.LastCheckpointFullSize, &d.LastCheckpointFullSize},
		{"last_checkpoint_processed_data", false, &n.LastCheckpointProcessedData, &d.LastCheckpointProcessedData},
		{"last_checkpoint_persisted_data", false, &n.LastCheckpointPersistedData, &d.LastCheckpointPersistedData},
		{"last_completed_checkpoint_id", false, &n.LastCompletedCheckpointID, &d.LastCompletedCheckpointID},
		{"number_of_in_progress_checkpoints", false, &n.NumberOfInProgressCheckpoints, &d.NumberOfInProgressCheckpoints},
		{"number_of_completed_checkpoints", false, &n.NumberOfCompletedCheckpoints, &d.NumberOfCompletedCheckpoints},
		{"number_of_failed_checkpoints", false, &n.NumberOfFailedCheckpoints, &d.NumberOfFailedCheckpoints},
		{"total_number_of_checkpoints", false, &n.TotalNumberOfCheckpoints, &d.TotalNumberOfCheckpoints},
	}
}

// jobIDRE bounds what is pasted into a PromQL string literal and a label matcher.
var jobIDRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,128}$`)

func checkJobID(id string) error {
	if !jobIDRE.MatchString(id) {
		return fmt.Errorf("prometheus: bad job id %q (want a Flink JobID such as 0123456789abcdef0123456789abcdef)", id)
	}
	return nil
}

// ParseNames reads a cluster's overrides (model.Cluster.PrometheusNames: the
// JSON keys of MetricNames) into MetricNames, naming an unknown key or an
// invalid name.
func ParseNames(over map[string]string) (MetricNames, error) {
	var n MetricNames
	if len(over) == 0 {
		return n, nil
	}
	b, _ := json.Marshal(over)
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&n); err != nil {
		return n, fmt.Errorf("Prometheus names: %v (keys are listed in docs/prometheus.md)", err)
	}
	if err := n.Validate(); err != nil {
		return n, fmt.Errorf("Prometheus names: %w", err)
	}
	return n, nil
}
