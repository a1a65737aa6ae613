package alert

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"slices"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"checkpoint-explorer/backend/model"
)

// Defaults of Options.
const (
	// DefaultMinInterval: at most one notification per rule and job in
	// this time (a flapping job's alerts do not flood the desktop).
	DefaultMinInterval = 5 * time.Minute
	// DefaultNotifyTimeout bounds one notification's D-Bus call.
	DefaultNotifyTimeout = 10 * time.Second
)

// Options configure an Engine; the zero value of each field is its default.
type Options struct {
	// Rules are the user's rules (ValidateRules); none: nothing fires.
	Rules []Rule
	// Notifier shows the alerts; nil is the desktop's (NewDesktop), which
	// where there is none says so once in the log.
	Notifier Notifier
	// Logger gets a line per alert and notification failure; nil is slog.Default().
	Logger *slog.Logger
	// Now is the clock; nil is time.Now.
	Now func() time.Time
	// MinInterval is the rate limit: a rule announces a job's change of
	// state at most once in MinInterval; 0 is DefaultMinInterval.
	MinInterval time.Duration
	// NotifyTimeout bounds each Notify; 0 is DefaultNotifyTimeout.
	NotifyTimeout time.Duration
}

// Engine keeps each rule's state per job and announces its changes. Its
// methods are safe for concurrent use.
type Engine struct {
	notifier      Notifier
	log           *slog.Logger
	now           func() time.Time
	minIntervalMs int64
	notifyTimeout time.Duration
	metrics       metrics

	mu     sync.Mutex
	rules  []Rule // each with its name filled in
	states map[stateKey]*ruleState
	jobs   map[JobRef]*jobMemory

	notifyMu      sync.Mutex // one Notify at a time
	lastNotifyErr string     // the failure logged last, not logged again
}

// stateKey is one rule's state for one job.
type stateKey struct{ rule, cluster, job string }

// ruleState is a rule's state for a job. Announced is what was last
// announced (firing or not); it follows the rule's finding at most once per
// MinInterval, which makes both the deduplication and the rate limit.
type ruleState struct {
	announced bool  // a firing was announced and no resolved since
	lastMs    int64 // when the last announcement was made
	firing    Alert // the announced firing
}

// jobMemory is what the Engine remembers of a job across polls.
type jobMemory struct {
	seenMs      int64 // first evaluated
	completedMs int64 // the newest completion it was given
}

// metrics are the counters /metrics exports (Register).
type metrics struct {
	alerts       *prometheus.CounterVec
	firing       *prometheus.GaugeVec
	notifyErrors prometheus.Counter
}

// New makes an Engine of opts, its defaults filled in; an invalid rule is an error.
func New(opts Options) (*Engine, error) {
	e := &Engine{
		notifier: opts.Notifier, log: cmp.Or(opts.Logger, slog.Default()), now: opts.Now,
		minIntervalMs: cmp.Or(opts.MinInterval, DefaultMinInterval).Milliseconds(),
		notifyTimeout: cmp.Or(opts.NotifyTimeout, DefaultNotifyTimeout),
		states:        map[stateKey]*ruleState{}, jobs: map[JobRef]*jobMemory{},
		metrics: metrics{
			alerts: prometheus.NewCounterVec(prometheus.CounterOpts{
				Name: "checkpoint_explorer_alerts_total", Help: "Alerts announced, by rule, cluster and state (firing, resolved).",
			}, []string{"rule", "cluster", "state"}),
			firing: prometheus.NewGaugeVec(prometheus.GaugeOpts{
				Name: "checkpoint_explorer_alerts_firing", Help: "Alerts firing now (announced, not yet resolved), by rule and cluster.",
			}, []string{"rule", "cluster"}),
			notifyErrors: prometheus.NewCounter(prometheus.CounterOpts{
				Name: "checkpoint_explorer_alert_notification_errors_total", Help: "Alerts whose desktop notification failed (each is still logged).",
			}),
		},
	}
	if e.notifier == nil {
		e.notifier = NewDesktop(DesktopOptions{})
	}
	if e.now == nil {
		e.now = time.Now
	}
	return e, e.SetRules(opts.Rules)
}

// Register adds the Engine's counters to a /metrics registry.
func (e *Engine) Register(r prometheus.Registerer) error {
	for _, c := range []prometheus.Collector{e.metrics.alerts, e.metrics.firing, e.metrics.notifyErrors} {
		if err := r.Register(c); err != nil {
			return fmt.Errorf("alert: metrics: %w", err)
		}
	}
	return nil
}

// SetRules replaces the rules (after ValidateRules). A rule kept as it was
// keeps its state; the alerts of a rule changed or removed are forgotten,
// without a notification.
func (e *Engine) SetRules(rules []Rule) error {
	if err := ValidateRules(rules); err != nil {
		return fmt.Errorf("alert: %w", err)
	}
	named := make([]Rule, len(rules))
	for i, r := range rules {
		r.Name = r.name()
		named[i] = r
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	kept := map[string]bool{}
	for _, r := range named {
		kept[r.Name] = slices.Contains(e.rules, r)
	}
	e.rules = named
	e.dropStates(func(k stateKey) bool { return !kept[k.rule] }, "its rule changed or was removed")
	return nil
}

// Rules are the rules in force, each with its name filled in.
func (e *Engine) Rules() []Rule {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.rules)
}

// Evaluate judges the jobs by the rules after a poll and announces each
// change of a rule's state for a job: a log line, the counters, a
// notification (synchronously, each bounded by NotifyTimeout). It returns the
// alerts announced. Jobs not given keep their state.
func (e *Engine) Evaluate(ctx context.Context, jobs []Job) []Alert {
	now := e.now().UnixMilli()
	var out []Alert
	e.mu.Lock()
	for _, j := range jobs {
		ref := j.Ref()
		if model.JobEnded(j.State) {
			e.dropStates(func(k stateKey) bool { return k.cluster == ref.Cluster && k.job == ref.JobID }, "the job ended ("+j.State+")")
			delete(e.jobs, ref)
			continue
		}
		mem := e.jobs[ref]
		if mem == nil {
			mem = &jobMemory{seenMs: now}
			e.jobs[ref] = mem
		}
		mem.completedMs = max(mem.completedMs, j.LastCompletedMs)
		j.LastCompletedMs = mem.completedMs
		for _, r := range e.rules {
			if !r.applies(j) {
				continue
			}
			if a, ok := e.step(r, j, r.check(j, now, mem.seenMs), now); ok {
				out = append(out, a)
			}
		}
	}
	e.mu.Unlock()
	for _, a := range out {
		e.announce(ctx, a)
	}
	return out
}

// step moves the rule's state for the job by its finding; ok when that
// is a change to announce.
func (e *Engine) step(r Rule, j Job, f finding, now int64) (a Alert, ok bool) {
	k := stateKey{rule: r.Name, cluster: j.Cluster, job: j.JobID}
	s, existed := e.states[k] // a state exists from its first announcement on
	if f.state == unknown || !existed && f.state == clear {
		return Alert{}, false
	}
	if !existed {
		s = &ruleState{}
		e.states[k] = s
	}
	fire := f.state == firing
	held := existed && now-s.lastMs < e.minIntervalMs
	switch {
	case fire == s.announced && !fire && !held:
		delete(e.states, k) // resolved and quiet for MinInterval: nothing left to limit
		return Alert{}, false
	case fire == s.announced || held:
		return Alert{}, false
	}
	a = Alert{Rule: r.Name, Kind: r.Kind, Job: j.Ref(), JobName: j.Name, Engine: j.Engine, AtMs: now}
	where := j.title() + " on " + j.Cluster
	if fire {
		a.State, a.SinceMs = StateFiring, cmp.Or(f.sinceMs, now)
		a.Summary, a.Body = r.Kind.title()+": "+where, f.detail+"\nRule: "+r.Name
		s.firing = a
	} else {
		a.State, a.SinceMs = StateResolved, s.firing.SinceMs
		a.Summary = "Resolved: " + where
		a.Body = fmt.Sprintf("%s It lasted %s.\nRule: %s", f.detail, human(now-a.SinceMs), r.Name)
	}
	s.announced, s.lastMs = fire, now
	return a, true
}

// title is the summary of a firing alert of the kind.
func (k Kind) title() string {
	switch k {
	case KindCheckpointFailed:
		return "Checkpoint failed"
	case KindFailures:
		return "Checkpoints failing"
	case KindSlowerThanBaseline:
		return "Checkpoints slower than usual"
	case KindNoCompletion:
		return "No checkpoint completed"
	}
	return string(k)
}

// dropStates forgets the states whose key matches, without a notification;
// a firing one is logged with why (the caller holds mu).
func (e *Engine) dropStates(match func(stateKey) bool, why string) {
	for k, s := range e.states {
		if !match(k) {
			continue
		}
		if s.announced {
			e.metrics.firing.WithLabelValues(k.rule, k.cluster).Dec()
			e.log.Info("alert dropped", "rule", k.rule, "cluster", k.cluster, "job_id", k.job, "why", why)
		}
		delete(e.states, k)
	}
}

// Firing is the alerts firing now (announced, not resolved), oldest first.
func (e *Engine) Firing() []Alert {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []Alert
	for _, s := range e.states {
		if s.announced {
			out = append(out, s.firing)
		}
	}
	slices.SortFunc(out, func(a, b Alert) int {
		return cmp.Or(cmp.Compare(a.AtMs, b.AtMs), cmp.Compare(a.Rule, b.Rule), cmp.Compare(a.Job.Cluster, b.Job.Cluster),
			cmp.Compare(a.Job.JobID, b.Job.JobID))
	})
	return out
}

// announce writes the alert's log line, counts it and notifies. A failed
// notification is logged once until one succeeds again (no session bus
// would otherwise repeat with every alert).
func (e *Engine) announce(ctx context.Context, a Alert) {
	log := e.log.With("rule", a.Rule, "kind", a.Kind, "cluster", a.Job.Cluster, "job_id", a.Job.JobID, "job", a.JobName,
		"since_ms", a.SinceMs, "detail", a.Body)
	if a.State == StateFiring {
		log.Warn("alert firing")
		e.metrics.firing.WithLabelValues(a.Rule, a.Job.Cluster).Inc()
	} else {
		log.Info("alert resolved")
		e.metrics.firing.WithLabelValues(a.Rule, a.Job.Cluster).Dec()
	}
	e.metrics.alerts.WithLabelValues(a.Rule, a.Job.Cluster, string(a.State)).Inc()

	e.notifyMu.Lock()
	defer e.notifyMu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, e.notifyTimeout)
	defer cancel()
	err := e.notifier.Notify(ctx, a)
	switch {
	case err == nil:
		e.lastNotifyErr = ""
	case err.Error() != e.lastNotifyErr:
		e.lastNotifyErr = err.Error()
		e.metrics.notifyErrors.Inc()
		e.log.Warn("alert notification failed; alerts are still logged here and counted on /metrics", "err", err)
	default:
		e.metrics.notifyErrors.Inc()
		e.log.Debug("alert notification failed", "err", err)
	}
}

// Close closes the notifier, when it holds a connection (the desktop's).
func (e *Engine) Close() error {
	if c, ok := e.notifier.(io.Closer); ok {
		return c.Close()
	}
	return nil
}
