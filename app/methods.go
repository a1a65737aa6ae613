package app

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sort"
	"time"

	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/collect"
	"checkpoint-explorer/backend/fleet"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/restclient"
	"checkpoint-explorer/backend/store"
)

// VersionInfo says which build is running.
type VersionInfo struct {
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	GoVersion string `json:"go_version"`
}

// Version returns the build's version.
func (a *App) Version() VersionInfo {
	return VersionInfo{Version: BuildVersion, Commit: BuildCommit, GoVersion: runtime.Version()}
}

// SourceView is a cluster, an opened capture or the sample, without secrets.
type SourceView struct {
	Name               string         `json:"name"`
	Engine             model.Engine   `json:"engine"`
	BaseURL            string         `json:"base_url"`
	PrometheusURL      string         `json:"prometheus_url"`
	AuthKind           model.AuthKind `json:"auth_kind"`
	Username           string         `json:"username,omitempty"`
	CAFile             string         `json:"ca_file"`
	InsecureSkipVerify bool           `json:"insecure_skip_verify"`
	clusterSettings
	Kind     SourceKind `json:"kind"`
	ReadOnly bool       `json:"read_only"`
	// Health is the collector's account of a configured cluster (its problems
	// and missed ids included); captures are "offline".
	Health collect.Health `json:"health"`
}

// ListClusters lists configured clusters and read-only sources (captures, sample).
func (a *App) ListClusters() ([]SourceView, error) {
	ctx, cancel := a.callCtx()
	defer cancel()
	stored, err := a.store.Clusters(ctx)
	if err != nil {
		return nil, err
	}
	a.mu.Lock()
	configured := append([]model.Cluster(nil), a.clusters...)
	a.mu.Unlock()
	seen := map[string]bool{}
	var out []SourceView
	for _, c := range configured {
		seen[c.Name] = true
		out = append(out, a.sourceView(c, true))
	}
	for _, c := range stored {
		if seen[c.Name] || !c.ReadOnly {
			continue
		}
		out = append(out, a.sourceView(c, false))
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Kind != out[j].Kind {
			return kindOrder(out[i].Kind) < kindOrder(out[j].Kind)
		}
		return out[i].Name < out[j].Name
	})
	return out, nil
}

func kindOrder(k SourceKind) int {
	switch k {
	case SourceCluster:
		return 0
	case SourceCapture:
		return 1
	}
	return 2
}

func (a *App) sourceView(c model.Cluster, configured bool) SourceView {
	kind := c.Auth.Kind
	if kind == "" {
		kind = model.AuthNone
	}
	v := SourceView{
		Name: c.Name, Engine: c.Engine, BaseURL: c.BaseURL, PrometheusURL: c.PrometheusURL,
		AuthKind: kind, CAFile: c.CAFile, InsecureSkipVerify: c.InsecureSkipVerify,
		clusterSettings: settingsOf(c), Kind: sourceKind(c, configured), ReadOnly: !configured,
	}
	if c.Auth.Kind == model.AuthBasic {
		v.Username = c.Auth.Username
	}
	if configured {
		v.Health = a.clusterHealth(c.Name)
	} else {
		v.Health = collect.Health{State: collect.HealthOffline}
	}
	return v
}

// ClusterInput is a cluster as the user types it in the form.
type ClusterInput struct {
	Name               string       `json:"name"`
	Engine             model.Engine `json:"engine"`
	BaseURL            string       `json:"base_url"`
	PrometheusURL      string       `json:"prometheus_url"`
	Auth               model.Auth   `json:"auth"`
	CAFile             string       `json:"ca_file"`
	InsecureSkipVerify bool         `json:"insecure_skip_verify"`
	clusterSettings
}

// clusterSettings are the settings of a cluster beyond its addresses, auth
// and TLS, as the form sends them and the list shows them: model.Cluster's
// fields of the same names.
type clusterSettings struct {
	// PrometheusNames and ReporterURLs: see model.Cluster.
	PrometheusNames map[string]string `json:"prometheus_names,omitempty"`
	ReporterURLs    []string          `json:"reporter_urls,omitempty"`
	// RequestsPerSecond and MaxInFlight: the request budget (0: the default).
	RequestsPerSecond float64 `json:"requests_per_second,omitempty"`
	MaxInFlight       int     `json:"max_in_flight,omitempty"`
	// JobManagerLog: auto (""), on or off (Flink only).
	JobManagerLog model.JobManagerLogMode `json:"jobmanager_log,omitempty"`
	// TracesURL and TracesService: a Jaeger query URL and the service name of
	// Flink's spans there (Flink only; model.Cluster).
	TracesURL     string `json:"traces_url,omitempty"`
	TracesService string `json:"traces_service,omitempty"`
	// Lanes: the custom lanes of the cluster's job timelines (model.Lane).
	Lanes []model.Lane `json:"lanes,omitempty"`
}

// settingsOf are c's settings.
func settingsOf(c model.Cluster) clusterSettings {
	return clusterSettings{
		PrometheusNames: c.PrometheusNames, ReporterURLs: c.ReporterURLs,
		RequestsPerSecond: c.RequestsPerSecond, MaxInFlight: c.MaxInFlight, JobManagerLog: c.JobManagerLog,
		TracesURL: c.TracesURL, TracesService: c.TracesService, Lanes: c.Lanes,
	}
}

// applyTo sets c's settings to s.
func (s clusterSettings) applyTo(c *model.Cluster) {
	c.PrometheusNames, c.ReporterURLs = s.PrometheusNames, s.ReporterURLs
	c.RequestsPerSecond, c.MaxInFlight, c.JobManagerLog = s.RequestsPerSecond, s.MaxInFlight, s.JobManagerLog
	c.TracesURL, c.TracesService, c.Lanes = s.TracesURL, s.TracesService, s.Lanes
}

func (in ClusterInput) cluster() model.Cluster {
	c := model.Cluster{
		Name: in.Name, Engine: in.Engine, BaseURL: in.BaseURL, PrometheusURL: in.PrometheusURL,
		Auth: in.Auth, CAFile: in.CAFile, InsecureSkipVerify: in.InsecureSkipVerify,
	}
	in.applyTo(&c)
	if c.JobManagerLog == model.JobManagerLogAuto {
		c.JobManagerLog = "" // the default, not stored
	}
	if c.Auth.Kind == "" {
		c.Auth.Kind = model.AuthNone
	}
	// Keep only the secret that goes with the chosen kind.
	switch c.Auth.Kind {
	case model.AuthBasic:
		c.Auth.Token = ""
	case model.AuthBearer:
		c.Auth.Username, c.Auth.Password = "", ""
	default:
		c.Auth = model.Auth{Kind: model.AuthNone}
	}
	return c
}

// SaveCluster adds a cluster or replaces the one of the same name. Empty
// secrets keep the stored ones, so the form never has to show them.
func (a *App) SaveCluster(in ClusterInput) error {
	c := in.cluster()
	a.mu.Lock()
	for _, old := range a.clusters {
		if old.Name != c.Name {
			continue
		}
		if old.Auth.Kind == c.Auth.Kind {
			if c.Auth.Password == "" {
				c.Auth.Password = old.Auth.Password
			}
			if c.Auth.Token == "" {
				c.Auth.Token = old.Auth.Token
			}
		}
		// Absent (nil) keeps them — a caller that does not know them, like
		// `clusters add` without the flags; empty clears them (the form sends both).
		if in.PrometheusNames == nil {
			c.PrometheusNames = old.PrometheusNames
		}
		if in.ReporterURLs == nil {
			c.ReporterURLs = old.ReporterURLs
		}
	}
	a.mu.Unlock()
	if err := validateCluster(c); err != nil {
		return badRequest("%v", err)
	}
	ctx, cancel := a.callCtx()
	defer cancel()
	if s, ok, err := a.storedCluster(ctx, c.Name); err == nil && ok && s.ReadOnly {
		return badRequest("the name %q is taken by an opened capture", c.Name)
	}
	a.mu.Lock()
	replaced := false
	for i := range a.clusters {
		if a.clusters[i].Name == c.Name {
			a.clusters[i] = c
			replaced = true
		}
	}
	if !replaced {
		a.clusters = append(a.clusters, c)
	}
	err := a.saveConfigLocked()
	a.mu.Unlock()
	if err != nil {
		return err
	}
	if err := a.store.PutCluster(ctx, c.Public()); err != nil {
		return err
	}
	a.log.Info("cluster saved", "cluster", c.Name, "engine", c.Engine, "url", restclient.RedactURL(c.BaseURL), "auth", c.Auth.String())
	a.applyCollector()
	a.emit(SourcesEvent{})
	return nil
}

// RemoveCluster forgets a cluster (or an opened capture) and its cached data.
func (a *App) RemoveCluster(name string) error {
	ctx, cancel := a.callCtx()
	defer cancel()
	a.mu.Lock()
	found := false
	kept := a.clusters[:0]
	for _, c := range a.clusters {
		if c.Name == name {
			found = true
			continue
		}
		kept = append(kept, c)
	}
	a.clusters = kept
	var err error
	if found {
		err = a.saveConfigLocked()
	}
	a.mu.Unlock()
	if err != nil {
		return err
	}
	if !found {
		if _, found, err = a.storedCluster(ctx, name); err != nil {
			return err
		}
	}
	if !found {
		return badRequest("no cluster or capture named %q", name)
	}
	if err := a.store.DeleteCluster(ctx, name); err != nil {
		return err
	}
	a.applyCollector()
	a.emit(SourcesEvent{})
	return nil
}

// JobView is a job with counts of what the cache holds for it.
type JobView = store.JobSummary

// ListJobs lists the cached jobs of a source ("" = all sources).
func (a *App) ListJobs(cluster string) ([]JobView, error) {
	ctx, cancel := a.callCtx()
	defer cancel()
	jobs, err := a.store.Jobs(ctx, cluster)
	for i := range jobs {
		if j := &jobs[i]; analyze.EndsPendingOnCompletion(j.Engine) {
			j.EndedUnseen = j.InProgressBeforeCompleted
			j.InProgress -= j.EndedUnseen
		}
	}
	return jobs, err
}

// JobRuns lists the runs of a job's logical job, oldest first, the job among
// them: the runs of its name on its cluster that the fleet shows as one row
// (docs/fleet.md, "Jobs across restarts"). A job without other runs has one.
func (a *App) JobRuns(cluster, job string) ([]analyze.FleetRun, error) {
	ctx, cancel := a.callCtx()
	defer cancel()
	runs, err := fleet.Runs(ctx, a.store, cluster, job)
	if err == nil && runs == nil {
		err = unknownJob(cluster, job)
	}
	return runs, err
}

// unknownJob is the answer about a job id the cache does not hold.
func unknownJob(cluster, job string) error {
	return badRequest("the cache holds no job %s on %q: `jobs` lists the known ones", job, cluster)
}

// FleetRequest selects the fleet view: the last WindowMs (an hour when 0),
// one cluster or capture (Cluster; "": all).
type FleetRequest struct {
	WindowMs int64  `json:"window_ms"`
	Cluster  string `json:"cluster"`
}

// Fleet ranks every job of the clusters and opened captures by checkpoint
// health over the window (docs/fleet.md).
func (a *App) Fleet(req FleetRequest) (analyze.Fleet, error) {
	ctx, cancel := a.callCtx()
	defer cancel()
	configured := func(name string) bool { _, ok := a.configuredCluster(name); return ok }
	return a.fleet.Read(ctx, configured, req.Cluster, req.WindowMs, time.Now().UnixMilli())
}

// SplitRun says whether a run of a job follows the earlier runs of its name
// (docs/fleet.md, "Jobs across restarts"): split, it starts a logical job of
// its own in the fleet, `status` and the job's changes; not split, it is
// matched again by name and time.
func (a *App) SplitRun(cluster, job string, split bool) error {
	ctx, cancel := a.callCtx()
	defer cancel()
	if err := a.store.SplitRun(ctx, cluster, job, split); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return unknownJob(cluster, job)
		}
		return err
	}
	a.log.Info("run split from the earlier runs of its name", "cluster", cluster, "job", job, "split", split)
	a.emit(SourcesEvent{})
	return nil
}

// CheckpointRow is one line of the checkpoint table.
type CheckpointRow struct {
	ID               int64                `json:"id"`
	Pipeline         int                  `json:"pipeline"`
	Kind             model.CheckpointKind `json:"kind"`
	Status           model.Status         `json:"status"`
	TriggerMs        int64                `json:"trigger_ms"`
	EndMs            int64                `json:"end_ms"`
	EndToEndMs       int64                `json:"end_to_end_ms"`
	StateSize        int64                `json:"state_size"`
	CheckpointedSize int64                `json:"checkpointed_size"`
	StateBlobs       *int64               `json:"state_blobs,omitempty"`
	NumSubtasks      int                  `json:"num_subtasks"`
	NumAcknowledged  int                  `json:"num_acknowledged"`
	FailureMessage   string               `json:"failure_message"`
	// FailureCause, Declined and Source: what the JobManager log adds (model.Checkpoint).
	FailureCause string                 `json:"failure_cause,omitempty"`
	Declined     *model.Decline         `json:"declined,omitempty"`
	Source       model.CheckpointSource `json:"source,omitempty"`
	// EndedUnseen: stored in progress, it has ended unseen
	// (analyze.CheckpointAnalysis.EndedUnseen).
	EndedUnseen bool `json:"ended_unseen,omitempty"`
}

// Checkpoints lists a job's cached checkpoints triggered in [fromMs, toMs] (0 = unbounded).
func (a *App) Checkpoints(cluster, job string, fromMs, toMs int64) ([]CheckpointRow, error) {
	if cluster == "" || job == "" {
		return nil, badRequest("cluster and job are required")
	}
	ctx, cancel := a.callCtx()
	defer cancel()
	cps, err := a.store.Checkpoints(ctx, store.Query{Cluster: cluster, JobID: job, FromMs: fromMs, ToMs: toMs})
	if err != nil {
		return nil, err
	}
	rows := make([]CheckpointRow, 0, len(cps))
	for i := range cps {
		c := &cps[i]
		rows = append(rows, CheckpointRow{
			ID: c.ID, Pipeline: c.Pipeline, Kind: c.Kind, Status: c.Status, TriggerMs: c.TriggerMs,
			EndMs: c.EndMs(), EndToEndMs: c.EndToEndMs, StateSize: c.StateSize, CheckpointedSize: c.CheckpointedSize,
			StateBlobs: c.StateBlobs, NumSubtasks: c.NumSubtasks, NumAcknowledged: c.NumAcknowledged,
			FailureMessage: c.FailureMessage, FailureCause: c.FailureCause, Declined: c.Declined, Source: c.Source,
		})
	}
	if err := a.markEndedUnseen(ctx, cluster, job, rows); err != nil {
		return nil, err
	}
	return rows, nil
}

// markEndedUnseen marks the rows stored in progress that have ended unseen:
// a later checkpoint of their pipeline completed, in the range or not.
func (a *App) markEndedUnseen(ctx context.Context, cluster, job string, rows []CheckpointRow) error {
	newest := map[int]int64{} // per pipeline with a row in progress; -1: none completed
	for _, r := range rows {
		if r.Status == model.StatusInProgress {
			newest[r.Pipeline] = -1
		}
	}
	if len(newest) == 0 {
		return nil
	}
	c, ok := a.laneSource(ctx, cluster)
	if !ok || !analyze.EndsPendingOnCompletion(c.Engine) {
		return nil
	}
	for p := range newest {
		id, found, err := a.store.NewestCompletedID(ctx, cluster, job, p)
		if err != nil {
			return err
		}
		if found {
			newest[p] = id
		}
	}
	for i := range rows {
		r := &rows[i]
		r.EndedUnseen = analyze.EndedUnseen(c.Engine, r.Status, r.Kind, r.ID, newest[r.Pipeline])
	}
	return nil
}

// TimelineRequest asks for a job's timeline over a range at a pixel width.
type TimelineRequest struct {
	Cluster string `json:"cluster"`
	Job     string `json:"job"`
	FromMs  int64  `json:"from_ms"`
	ToMs    int64  `json:"to_ms"`
	WidthPx int    `json:"width_px"`
}

// Timeline returns the job's checkpoints merged to the level of detail the
// width allows, with gaps and the backpressure and size lanes.
func (a *App) Timeline(req TimelineRequest) (analyze.Timeline, error) {
	if req.Cluster == "" || req.Job == "" {
		return analyze.Timeline{}, badRequest("cluster and job are required")
	}
	if req.WidthPx <= 0 || req.WidthPx > 20000 {
		return analyze.Timeline{}, badRequest("width_px %d: give the canvas width in pixels (1–20000)", req.WidthPx)
	}
	if req.ToMs != 0 && req.FromMs > req.ToMs {
		return analyze.Timeline{}, badRequest("from_ms %d is after to_ms %d", req.FromMs, req.ToMs)
	}
	ctx, cancel := a.callCtx()
	defer cancel()
	q := store.Query{Cluster: req.Cluster, JobID: req.Job}
	// Every lane draws the largest value per pixel column, so the maxima
	// across the job's series are all it needs; they are read beside the
	// spans, on another connection.
	mq := q
	mq.FromMs, mq.ToMs, mq.Metric = req.FromMs, req.ToMs, analyze.IsTimelineMetric
	type samplesRead struct {
		ms  []model.MetricSample
		err error
	}
	samples := make(chan samplesRead, 1)
	go func() {
		ms, err := a.store.MetricMaxima(ctx, mq)
		samples <- samplesRead{ms, err}
	}()
	// The whole job: the extent and merged bars need every checkpoint's span.
	cps, err := a.store.CheckpointSpans(ctx, q)
	var gaps []model.Gap
	if err == nil {
		gaps, err = a.store.Gaps(ctx, q)
	}
	sr := <-samples
	if err != nil {
		return analyze.Timeline{}, err
	}
	if sr.err != nil {
		return analyze.Timeline{}, sr.err
	}
	ms := sr.ms
	var lanes []string
	var engine model.Engine
	if c, ok := a.laneSource(ctx, req.Cluster); ok {
		for _, l := range c.Lanes {
			lanes = append(lanes, l.Name)
		}
		engine = c.Engine
	}
	return analyze.BuildTimeline(cps, gaps, ms, lanes, req.FromMs, req.ToMs, req.WidthPx, engine), nil
}

// laneSource is the cluster (configured, or an opened capture's record)
// whose custom lanes order a timeline's; a failed read is none.
func (a *App) laneSource(ctx context.Context, name string) (model.Cluster, bool) {
	c, ok, err := a.source(ctx, name)
	return c, ok && err == nil
}

// namedSource is the cluster named, configured or an opened capture's record;
// a bad request when there is none.
func (a *App) namedSource(ctx context.Context, name string) (model.Cluster, error) {
	c, ok, err := a.source(ctx, name)
	if err == nil && !ok {
		err = badRequest("no cluster or capture named %q", name)
	}
	return c, err
}

// source is the cluster named: the configured one, else the cache's record
// of it (an opened capture's; found false: neither).
func (a *App) source(ctx context.Context, name string) (c model.Cluster, found bool, err error) {
	if c, ok := a.configuredCluster(name); ok {
		return c, true, nil
	}
	return a.storedCluster(ctx, name)
}

// storedCluster is the cache's record of the cluster or capture named (found
// false: none).
func (a *App) storedCluster(ctx context.Context, name string) (c model.Cluster, found bool, err error) {
	stored, err := a.store.Clusters(ctx)
	if err != nil {
		return model.Cluster{}, false, err
	}
	for _, c := range stored {
		if c.Name == name {
			return c, true, nil
		}
	}
	return model.Cluster{}, false, nil
}

// CheckpointDetail is one checkpoint with all its stats and the names of its vertices.
type CheckpointDetail struct {
	model.Checkpoint
	VertexNames map[string]string `json:"vertex_names"`
}

// Checkpoint returns one checkpoint with all its per-vertex and per-subtask stats.
func (a *App) Checkpoint(cluster, job string, pipeline int, id int64) (CheckpointDetail, error) {
	ctx, cancel := a.callCtx()
	defer cancel()
	c, err := a.checkpointFull(ctx, cluster, job, pipeline, id)
	if err != nil {
		return CheckpointDetail{}, err
	}
	d := CheckpointDetail{Checkpoint: c, VertexNames: map[string]string{}}
	if j, err := a.store.Job(ctx, cluster, job); err == nil {
		for _, v := range j.Vertices {
			d.VertexNames[v.ID] = v.Name
		}
	}
	return d, nil
}

// RetentionView is what the cache holds and the limits that bound it.
type RetentionView struct {
	Path      string `json:"path"`
	FileBytes int64  `json:"file_bytes"`
	store.Counts
	Limits      RetentionLimits   `json:"limits"`
	PrunedTotal store.PruneResult `json:"pruned_total"`
}

// Retention reports the cache's size and limits.
func (a *App) Retention() (RetentionView, error) {
	ctx, cancel := a.callCtx()
	defer cancel()
	s, err := a.store.Stats(ctx)
	if err != nil {
		return RetentionView{}, err
	}
	return RetentionView{
		Path: s.Path, FileBytes: s.FileBytes, Counts: s.Counts, Limits: limitsFromStore(s.Limits), PrunedTotal: s.PrunedTotal,
	}, nil
}

// SetRetention changes the limits, saves them and applies them at once.
func (a *App) SetRetention(l RetentionLimits) error {
	if err := l.validate(); err != nil {
		return badRequest("%v", err)
	}
	a.store.SetRetention(l.store())
	a.mu.Lock()
	err := a.saveConfigLocked()
	a.mu.Unlock()
	if err != nil {
		return err
	}
	ctx, cancel := a.callCtx()
	defer cancel()
	if _, err := a.store.ApplyRetention(ctx); err != nil {
		return fmt.Errorf("apply retention: %w", err)
	}
	return nil
}
