package app

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zalando/go-keyring"

	"checkpoint-explorer/backend/model"
	"checkpoint-explorer/testenv/keyringenv"
)

// inChild runs test name again in a child process with env: the D-Bus
// connection the keychain uses is made once per process, so each kind of
// session (a real Secret Service, none) gets its own.
func inChild(t *testing.T, name, kind string, env []string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^"+name+"$", "-test.v", "-test.count=1")
	cmd.Env = append(append(os.Environ(), env...), "CE_KEYCHAIN_CHILD="+kind)
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: "+name) {
		t.Fatalf("%s (%s) in a child process: %v\n%s", name, kind, err, out)
	}
}

func bearer(name, token string) model.Cluster {
	return model.Cluster{Name: name, Engine: model.EngineFlink, BaseURL: "http://127.0.0.1:8081",
		Auth: model.Auth{Kind: model.AuthBearer, Token: token}}
}

// With a real Secret Service (Debian's GNOME keyring on a private bus), a
// cluster's token goes to the keychain, not the file, and comes back on
// load; a token already in the file moves over, saying so; removing the
// cluster removes its entry; the app stores a token the UI saves there.
func TestKeychainHoldsTheSecrets(t *testing.T) {
	if os.Getenv("CE_KEYCHAIN_CHILD") == "" {
		if os.Getenv("CE_SKIP_REAL") != "" {
			t.Skip("CE_SKIP_REAL: no keyring daemon")
		}
		inChild(t, t.Name(), "real", keyringenv.Start(t))
		return
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	f := newConfigFile(path, Options{DataDir: dir, Keychain: "on"}, log)
	if !f.keychain.available() {
		t.Fatalf("the keyring daemon does not answer: %v", f.keychain.err)
	}
	if err := f.save(Config{Clusters: []model.Cluster{bearer("prod", "s3cret-token"), bearer("open", "")}}); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if bytes.Contains(b, []byte("s3cret-token")) || !bytes.Contains(b, []byte(`"secrets_in_keychain": [`)) {
		t.Fatalf("the config file holds the token, or does not say where it is:\n%s", b)
	}
	if v, err := keyring.Get(keychainService, "prod/token"); err != nil || v != "s3cret-token" {
		t.Fatalf("keychain: %q, %v", v, err)
	}
	got, err := newConfigFile(path, Options{DataDir: dir, Keychain: "on"}, log).load()
	if err != nil || len(got.Clusters) != 2 || got.Clusters[1].Auth.Token != "s3cret-token" {
		t.Fatalf("loaded %+v, %v", got.Clusters, err)
	}

	// A token an older version left in the file moves to the keychain.
	old := filepath.Join(dir, "old.json")
	if err := (&configFile{path: old}).save(Config{Clusters: []model.Cluster{bearer("legacy", "old-token")}}); err != nil {
		t.Fatal(err)
	}
	got, err = newConfigFile(old, Options{DataDir: dir, Keychain: "on"}, log).load()
	if err != nil || got.Clusters[0].Auth.Token != "old-token" {
		t.Fatalf("loaded %+v, %v", got.Clusters, err)
	}
	if b, _ := os.ReadFile(old); bytes.Contains(b, []byte("old-token")) {
		t.Fatalf("the token stayed in the file:\n%s", b)
	}
	if v, _ := keyring.Get(keychainService, "legacy/token"); v != "old-token" {
		t.Fatalf("the moved token is not in the keychain: %q", v)
	}
	if !strings.Contains(logs.String(), "moved secrets from the config file to the OS keychain") {
		t.Errorf("the move was not logged:\n%s", logs.String())
	}

	// Removing the cluster removes its entry.
	g := newConfigFile(path, Options{DataDir: dir, Keychain: "on"}, log)
	if _, err := g.load(); err != nil {
		t.Fatal(err)
	}
	if err := g.save(Config{Clusters: []model.Cluster{bearer("open", "")}}); err != nil {
		t.Fatal(err)
	}
	if _, err := keyring.Get(keychainService, "prod/token"); err != keyring.ErrNotFound {
		t.Fatalf("the removed cluster's token is still in the keychain: %v", err)
	}

	// Through the app: a cluster the UI saves keeps its token in the keychain.
	appDir := t.TempDir()
	svc, err := NewService(context.Background(), Options{DataDir: appDir, Keychain: "on", NoSample: true, NoCollect: true, Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	if err := svc.App().SaveCluster(ClusterInput{Name: "ui", Engine: model.EngineFlink, BaseURL: "http://127.0.0.1:8081",
		Auth: model.Auth{Kind: model.AuthBearer, Token: "from-the-form"}}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(appDir, "config.json")); bytes.Contains(b, []byte("from-the-form")) {
		t.Fatalf("the app wrote the token to its config file:\n%s", b)
	}
	if v, _ := keyring.Get(keychainService, "ui/token"); v != "from-the-form" {
		t.Fatalf("the app's token is not in the keychain: %q", v)
	}
	if strings.Contains(logs.String(), "from-the-form") || strings.Contains(logs.String(), "s3cret-token") {
		t.Errorf("a secret reached the log:\n%s", logs.String())
	}
}

// Without a Secret Service (no session bus) the secrets stay in the 0600
// file, the app says so once, and nothing is lost.
func TestWithoutAKeychainSecretsStayInTheFile(t *testing.T) {
	if os.Getenv("CE_KEYCHAIN_CHILD") == "" {
		none := t.TempDir()
		inChild(t, t.Name(), "none", []string{"DBUS_SESSION_BUS_ADDRESS=unix:path=" + filepath.Join(none, "no-bus"),
			"XDG_RUNTIME_DIR=" + none})
		return
	}
	var logs bytes.Buffer
	log := slog.New(slog.NewTextHandler(&logs, nil))
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	f := newConfigFile(path, Options{Keychain: "on"}, log)
	if f.keychain.available() {
		t.Fatal("a keychain answered without a session bus")
	}
	if err := f.save(Config{Clusters: []model.Cluster{bearer("prod", "file-token")}}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("config file: %v, mode %v", err, fi.Mode())
	}
	got, err := newConfigFile(path, Options{Keychain: "on"}, log).load()
	if err != nil || got.Clusters[0].Auth.Token != "file-token" {
		t.Fatalf("loaded %+v, %v", got.Clusters, err)
	}
	if !strings.Contains(logs.String(), "no OS keychain answers: passwords and tokens stay in the config file") {
		t.Errorf("the fallback was not said:\n%s", logs.String())
	}
}

// A data dir is self-contained: without Keychain "on" it keeps its secrets.
func TestDataDirKeepsItsSecrets(t *testing.T) {
	if f := newConfigFile("x", Options{DataDir: t.TempDir()}, slog.Default()); f.keychain != nil {
		t.Fatal("a --data-dir config uses the OS keychain")
	}
}
