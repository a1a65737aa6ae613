package fleet

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"checkpoint-explorer/backend/analyze"
	"checkpoint-explorer/backend/store"
)

// savedFleet is a whole read kept in a file of CacheOptions.Dir.
type savedFleet struct {
	// ReadMs is when the whole read began.
	ReadMs int64         `json:"read_ms"`
	Fleet  analyze.Fleet `json:"fleet"`
}

// savedPath is the file of k's whole reads: one per window and cluster filter.
func (c *Cache) savedPath(k cacheKey) string {
	return filepath.Join(c.opts.Dir, fmt.Sprintf("fleet-%d-%x.json", k.windowMs, k.only))
}

// save keeps f, read whole from readMs on, as k's file; written aside and
// renamed, so a reader (another process on the same cache) never sees half.
func (c *Cache) save(k cacheKey, f analyze.Fleet, readMs int64) error {
	b, err := json.Marshal(savedFleet{ReadMs: readMs, Fleet: f})
	if err != nil {
		return fmt.Errorf("fleet: save: %w", err)
	}
	path := c.savedPath(k)
	tmp, err := os.CreateTemp(c.opts.Dir, filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("fleet: save: %w", err)
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("fleet: save %s: %w", path, err)
	}
	return nil
}

// load is k's kept whole read, marked as of its read, without the rows of
// clusters the cache no longer holds (removed since); false when there is
// none. A file that cannot be read is no answer, and the error says why.
func (c *Cache) load(ctx context.Context, k cacheKey) (analyze.Fleet, bool, error) {
	b, err := os.ReadFile(c.savedPath(k))
	if os.IsNotExist(err) {
		return analyze.Fleet{}, false, nil
	}
	if err != nil {
		return analyze.Fleet{}, false, fmt.Errorf("fleet: read the last whole read: %w", err)
	}
	var saved savedFleet
	if err := json.Unmarshal(b, &saved); err != nil || saved.ReadMs <= 0 || saved.Fleet.WindowMs != k.windowMs {
		return analyze.Fleet{}, false, fmt.Errorf("fleet: the last whole read in %s is not one (%v): reading the fleet whole", c.savedPath(k), err)
	}
	known, err := knownClusters(ctx, c.st)
	if err != nil {
		return analyze.Fleet{}, false, err
	}
	f := saved.Fleet
	var rows []analyze.FleetJob
	for _, r := range f.Jobs {
		if known[r.Cluster] {
			rows = append(rows, r)
		}
	}
	f.Jobs, f.AsOfMs = rows, saved.ReadMs
	return f, true, nil
}

// knownClusters are the clusters and captures the cache holds.
func knownClusters(ctx context.Context, st *store.Store) (map[string]bool, error) {
	cs, err := st.Clusters(ctx)
	if err != nil {
		return nil, fmt.Errorf("fleet: %w", err)
	}
	out := make(map[string]bool, len(cs))
	for _, c := range cs {
		out[c.Name] = true
	}
	return out, nil
}
