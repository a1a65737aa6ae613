package app

import (
	"checkpoint-explorer/backend/alert"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/dustin/go-humanize"

	"checkpoint-explorer/backend/connect"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/source/flink"
	"checkpoint-explorer/backend/store"
)

// Config is what the user configured: clusters (with their secrets) and
// retention limits. It lives in a file of mode 0600 because it holds secrets.
type Config struct {
	Clusters  []model.Cluster  `json:"clusters"`
	Retention *RetentionLimits `json:"retention,omitempty"`
	// AlertRules are the user's alert rules (docs/alerts.md).
	AlertRules []alert.Rule `json:"alert_rules,omitempty"`
	// SecretsInKeychain names the clusters whose passwords and tokens are
	// in the OS keychain rather than in this file.
	SecretsInKeychain []string `json:"secrets_in_keychain,omitempty"`
}

// RetentionLimits is the JSON-friendly form of store.Retention.
type RetentionLimits struct {
	MaxCheckpointsPerJob int   `json:"max_checkpoints_per_job"`
	MaxAgeMs             int64 `json:"max_age_ms"`
	MaxBytes             int64 `json:"max_bytes"`
}

func limitsFromStore(r store.Retention) RetentionLimits {
	return RetentionLimits{MaxCheckpointsPerJob: r.MaxCheckpointsPerJob, MaxAgeMs: r.MaxAge.Milliseconds(), MaxBytes: r.MaxBytes}
}

func (l RetentionLimits) store() store.Retention {
	// A time.Duration holds 292 years: a longer age saturates instead of wrapping around
	// to a short one (which would prune nearly everything).
	age := time.Duration(math.MaxInt64)
	if l.MaxAgeMs < int64(age/time.Millisecond) {
		age = time.Duration(l.MaxAgeMs) * time.Millisecond
	}
	return store.Retention{MaxCheckpointsPerJob: l.MaxCheckpointsPerJob, MaxAge: age, MaxBytes: l.MaxBytes}
}

func (l RetentionLimits) validate() error {
	switch {
	case l.MaxCheckpointsPerJob < 0:
		return errors.New("max checkpoints per job must be 0 (unlimited) or positive")
	case l.MaxAgeMs < 0:
		return errors.New("max age must be 0 (unlimited) or positive")
	case l.MaxBytes < 0:
		return errors.New("max database size must be 0 (unlimited) or positive")
	case l.MaxBytes > 0 && l.MaxBytes < 1<<20:
		return errors.New("max database size below 1 MiB cannot hold even the schema")
	}
	return nil
}

// configFile loads and saves Config atomically with mode 0600, its
// secrets in the OS keychain when there is one (keychain nil: never).
type configFile struct {
	path     string
	mu       sync.Mutex
	keychain *keychain
	log      *slog.Logger
	held     []string // the clusters whose secrets the keychain holds
}

func newConfigFile(path string, opts Options, log *slog.Logger) *configFile {
	f := &configFile{path: path, log: log}
	if opts.Keychain == "on" || opts.Keychain == "" && opts.DataDir == "" {
		f.keychain = openKeychain()
	}
	return f
}

// load reads the config, its secrets from the keychain; secrets still in
// the file move to the keychain when there is one.
func (f *configFile) load() (Config, error) {
	c, err := f.read()
	if err != nil || f.keychain == nil {
		return c, err
	}
	f.keychain.fill(c.Clusters, c.SecretsInKeychain, f.log)
	f.held = c.SecretsInKeychain
	inFile := 0
	for _, cl := range c.Clusters {
		if (cl.Auth.Password != "" || cl.Auth.Token != "") && !slices.Contains(c.SecretsInKeychain, cl.Name) {
			inFile++
		}
	}
	switch {
	case inFile == 0:
	case !f.keychain.available():
		f.log.Warn("config: no OS keychain answers: passwords and tokens stay in the config file (mode 0600)",
			"path", f.path, "err", f.keychain.err)
	default:
		if err := f.save(c); err != nil {
			return c, err
		}
		f.log.Info("config: moved secrets from the config file to the OS keychain", "clusters", inFile, "path", f.path)
	}
	return c, nil
}

func (f *configFile) read() (Config, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var c Config
	b, err := os.ReadFile(f.path)
	if errors.Is(err, os.ErrNotExist) {
		return c, nil
	}
	if err != nil {
		return c, fmt.Errorf("config: read %s: %w", f.path, err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("config: %s is not valid JSON: %w", f.path, err)
	}
	// Tighten a file someone loosened by hand: it holds secrets.
	if fi, err := os.Stat(f.path); err == nil && fi.Mode().Perm() != 0o600 {
		_ = os.Chmod(f.path, 0o600)
	}
	return c, nil
}

// save writes c, its secrets to the keychain when there is one. If the
// keychain fails they are written to the file instead, so none is lost.
func (f *configFile) save(c Config) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	c.SecretsInKeychain = nil
	if f.keychain.available() {
		cs := slices.Clone(c.Clusters)
		held, err := f.keychain.stash(cs, f.held)
		if err != nil {
			f.log.Warn("config: the OS keychain failed: passwords and tokens are written to the config file (mode 0600)",
				"path", f.path, "err", err)
		} else {
			c.Clusters, c.SecretsInKeychain, f.held = cs, held, held
		}
	}
	if err := os.MkdirAll(filepath.Dir(f.path), 0o700); err != nil {
		return fmt.Errorf("config: create dir: %w", err)
	}
	sort.Slice(c.Clusters, func(i, j int) bool { return c.Clusters[i].Name < c.Clusters[j].Name })
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("config: encode: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(f.path), ".config-*.json")
	if err != nil {
		return fmt.Errorf("config: write: %w", err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("config: chmod: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("config: write: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("config: write: %w", err)
	}
	if err := os.Rename(tmp.Name(), f.path); err != nil {
		return fmt.Errorf("config: replace %s: %w", f.path, err)
	}
	return nil
}

// ParseLane reads a lane as the CLI takes it: NAME=promql:QUERY or NAME=metric:METRIC.
func ParseLane(v string) (model.Lane, error) {
	name, spec, ok := strings.Cut(v, "=")
	kind, what, ok2 := strings.Cut(spec, ":")
	if !ok || !ok2 || strings.TrimSpace(name) == "" || what == "" {
		return model.Lane{}, fmt.Errorf("lane %q: want NAME=promql:QUERY or NAME=metric:METRIC", v)
	}
	switch strings.TrimSpace(kind) {
	case "promql":
		return model.Lane{Name: strings.TrimSpace(name), PromQL: what}, nil
	case "metric":
		return model.Lane{Name: strings.TrimSpace(name), Metric: what}, nil
	}
	return model.Lane{}, fmt.Errorf("lane %q: %q is neither promql nor metric", v, kind)
}

// validateCluster checks a cluster the user typed, naming the first problem
// (connect.Check).
func validateCluster(c model.Cluster) error { return connect.Check(c) }

// CheckLanes checks a cluster's custom lanes (connect.CheckLanes).
func CheckLanes(c model.Cluster) error { return connect.CheckLanes(c) }

// CheckJobManagerLogMode accepts "", auto, on and off (flink.CheckLogMode).
func CheckJobManagerLogMode(m model.JobManagerLogMode) error { return flink.CheckLogMode(m) }

// HumanBytes prints a byte count in binary units ("16 MiB", "1.5 KiB"), as
// the capture reader's errors do (go-humanize).
func HumanBytes(n int64) string { return humanize.IBytes(uint64(max(n, 0))) }
