package store

import (
	"context"
	"os"
	"testing"
)

func TestMeasureWriteThroughput(t *testing.T) {
	res, err := MeasureWriteThroughput(context.Background(), t.TempDir(), rowsForTest())
	if err != nil {
		t.Fatal(err)
	}
	if res.Rows < int64(rowsForTest()) || res.ProductRowsPerSec <= 0 || res.MinimalRowsPerSec <= 0 {
		t.Fatalf("implausible result: %+v", res)
	}
	t.Log(res)
}

func rowsForTest() int {
	if testing.Short() {
		return 5_000
	}
	return 20_000
}

// TestPrintWriteThroughput is `make bench`'s store figure: a million rows
// through both paths in one run. Skipped unless CE_BENCH_STORE is set.
func TestPrintWriteThroughput(t *testing.T) {
	if os.Getenv("CE_BENCH_STORE") == "" {
		t.Skip("CE_BENCH_STORE not set: run by make bench")
	}
	res, err := MeasureWriteThroughput(context.Background(), t.TempDir(), 1_000_000)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("product path %.0f rows/s, minimal loop %.0f rows/s, ratio %.2f (aim >= 200000 rows/s and >= 0.5)",
		res.ProductRowsPerSec, res.MinimalRowsPerSec, res.ProductRowsPerSec/res.MinimalRowsPerSec)
}
