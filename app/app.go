// Package app is the one facade the user interface calls. The desktop window
// binds *App through Wails, `serve` exposes the same methods as a local JSON
// API, and the CLI commands call them too: one facade, three doors.
//
// Exported methods of *App are the API (every one of them is reachable from
// the window and the browser); lifecycle and wiring live in package-level
// functions so that they are not.
package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"checkpoint-explorer/app/places"
	"checkpoint-explorer/backend/alert"
	"checkpoint-explorer/backend/collect"
	"checkpoint-explorer/backend/fleet"
	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/backend/store"
)

// Build information, set by the linker (-X) in the Makefile.
var (
	BuildVersion = "dev"
	BuildCommit  = "unknown"
)

// Options configure a new App.
type Options struct {
	// DataDir overrides where the config, the cache and the log live. Empty
	// means the OS's places (places.Default): the cache in the data dir, the
	// config in the config dir, the log in the state (log) dir.
	DataDir string
	// Logger receives progress and errors; secrets never reach it.
	Logger *slog.Logger
	// NoSample disables opening the bundled sample on a first run.
	NoSample bool
	// NoCollect disables polling (CLI commands that only read the cache).
	NoCollect bool
	// Clusters, when set, are the only configured clusters polled (collect --cluster).
	Clusters []string
	// AlertEvery is how often the alert rules judge the fleet (default 30 s);
	// AlertBus is the D-Bus session bus of their notifications ("": the session's).
	AlertEvery time.Duration
	AlertBus   string
	// JobsEvery overrides how often each cluster's job list is refreshed (default 30 s).
	JobsEvery time.Duration
	// JobManagerLogEvery overrides how often a Flink cluster's JobManager
	// log may be read (default flink.LogEvery, a minute).
	JobManagerLogEvery time.Duration
	// Keychain keeps passwords and tokens in the OS keychain: "" uses it
	// for the OS's own places and not with DataDir (a data dir is
	// self-contained), "on" and "off" decide.
	Keychain string
	// Export, with an endpoint, sends the final checkpoints the cache
	// stores to an OTLP endpoint (collect --export-otlp; app/publish.go).
	Export ExportOptions
}

// Paths is where an App keeps its files.
type Paths struct {
	Config string `json:"config"`
	Cache  string `json:"cache"`
	Log    string `json:"log"`
}

// ResolvePaths applies the defaults of Options.DataDir.
func ResolvePaths(dataDir string) (Paths, error) {
	if dataDir != "" {
		abs, err := filepath.Abs(dataDir)
		if err != nil {
			return Paths{}, fmt.Errorf("data dir %s: %w", dataDir, err)
		}
		return Paths{
			Config: filepath.Join(abs, "config.json"),
			Cache:  filepath.Join(abs, "cache.db"),
			Log:    filepath.Join(abs, "checkpoint-explorer.log"),
		}, nil
	}
	p, err := places.Default()
	if err != nil {
		return Paths{}, err
	}
	return Paths{
		Config: filepath.Join(p.Config, "config.json"),
		Cache:  filepath.Join(p.Data, "cache.db"),
		Log:    filepath.Join(p.Log, "checkpoint-explorer.log"),
	}, nil
}

// App is what the UI calls — the window binds it, the HTTP door serves its
// exported methods, the CLI calls them — over the state of one running app;
// a Service gives it (Service.App). Its calls run under the root context
// Service.Start makes (cancelled by Close); the HTTP door calls through a
// copy per request (Service.Call), so a closed browser tab cancels its call.
// No call has a fixed time limit. Lifecycle lives in Service, not here: every
// exported method of App is exposed to the UI.
type App struct {
	*appCore
	// ctx is the context of the request this App answers; nil for the root.
	ctx context.Context
}

// appCore is the state of a running app, shared by every App of it. It has
// no exported methods: the doors expose App's.
type appCore struct {
	paths  Paths
	log    *slog.Logger
	opts   Options
	config *configFile
	store  *store.Store
	events *broadcaster

	mu       sync.Mutex
	clusters []model.Cluster           // configured, with secrets; guarded by mu
	health   map[string]collect.Health // set when a cluster cannot be polled at all
	cancel   context.CancelFunc
	root     context.Context // Start's; guarded by mu
	wg       sync.WaitGroup
	// dialogs is set by the desktop door; nil elsewhere.
	dialogs FileDialogs
	coll    collectorHandle
	logFile *os.File
	metrics *appMetrics
	alerts  *alert.Engine
	// fleet answers the fleet view, the alerts and status: a live update
	// re-reads the rows of the jobs whose checkpoints were stored.
	fleet *fleet.Cache
}

// FileDialogs is what the desktop window offers for picking files.
type FileDialogs interface {
	OpenFile(title string, patterns []string) (string, error)
	SaveFile(title, defaultName string) (string, error)
}

// newApp opens the config and the cache (NewService). The caller must call closeApp.
func newApp(ctx context.Context, opts Options) (*App, error) {
	paths, err := ResolvePaths(opts.DataDir)
	if err != nil {
		return nil, err
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
	}
	// A directory that cannot be written fails now, by name, rather than
	// every poll and every saved setting later.
	if err := checkWritable(paths, opts.DataDir != ""); err != nil {
		return nil, err
	}
	// The cache and the log used to live in the user cache dir: moved once,
	// before the log opens so that the old log moves too.
	var moved places.MoveReport
	if opts.DataDir == "" {
		old := places.OldCacheDir()
		if moved, err = places.MoveOldCache(old, paths.Cache, paths.Log); err != nil {
			return nil, fmt.Errorf("moving the cache from its old place %s to %s failed: %w; "+
				"nothing was lost (the next start finishes the move); free space or fix the permissions there, "+
				"or start with --data-dir %s to use the old place as it is", old, filepath.Dir(paths.Cache), err, old)
		}
	}
	// Polling progress and errors also go to a file the UI can show.
	var logFile *os.File
	if lf, err := openLogFile(paths.Log); err == nil {
		logFile = lf
		logger = teeLogger(logger, lf)
	} else {
		logger.Warn("no log file", "path", paths.Log, "err", err)
	}
	moved.Log(logger)
	if opts.AlertEvery <= 0 {
		opts.AlertEvery = 30 * time.Second
	}
	a := &App{appCore: &appCore{
		paths:   paths,
		log:     logger,
		logFile: logFile,
		opts:    opts,
		config:  newConfigFile(paths.Config, opts, logger),
		events:  newBroadcaster(),
		health:  map[string]collect.Health{},
	}}
	cfg, err := a.config.load()
	if err != nil {
		if logFile != nil {
			logFile.Close()
		}
		return nil, err
	}
	a.clusters = cfg.Clusters
	ret := store.DefaultRetention()
	if cfg.Retention != nil {
		ret = cfg.Retention.store()
	}
	st, err := store.Open(ctx, paths.Cache, ret, store.OnMigration(func(e store.MigrationEvent) {
		// A Warn, so that even quiet commands say why they pause: converting a
		// large cache takes seconds (about 2 s per million subtask stats).
		if !e.Done {
			logger.Warn("converting the cache to a newer format; this happens once and may take a while",
				"path", paths.Cache, "step", e.Version, "change", e.Name)
			return
		}
		logger.Info("cache converted", "step", e.Version, "took", e.Took.Round(time.Millisecond))
	}))
	if err != nil {
		if logFile != nil {
			logFile.Close()
		}
		return nil, fmt.Errorf("open cache: %w", err)
	}
	a.store = st
	// The window's and serve's first screen is the last run's fleet at once, read again in the
	// background; a command that only reads the cache (status) waits for the fleet of now.
	a.fleet = fleet.NewCache(st, fleet.CacheOptions{Dir: filepath.Dir(paths.Cache), FromDir: !opts.NoCollect, Logger: a.log})
	a.metrics = newAppMetrics(a)
	if a.alerts, err = newAlerts(a, cfg.AlertRules); err != nil {
		st.Close()
		return nil, fmt.Errorf("config: alert rules: %w", err)
	}
	return a, nil
}

// checkWritable makes sure the directories of the config and the cache
// exist and take new files, and that an existing cache file can be written.
func checkWritable(p Paths, dataDir bool) error {
	dirs := []struct{ what, dir string }{{"config directory", filepath.Dir(p.Config)}, {"cache directory", filepath.Dir(p.Cache)}}
	if dataDir {
		dirs = dirs[1:]
		dirs[0].what = "data directory"
	}
	for _, d := range dirs {
		err := os.MkdirAll(d.dir, 0o700)
		if err == nil {
			var f *os.File
			if f, err = os.CreateTemp(d.dir, ".write-probe-*"); err == nil {
				f.Close()
				os.Remove(f.Name())
			}
		}
		if err != nil {
			return fmt.Errorf("the %s %s cannot be written (%w): Checkpoint Explorer keeps its config and cache there; "+
				"make it writable (e.g. chmod u+w), or start with --data-dir pointing at a writable directory", d.what, d.dir, err)
		}
	}
	f, err := os.OpenFile(p.Cache, os.O_RDWR, 0)
	if err == nil {
		return f.Close()
	}
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return fmt.Errorf("the cache %s cannot be written (%w): make it writable (e.g. chmod u+w), "+
		"or start with --data-dir pointing at a writable directory", p.Cache, err)
}

// startApp begins background work: retention, the first-run sample, polling.
func startApp(ctx context.Context, a *App) error {
	ctx, cancel := context.WithCancel(ctx)
	a.mu.Lock()
	a.cancel, a.root = cancel, ctx
	a.mu.Unlock()
	if !a.opts.NoSample {
		if err := a.ensureSample(ctx); err != nil {
			// The sample is a convenience: a broken one must not stop the app.
			a.log.Warn("bundled sample not opened", "err", err)
		}
	}
	a.wg.Add(1)
	go func() {
		defer a.wg.Done()
		a.store.StartRetention(ctx, time.Minute)
	}()
	if !a.opts.NoCollect {
		a.startCollector(ctx)
		a.wg.Add(1)
		go func() {
			defer a.wg.Done()
			a.runAlerts(ctx)
		}()
	}
	return nil
}

// callCtx is the context of one call: the request's when the HTTP door made
// this App, ended too when the app closes; the app's root context otherwise.
func (a *App) callCtx() (context.Context, context.CancelFunc) {
	a.mu.Lock()
	root := a.root
	a.mu.Unlock()
	if root == nil {
		root = context.Background() // not started: a CLI command before Start, tests
	}
	if a.ctx == nil {
		return context.WithCancel(root)
	}
	ctx, cancel := context.WithCancel(a.ctx)
	stop := context.AfterFunc(root, cancel)
	return ctx, func() {
		stop()
		cancel()
	}
}

// withCallContext is a's state answering one request: calls through it end
// with ctx (the HTTP door makes one per request).
func withCallContext(a *App, ctx context.Context) *App { return &App{appCore: a.appCore, ctx: ctx} }

// closeApp stops background work and closes the cache.
func closeApp(a *App) error {
	a.mu.Lock()
	cancel := a.cancel
	a.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	a.stopCollector()
	a.wg.Wait()
	a.alerts.Close()
	a.fleet.Close()
	err := a.store.Close()
	if a.logFile != nil {
		a.logFile.Close()
	}
	return err
}

func (a *App) configuredCluster(name string) (model.Cluster, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, c := range a.clusters {
		if c.Name == name {
			return c, true
		}
	}
	return model.Cluster{}, false
}

// saveConfigLocked writes the config; a.mu must be held.
func (a *App) saveConfigLocked() error {
	lim := limitsFromStore(a.store.Retention())
	return a.config.save(Config{Clusters: append([]model.Cluster(nil), a.clusters...), Retention: &lim, AlertRules: a.alerts.Rules()})
}

// SourceKind is what a SourceView is: a configured cluster, an opened capture or the sample.
type SourceKind string

// The kinds of SourceView.
const (
	SourceCluster SourceKind = "cluster"
	SourceCapture SourceKind = "capture"
	SourceSample  SourceKind = "sample"
)

// sourceKind tells a configured cluster from an opened capture or the sample.
func sourceKind(c model.Cluster, configured bool) SourceKind {
	switch {
	case configured:
		return SourceCluster
	case strings.HasPrefix(c.Name, "sample:"):
		return SourceSample
	default:
		return SourceCapture
	}
}

// errBadRequest marks errors caused by the caller's input.
var errBadRequest = errors.New("bad request")

func badRequest(format string, args ...any) error {
	return fmt.Errorf("%w: %s", errBadRequest, fmt.Sprintf(format, args...))
}

// IsBadRequest reports whether err came from invalid input (the serve door
// answers 400 rather than 500).
func IsBadRequest(err error) bool { return errors.Is(err, errBadRequest) }

// broadcaster fans events out to the doors' subscribers.
type broadcaster struct {
	mu   sync.Mutex
	next int
	subs map[int]func(string, any)
}

func newBroadcaster() *broadcaster { return &broadcaster{subs: map[int]func(string, any){}} }

func (b *broadcaster) subscribe(fn func(string, any)) func() {
	b.mu.Lock()
	id := b.next
	b.next++
	b.subs[id] = fn
	b.mu.Unlock()
	return func() {
		b.mu.Lock()
		delete(b.subs, id)
		b.mu.Unlock()
	}
}

func (b *broadcaster) emit(name string, payload any) {
	b.mu.Lock()
	fns := make([]func(string, any), 0, len(b.subs))
	for _, fn := range b.subs {
		fns = append(fns, fn)
	}
	b.mu.Unlock()
	for _, fn := range fns {
		fn(name, payload)
	}
}
