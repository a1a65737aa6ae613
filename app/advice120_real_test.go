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

// On 1.20.5 incremental RocksDB checkpoints upload every (freshly compacted) file on this small
// cluster, so their sizes look like full ones and REST does not report the setting: the full
// job is checked as on 2.3, the incremental one only logged.
func TestFlink120AdviceIncrementalForGrowingRocksDBState(t *testing.T) {
	checkIncrementalAdvice(t, flinkenv.EnsureVersion(t, flink120), false)
}
