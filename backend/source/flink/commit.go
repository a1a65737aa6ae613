package flink

import (
	"strings"

	"checkpoint-explorer/backend/model"
)

// committer metric names, by the model's commit metric, and the groups
// they are registered in. Iceberg's committer registers them in a group
// named after it (REST id "IcebergFilesCommitter.<table>.lastCommitDurationMs"
// or with the operator's name before it; IcebergCommitter for its Sink V2
// sink); Flink's Sink V2 committer (1.18+, SinkCommitterMetricGroup) counts
// committables.
var committerMetrics = []struct {
	groups       []string
	name, metric string
}{
	{icebergCommitters, "lastCommitDurationMs", model.MetricCommitDurationMs},
	{icebergCommitters, "committedDataFilesCount", model.MetricCommittedFiles},
	{icebergCommitters, "committedDataFilesRecordCount", model.MetricCommittedRecords},
	{[]string{"Committer"}, "successfulCommittables", model.MetricCommittedCommittables},
}

// icebergCommitters are the groups of Iceberg's committer metrics, the
// first found first.
var icebergCommitters = []string{"IcebergFilesCommitter", "IcebergCommitter"}

// CommitterMetrics picks, from a vertex's metric ids (VertexMetricNames),
// those of a sink's committer, mapped to the model's commit metrics. The
// first id found for a metric wins.
func CommitterMetrics(ids []string) map[string]string {
	out := map[string]string{}
	taken := map[string]bool{}
	for _, m := range committerMetrics {
		for _, group := range m.groups {
			for _, id := range ids {
				if taken[m.metric] {
					break
				}
				if strings.HasSuffix(id, "."+m.name) && strings.Contains(id, group) {
					out[id] = m.metric
					taken[m.metric] = true
				}
			}
		}
	}
	return out
}

// MetricIDFor finds a metric a user named (a lane's Metric) among a
// vertex's metric ids: the id itself, or an operator's metric ending in
// "." + name. "" when the vertex does not have it.
func MetricIDFor(ids []string, name string) string {
	for _, id := range ids {
		if id == name {
			return id
		}
	}
	for _, id := range ids {
		if strings.HasSuffix(id, "."+name) {
			return id
		}
	}
	return ""
}
