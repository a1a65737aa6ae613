package cli

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"checkpoint-explorer/app"
)

type exportFlags struct {
	cluster, job, out, format string
	timeRange
	perSubtask bool
}

var exportFormats = formats{app.FormatCapture, app.FormatPerfetto, app.FormatOTLP, app.FormatCSV}

func exportCmd(g *globals) *cobra.Command {
	var f exportFlags
	cmd := &cobra.Command{
		Use:   "export [flags] --cluster NAME --job ID --out FILE",
		Short: "write a job's cached checkpoints to a capture file, or as Perfetto, OTLP or CSV",
		Long: `Writes a job's cached checkpoints, samples and gaps to a capture file (no secrets), or with
--format the checkpoints as a Perfetto trace, OTLP JSON spans with Flink's names, or CSV
(docs/interop.md). The file appears only when complete: Ctrl-C or a failure leaves no partial
file. Progress goes to stderr. TIME is RFC 3339, epoch milliseconds, or a duration ago (2h, 7d).`,
		Example: `  checkpoint-explorer export --cluster prod --job 3f1c… --out prod.ckpt.gz
  checkpoint-explorer export --cluster prod --job 3f1c… --from 2026-11-29T14:00:00Z --to 1h --out incident.ckpt.gz
  checkpoint-explorer export --cluster prod --job 3f1c… --format perfetto --out prod.perfetto.json
  checkpoint-explorer export --cluster prod --job 3f1c… --format csv --per-subtask --out phases.csv`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.cluster == "" || f.job == "" || f.out == "" {
				return usageErrorf(cmd, "export: --cluster, --job and --out are required")
			}
			if err := exportFormats.check(cmd, f.format); err != nil {
				return err
			}
			if f.perSubtask && f.format != app.FormatCSV {
				return usageErrorf(cmd, "export: --per-subtask goes with --format csv")
			}
			fromMs, toMs, err := f.ms(cmd)
			if err != nil {
				return err
			}
			return runExport(cmd.Context(), g, app.ExportRequest{Cluster: f.cluster, Job: f.job, FromMs: fromMs, ToMs: toMs, Path: f.out,
				Format: f.format, PerSubtask: f.perSubtask})
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.cluster, "cluster", "", "cluster or capture name")
	fs.StringVar(&f.job, "job", "", "job id")
	f.timeRange.addFlags(fs)
	fs.StringVar(&f.out, "out", "", "file to write (.ckpt.gz for a capture)")
	exportFormats.addFlag(cmd, &f.format)
	fs.BoolVar(&f.perSubtask, "per-subtask", false, "csv: one row per subtask phase instead of per checkpoint")
	flagGroup(fs, "What to export", "cluster", "job", "from", "to")
	flagGroup(fs, "Output", "out", "per-subtask")
	return cmd
}

func runExport(ctx context.Context, g *globals, req app.ExportRequest) error {
	return withCache(ctx, g, func(svc *app.Service) error {
		res, err := watched(ctx, g, svc, fmt.Sprintf("export stopped; %s was not written", req.Path), func(a *app.App) (app.ExportResult, error) {
			return a.ExportCapture(req)
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(g.stdout, "%s: %d checkpoints, %d records, %d bytes\n", res.Path, res.Checkpoints, res.Records, res.Bytes)
		return nil
	})
}
