package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"checkpoint-explorer/app"
)

func keychainCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "keychain COMMAND NAME",
		GroupID: groupSetup,
		Short:   "store or remove an export credential in the OS keychain",
		Long: "Stores a credential for collect's OTLP export (a bearer token, a header's value) in the OS keychain\n" +
			"under a name of your choice, for 'collect --export-token-keychain NAME' and\n" +
			"'--export-header-keychain KEY=NAME' (docs/collector.md). The secret is read from stdin, never from\n" +
			"the command line, and never printed. Where there is no keychain (a server without a Secret Service),\n" +
			"use the environment: --export-token-env, --export-header-env.",
		Example: `  checkpoint-explorer keychain set team-otlp < token.txt
  checkpoint-explorer collect --export-otlp https://otel.example:4318 --export-token-keychain team-otlp
  checkpoint-explorer keychain remove team-otlp`,
		Args: cobra.ArbitraryArgs,
		RunE: groupRunE("set", "remove"),
	}
	set := &cobra.Command{
		Use:     "set NAME",
		Short:   "store the secret read from stdin's first line under NAME",
		Long:    "Stores the first line of stdin under NAME in the OS keychain, replacing what NAME held.",
		Example: "  checkpoint-explorer keychain set team-otlp < token.txt\n  printenv OTLP_TOKEN | checkpoint-explorer keychain set team-otlp",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			secret, err := readSecret(true, "")
			if err != nil {
				return err
			}
			if secret == "" {
				return errors.New("keychain set: stdin held no secret (give it on stdin's first line)")
			}
			if err := app.SetExportSecret(args[0], secret); err != nil {
				return err
			}
			fmt.Fprintf(g.stdout, "stored %q in the OS keychain\n", args[0])
			return nil
		},
	}
	remove := &cobra.Command{
		Use:     "remove NAME",
		Short:   "remove the entry NAME",
		Long:    "Removes the entry NAME from the OS keychain.",
		Example: "  checkpoint-explorer keychain remove team-otlp",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := app.DeleteExportSecret(args[0]); err != nil {
				return err
			}
			fmt.Fprintf(g.stdout, "removed %q from the OS keychain\n", args[0])
			return nil
		},
	}
	cmd.AddCommand(set, remove)
	return cmd
}
