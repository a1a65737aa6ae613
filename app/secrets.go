package app

import (
	"errors"
	"fmt"
	"log/slog"

	"github.com/zalando/go-keyring"

	"checkpoint-explorer/backend/model"
)

// keychainService names the app's entries in the OS keychain (the Secret
// Service on Linux, the login keychain on macOS, the Credential Manager on
// Windows): one entry per cluster and secret, "<cluster>/password" or
// "<cluster>/token".
const keychainService = "checkpoint-explorer"

// keychain keeps the clusters' passwords and tokens out of the config file
// where the OS has a keychain (docs/getting-started.md, "Where data lives").
type keychain struct {
	// err is why there is none (nil when there is one): the secrets then
	// stay in the 0600 config file.
	err error
}

// openKeychain finds out whether the OS keychain answers: asking for an
// entry that does not exist is answered "not found" by a working one.
func openKeychain() *keychain {
	_, err := keyring.Get(keychainService, "probe/none")
	if errors.Is(err, keyring.ErrNotFound) {
		return &keychain{}
	}
	if err == nil {
		return &keychain{}
	}
	return &keychain{err: err}
}

func (k *keychain) available() bool { return k != nil && k.err == nil }

func secretUser(cluster, field string) string { return cluster + "/" + field }

// secretFields are a cluster's secrets by entry name.
func secretFields(a *model.Auth) map[string]*string {
	return map[string]*string{"password": &a.Password, "token": &a.Token}
}

// stash moves the clusters' secrets into the keychain, blanking them in cs,
// and returns the names of the clusters whose secrets it holds. Entries of
// clusters gone from cs (listed in before) are removed.
func (k *keychain) stash(cs []model.Cluster, before []string) ([]string, error) {
	var held []string
	present := map[string]bool{}
	for i := range cs {
		c := &cs[i]
		present[c.Name] = true
		stored := false
		for field, v := range secretFields(&c.Auth) {
			user := secretUser(c.Name, field)
			if *v == "" {
				if err := keyring.Delete(keychainService, user); err != nil && !errors.Is(err, keyring.ErrNotFound) {
					return nil, fmt.Errorf("keychain: remove the %s of cluster %q: %w", field, c.Name, err)
				}
				continue
			}
			if err := keyring.Set(keychainService, user, *v); err != nil {
				return nil, fmt.Errorf("keychain: store the %s of cluster %q: %w", field, c.Name, err)
			}
			*v = ""
			stored = true
		}
		if stored {
			held = append(held, c.Name)
		}
	}
	for _, name := range before {
		if present[name] {
			continue
		}
		for field := range secretFields(&model.Auth{}) {
			if err := keyring.Delete(keychainService, secretUser(name, field)); err != nil && !errors.Is(err, keyring.ErrNotFound) {
				return nil, fmt.Errorf("keychain: remove the %s of removed cluster %q: %w", field, name, err)
			}
		}
	}
	return held, nil
}

// fill puts back the secrets of the clusters named in held. A secret the
// keychain cannot give is left empty and reported, naming the cluster, so
// the app still starts and the user can enter it again.
func (k *keychain) fill(cs []model.Cluster, held []string, log *slog.Logger) {
	in := map[string]bool{}
	for _, n := range held {
		in[n] = true
	}
	for i := range cs {
		c := &cs[i]
		if !in[c.Name] {
			continue
		}
		if !k.available() {
			log.Error("config: the secrets of this cluster are in the OS keychain, which does not answer; enter them again",
				"cluster", c.Name, "err", k.err)
			continue
		}
		for field, v := range secretFields(&c.Auth) {
			s, err := keyring.Get(keychainService, secretUser(c.Name, field))
			switch {
			case err == nil:
				*v = s
			case errors.Is(err, keyring.ErrNotFound):
			default:
				log.Error("config: could not read a secret from the OS keychain; enter it again", "cluster", c.Name,
					"secret", field, "err", err)
			}
		}
	}
}
