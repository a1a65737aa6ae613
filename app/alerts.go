package app

import (
	"context"
	"time"

	"checkpoint-explorer/backend/alert"
)

// Alerts (docs/alerts.md): the user's rules judge the fleet of the
// configured clusters while the app runs, window shown or hidden, in serve
// and in collect alike.

// alertWindowMs is the fleet window the rules judge.
const alertWindowMs = int64(time.Hour / time.Millisecond)

// AlertRules returns the saved alert rules (none: an empty list).
func (a *App) AlertRules() []alert.Rule { return append([]alert.Rule{}, a.alerts.Rules()...) }

// SetAlertRules checks, saves and applies the rules; none turns alerts off.
func (a *App) SetAlertRules(rules []alert.Rule) error {
	if err := alert.ValidateRules(rules); err != nil {
		return badRequest("%v", err)
	}
	if err := a.alerts.SetRules(rules); err != nil {
		return badRequest("%v", err)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.saveConfigLocked()
}

// newAlerts makes the alert engine of the saved rules, its counters on
// /metrics; a click on a notification opens the job.
func newAlerts(a *App, rules []alert.Rule) (*alert.Engine, error) {
	notifier := alert.NewDesktop(alert.DesktopOptions{BusAddress: a.opts.AlertBus, OnClick: func(j alert.JobRef) {
		a.emit(OpenJobEvent{Cluster: j.Cluster, JobID: j.JobID})
	}})
	e, err := alert.New(alert.Options{Rules: rules, Notifier: notifier, Logger: a.log})
	if err != nil {
		return nil, err
	}
	return e, e.Register(a.metrics.reg)
}

// runAlerts judges the configured clusters' jobs every Options.AlertEvery
// while there are rules.
func (a *App) runAlerts(ctx context.Context) {
	t := time.NewTicker(a.opts.AlertEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if len(a.alerts.Rules()) == 0 {
			continue
		}
		fl, err := a.Fleet(FleetRequest{WindowMs: alertWindowMs})
		if err != nil {
			a.log.Warn("alerts: the fleet could not be read; trying again next round", "err", err)
			continue
		}
		if fl.AsOfMs != 0 {
			continue // the last run's rows, shown while the fleet is read again: nothing to judge now
		}
		rows := fl.Jobs[:0:0]
		for _, r := range fl.Jobs {
			if _, ok := a.configuredCluster(r.Cluster); ok {
				rows = append(rows, r)
			}
		}
		a.alerts.Evaluate(ctx, alert.FromFleet(rows))
	}
}
