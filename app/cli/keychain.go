package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/zalando/go-keyring"
)

func keychainCmd(g *globals) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "keychain COMMAND NAME",
		Short: "store or remove an export credential in the OS keychain",
		Long: `Stores a credential for collect's OTLP export (a bearer token, a header's value) in the OS keychain
under a name of your choice, for 'collect --export-token-keychain NAME' and
'--export-header-keychain KEY=NAME' (docs/collector.md). The secret is read from stdin, never from
the command line, and never printed. Where there is no keychain (a server without a Secret Service),
use the environment: --export-token-env, --export-header-env.`,
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
			if err := setExportSecret(args[0], secret); err != nil {
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
			if err := deleteExportSecret(args[0]); err != nil {
				return err
			}
			fmt.Fprintf(g.stdout, "removed %q from the OS keychain\n", args[0])
			return nil
		},
	}
	cmd.AddCommand(set, remove)
	return cmd
}

// exportKeychainService names the OS keychain entries of a team collector's export credentials
// (`checkpoint-explorer keychain set NAME`, read by `collect --export-token-keychain NAME`), kept
// apart from the app's own entries of the clusters' secrets ("checkpoint-explorer"): an entry's NAME is the user's.
const exportKeychainService = "checkpoint-explorer-export"

// errNoKeychainSecret is a keychain that answers but holds no entry of that name.
var errNoKeychainSecret = errors.New("no such entry in the OS keychain")

// checkSecretName refuses names a keychain entry should not have: empty, or with control
// characters (a pasted newline).
func checkSecretName(name string) error {
	if strings.TrimSpace(name) == "" {
		return errors.New("keychain: an entry needs a name")
	}
	if strings.ContainsFunc(name, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		return fmt.Errorf("keychain: the entry name %q holds a control character", name)
	}
	return nil
}

// ExportSecret reads the export credential stored under name. Its errors never hold the secret;
// a keychain that does not answer (no Secret Service on a server) says so, for the user to use
// the environment instead.
func exportSecret(name string) (string, error) {
	if err := checkSecretName(name); err != nil {
		return "", err
	}
	v, err := keyring.Get(exportKeychainService, name)
	switch {
	case errors.Is(err, keyring.ErrNotFound):
		return "", fmt.Errorf("keychain: entry %q: %w (store it with 'checkpoint-explorer keychain set %s')", name, errNoKeychainSecret, name)
	case err != nil:
		return "", fmt.Errorf("keychain: entry %q: the OS keychain does not answer (%v); on a server without one, use the environment", name, err)
	case v == "":
		return "", fmt.Errorf("keychain: entry %q is empty", name)
	}
	return v, nil
}

// SetExportSecret stores value under name, replacing what was there.
func setExportSecret(name, value string) error {
	if err := checkSecretName(name); err != nil {
		return err
	}
	if value == "" {
		return fmt.Errorf("keychain: entry %q: no secret given", name)
	}
	if err := keyring.Set(exportKeychainService, name, value); err != nil {
		return fmt.Errorf("keychain: store entry %q: %w", name, err)
	}
	return nil
}

// DeleteExportSecret removes the entry name; errNoKeychainSecret when there was none.
func deleteExportSecret(name string) error {
	if err := checkSecretName(name); err != nil {
		return err
	}
	err := keyring.Delete(exportKeychainService, name)
	if errors.Is(err, keyring.ErrNotFound) {
		return fmt.Errorf("keychain: entry %q: %w", name, errNoKeychainSecret)
	}
	if err != nil {
		return fmt.Errorf("keychain: remove entry %q: %w", name, err)
	}
	return nil
}
