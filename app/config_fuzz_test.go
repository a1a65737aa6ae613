package app

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"checkpoint-explorer/testenv/fuzzenv"
)

// configSeed is a config file as the app writes them (save): clusters of both engines with
// every optional setting, and retention limits.
const configSeed = `{
  "clusters": [
    {
      "name": "flink-1.20-lab",
      "engine": "flink",
      "base_url": "http://127.0.0.1:34305",
      "prometheus_url": "http://127.0.0.1:46377",
      "auth": {"kind": "basic", "username": "ops", "password": "pw"},
      "requests_per_second": 20,
      "max_in_flight": 4,
      "job_manager_log": "auto",
      "lanes": [{"name": "lag", "promql": "max(flink_taskmanager_job_task_operator_currentEmitEventTimeLag)"},
                {"name": "records", "metric": "numRecordsInPerSecond"}]
    },
    {
      "name": "zeta",
      "engine": "seatunnel",
      "base_url": "http://127.0.0.1:8080",
      "auth": {"kind": "bearer", "token": "t"},
      "read_only": false
    },
    {
      "name": "reporters",
      "engine": "flink",
      "base_url": "http://127.0.0.1:8081",
      "reporter_urls": ["http://127.0.0.1:9249/metrics", "http://127.0.0.1:9250/metrics"]
    }
  ],
  "retention": {"max_checkpoints_per_job": 10000, "max_age_ms": 2592000000, "max_bytes": 1073741824}
}`

// FuzzLoadConfig feeds anything to the config file loader (app/config.go), and what it
// loads to what the app does with it at start: the collector builds a target of every cluster
// (newTarget), the settings dialog checks it (validateCluster), the store takes the retention.
// None of it may panic; a file that is not valid JSON is refused with an error naming the
// file; what loads saves and loads back the same; the file ends up mode 0600.
//
// `go test` runs every seed and every input under testdata/fuzz/ (found problems, kept as
// regressions); testenv/fuzz.sh (make fuzz) fuzzes it for a while.
func FuzzLoadConfig(f *testing.F) {
	f.Add([]byte(configSeed))
	f.Add([]byte(`{"clusters":[]}`))
	f.Add([]byte(`{"clusters":[{"name":"a","engine":"flink","base_url":"http://127.0.0.1:1"}],"retention":{"max_bytes":-1}}`))
	dir := f.TempDir()
	path, again := filepath.Join(dir, "config.json"), filepath.Join(dir, "again", "config.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzenv.Count()
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, 0o644); err != nil { // WriteFile keeps an existing file's mode
			t.Fatal(err)
		}
		cfg, err := (&configFile{path: path}).load()
		if err != nil {
			if !strings.HasPrefix(err.Error(), "config: "+path) {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		if !json.Valid(data) {
			t.Fatalf("invalid JSON loaded: %+v", cfg)
		}
		if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
			t.Fatalf("config file mode after load: %v %v", fi.Mode(), err)
		}
		for _, c := range cfg.Clusters {
			_ = validateCluster(c)
			c.CAFile = "" // a CA file is read when the target is built: not any file the input names
			if tgt, err := newTarget(c, nil, 0); err == nil && tgt.Name != c.Name {
				t.Fatalf("target %q for cluster %q", tgt.Name, c.Name)
			}
		}
		if r := cfg.Retention; r != nil {
			_ = r.validate()
			// The age limit in the store's form is never shorter than the one configured.
			if want := time.Duration(min(r.MaxAgeMs, math.MaxInt64/int64(time.Millisecond))) * time.Millisecond; r.MaxAgeMs > 0 && r.store().MaxAge < want {
				t.Fatalf("max age of %d ms becomes %s", r.MaxAgeMs, r.store().MaxAge)
			}
		}

		// What loads saves and loads back the same (save sorts the clusters by name).
		if err := (&configFile{path: again}).save(cfg); err != nil {
			t.Fatalf("save: %v", err)
		}
		back, err := (&configFile{path: again}).load()
		if err != nil {
			t.Fatalf("a saved config does not load: %v", err)
		}
		a, _ := json.Marshal(cfg)
		b, _ := json.Marshal(back)
		if !bytes.Equal(a, b) {
			t.Fatalf("config changed on save and load:\n%s\n%s", a, b)
		}
	})
}
