package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"checkpoint-explorer/app"
)

func runImport(ctx context.Context, g *globals, args []string) error {
	fs := newFlagSet(g, "import", "FILE...",
		"Opens capture files (or the foreign sample format) into the cache as read-only sources.\n"+
			"Each file is imported whole or not at all.")
	files, err := parseAnywhere(fs, args)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		fs.Usage()
		return errors.New("import: give at least one file")
	}
	svc, err := openApp(ctx, g, app.Options{NoSample: true, NoCollect: true})
	if err != nil {
		return err
	}
	defer svc.Close()
	a := svc.App()
	var failed int
	for _, f := range files {
		res, err := a.OpenCapture(f)
		if err != nil {
			fmt.Fprintf(g.stderr, "%s: %v\n", f, err)
			failed++
			continue
		}
		fmt.Fprintf(g.stdout, "%s: %s: %d jobs, %d checkpoints, %d ack samples, %d metric samples, %d gaps",
			f, strings.Join(res.Sources, ", "), res.Jobs, res.Checkpoints, res.AckSamples, res.MetricSamples, res.Gaps)
		if res.Skipped > 0 {
			fmt.Fprintf(g.stdout, " (%d unknown records skipped)", res.Skipped)
		}
		fmt.Fprintln(g.stdout)
	}
	if failed > 0 {
		return fmt.Errorf("import: %d of %d files failed", failed, len(files))
	}
	return nil
}
