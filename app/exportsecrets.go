package app

import (
	"errors"
	"fmt"
	"strings"

	"github.com/zalando/go-keyring"
)

// exportKeychainService names the OS keychain entries of a team collector's export credentials
// (`checkpoint-explorer keychain set NAME`, read by `collect --export-token-keychain NAME`), kept
// apart from the clusters' own entries (keychainService): an entry's NAME is the user's.
const exportKeychainService = keychainService + "-export"

// ErrNoKeychainSecret is a keychain that answers but holds no entry of that name.
var ErrNoKeychainSecret = errors.New("no such entry in the OS keychain")

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
func ExportSecret(name string) (string, error) {
	if err := checkSecretName(name); err != nil {
		return "", err
	}
	v, err := keyring.Get(exportKeychainService, name)
	switch {
	case errors.Is(err, keyring.ErrNotFound):
		return "", fmt.Errorf("keychain: entry %q: %w (store it with 'checkpoint-explorer keychain set %s')", name, ErrNoKeychainSecret, name)
	case err != nil:
		return "", fmt.Errorf("keychain: entry %q: the OS keychain does not answer (%v); on a server without one, use the environment", name, err)
	case v == "":
		return "", fmt.Errorf("keychain: entry %q is empty", name)
	}
	return v, nil
}

// SetExportSecret stores value under name, replacing what was there.
func SetExportSecret(name, value string) error {
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

// DeleteExportSecret removes the entry name; ErrNoKeychainSecret when there was none.
func DeleteExportSecret(name string) error {
	if err := checkSecretName(name); err != nil {
		return err
	}
	err := keyring.Delete(exportKeychainService, name)
	if errors.Is(err, keyring.ErrNotFound) {
		return fmt.Errorf("keychain: entry %q: %w", name, ErrNoKeychainSecret)
	}
	if err != nil {
		return fmt.Errorf("keychain: remove entry %q: %w", name, err)
	}
	return nil
}
