package app

import (
	"testing"

	"checkpoint-explorer/testenv/flinkenv"
)

// The advice scenarios of advice_real_test.go on Flink 1.20 (the user story's version), on its
// shared test cluster.

func TestFlink120AdviceUnalignedUnderBackpressure(t *testing.T) {
	checkUnalignedAdvice(t, flinkenv.EnsureVersion(t, flink120))
}

func TestFlink120AdviceTimeoutForExpiringCheckpoints(t *testing.T) {
	checkTimeoutAdvice(t, flinkenv.EnsureVersion(t, flink120))
}

// On 1.20.5, as on 2.3, once RocksDB has memory of its own (see checkIncrementalAdvice): with
// the test cluster's managed memory, incremental checkpoints there looked full by their sizes.
func TestFlink120AdviceIncrementalForGrowingRocksDBState(t *testing.T) {
	checkIncrementalAdvice(t, flinkenv.EnsureVersion(t, flink120))
}
