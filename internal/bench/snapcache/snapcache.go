// Package snapcache reads the pipeline benchmark's cache of rendered corpus
// pages (build/snapshots: one JSON file per page, its ARIA snapshot among
// its fields), for the measures that run on the same snapshots on both
// sides of a comparison (the compactor in the sandbox and natively).
package snapcache

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
)

// Snapshots reads the non-empty snapshots of a folder of rendered
// pages, in name order.
func Snapshots(dir string) ([]string, error) {
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []string
	for _, n := range names {
		data, err := os.ReadFile(n)
		if err != nil {
			return nil, err
		}
		var r struct {
			Snapshot string `json:"snapshot"`
		}
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, err
		}
		if r.Snapshot != "" {
			out = append(out, r.Snapshot)
		}
	}
	return out, nil
}
