package cli

import (
	"context"
	"fmt"

	"checkpoint-explorer/app"
)

func runVersion(_ context.Context, g *globals, args []string) error {
	fs := newFlagSet(g, "version", "", "Prints the version.")
	if err := fs.Parse(args); err != nil {
		return err
	}
	v := (&app.App{}).Version()
	fmt.Fprintf(g.stdout, "checkpoint-explorer %s (commit %s, %s)\n", v.Version, v.Commit, v.GoVersion)
	return nil
}
