package app

import (
	"context"

	"checkpoint-explorer/backend/record"
)

// RecordOptions say what `capture` records (record.Options).
type RecordOptions = record.Options

// RecordProgress is what `capture` shows while it runs (record.Progress).
type RecordProgress = record.Progress

// Record follows one job of a live cluster for a while and writes what it
// sees to a capture file, without the cache (record.Record); the file's
// header names this build.
func Record(ctx context.Context, o RecordOptions) (RecordProgress, error) {
	o.AppVersion = BuildVersion
	return record.Record(ctx, o)
}

// TracesRecordOptions say which job's spans `capture --traces-url` writes
// into a capture file (record.TracesOptions).
type TracesRecordOptions = record.TracesOptions

// TracesRecordResult says what RecordTraces wrote (record.TracesResult).
type TracesRecordResult = record.TracesResult

// RecordTraces writes a capture of one job read from a tracing backend alone
// (record.Traces); the file's header names this build.
func RecordTraces(ctx context.Context, o TracesRecordOptions) (TracesRecordResult, error) {
	o.AppVersion = BuildVersion
	return record.Traces(ctx, o)
}
