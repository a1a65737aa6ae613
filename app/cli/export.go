package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"checkpoint-explorer/app"
)

func runExport(ctx context.Context, g *globals, args []string) error {
	fs := newFlagSet(g, "export", "--cluster C --job J [--from T] [--to T] --out FILE",
		"Writes a job's cached checkpoints, samples and gaps to a capture file (no secrets).\n"+
			"T is RFC 3339, epoch milliseconds, or a duration ago (2h, 7d).")
	cluster := fs.String("cluster", "", "cluster or capture name")
	job := fs.String("job", "", "job id")
	from := fs.String("from", "", "first trigger time to include")
	to := fs.String("to", "", "last trigger time to include")
	out := fs.String("out", "", "capture file to write (.ckpt.gz)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *cluster == "" || *job == "" || *out == "" {
		fs.Usage()
		return errors.New("export: --cluster, --job and --out are required")
	}
	now := time.Now()
	fromMs, err := parseTime(*from, now)
	if err != nil {
		return fmt.Errorf("export: --from: %w", err)
	}
	toMs, err := parseTime(*to, now)
	if err != nil {
		return fmt.Errorf("export: --to: %w", err)
	}
	svc, err := openApp(ctx, g, app.Options{NoSample: true, NoCollect: true})
	if err != nil {
		return err
	}
	defer svc.Close()
	a := svc.App()
	res, err := a.ExportCapture(app.ExportRequest{Cluster: *cluster, Job: *job, FromMs: fromMs, ToMs: toMs, Path: *out})
	if err != nil {
		return err
	}
	fmt.Fprintf(g.stdout, "%s: %d checkpoints, %d records, %d bytes\n", res.Path, res.Checkpoints, res.Records, res.Bytes)
	return nil
}
