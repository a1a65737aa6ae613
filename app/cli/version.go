package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"checkpoint-explorer/app"
)

func versionCmd(g *globals) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "print the version",
		Long:    "Prints the version, the commit it was built from and the Go version.",
		Example: "  checkpoint-explorer version",
		Args:    noArgs,
		RunE: func(*cobra.Command, []string) error {
			v := (&app.App{}).Version()
			fmt.Fprintf(g.stdout, "checkpoint-explorer %s (commit %s, %s)\n", v.Version, v.Commit, v.GoVersion)
			return nil
		},
	}
}
