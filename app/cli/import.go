package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"checkpoint-explorer/app"
)

func importCmd(g *globals) *cobra.Command {
	var merge bool
	cmd := &cobra.Command{
		Use:   "import [flags] FILE...",
		Short: "open capture files into the cache as read-only sources",
		Long: `Opens capture files (or the foreign sample format) into the cache as read-only sources.
Each file is imported whole or not at all: a file that fails, or an import Ctrl-C stops,
leaves the cache as it was. Progress goes to stderr (--quiet: none).

Each file is a source of its own: when the cache already holds a source of the name the
file gives, the file's is named "NAME (2)" (and says so), so a capture never replaces the
checkpoints of an earlier one with the same job id. --merge adds it to that source instead.`,
		Example: `  checkpoint-explorer import recording.ckpt.gz
  checkpoint-explorer import --data-dir /srv/ce night-*.ckpt.gz`,
		ValidArgsFunction: completeCaptureFiles,
		RunE: func(cmd *cobra.Command, files []string) error {
			if len(files) == 0 {
				return usageErrorf(cmd, "import: give at least one file")
			}
			return runImport(cmd.Context(), g, files, merge)
		},
	}
	cmd.Flags().BoolVar(&merge, "merge", false, "add each file to the source of the same name the cache holds (its checkpoints of the same job ids are replaced)")
	return cmd
}

func runImport(ctx context.Context, g *globals, files []string, merge bool) error {
	return withCache(ctx, g, func(svc *app.Service) error { return importFiles(ctx, g, svc, files, merge) })
}

// importFiles imports each file whole or not at all, going on after one
// that fails; an interruption stops it.
func importFiles(ctx context.Context, g *globals, svc *app.Service, files []string, merge bool) error {
	open := (*app.App).OpenCapture
	if merge {
		open = (*app.App).MergeCapture
	}
	var failed []error
	for i, f := range files {
		if ctx.Err() != nil {
			return stoppedError{fmt.Sprintf("import stopped before %s (the %d files before it were imported)", f, i)}
		}
		if err := checkReadable(f); err != nil {
			failed = append(failed, err)
			if len(files) > 1 {
				fmt.Fprintf(g.stderr, "checkpoint-explorer: import: %v\n", err)
			}
			continue
		}
		stopped := fmt.Sprintf("import of %s stopped; nothing of it was imported (the cache is as it was)", f)
		if i > 0 {
			stopped = fmt.Sprintf("import of %s stopped; nothing of it was imported (the %d files before it were)", f, i)
		}
		res, err := watched(ctx, g, svc, stopped, func(a *app.App) (app.ImportResult, error) { return open(a, f) })
		if errors.As(err, new(stoppedError)) {
			return err
		}
		if err != nil {
			failed = append(failed, fmt.Errorf("%s: %w", f, err))
			if len(files) > 1 {
				fmt.Fprintf(g.stderr, "checkpoint-explorer: import: %s: %s\n", f, errorText(err))
			}
			continue
		}
		fmt.Fprintf(g.stdout, "%s: %s: %d jobs, %d checkpoints, %d ack samples, %d metric samples, %d gaps",
			f, strings.Join(res.Sources, ", "), res.Jobs, res.Checkpoints, res.AckSamples, res.MetricSamples, res.Gaps)
		if res.Skipped > 0 {
			fmt.Fprintf(g.stdout, " (%d unknown records skipped)", res.Skipped)
		}
		fmt.Fprintln(g.stdout)
		for _, r := range res.Renamed {
			held := "a source of that name"
			if len(r.Jobs) > 0 {
				held = fmt.Sprintf("a source of that name with job %s", strings.Join(r.Jobs, ", "))
			}
			fmt.Fprintf(g.stdout, "  the cache already held %s: this file is the source %q, kept apart from %q (--merge adds to it)\n",
				held, r.To, r.From)
		}
	}
	switch {
	case len(failed) == 1 && len(files) == 1:
		return fmt.Errorf("import: %w", failed[0])
	case len(failed) > 0:
		return fmt.Errorf("import: %d of %d files failed", len(failed), len(files))
	}
	return nil
}
