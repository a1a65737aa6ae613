package restclient

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
)

// TestOpenEngineRejectsBadConfig covers the checks every engine source's New makes (they are
// this function's; each source only prefixes its name).
func TestOpenEngineRejectsBadConfig(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		cfg  EngineConfig
		want string
	}{
		{"empty url", EngineConfig{}, "empty base URL"},
		{"no scheme", EngineConfig{BaseURL: "127.0.0.1:8081"}, "does not parse (want e.g. http://127.0.0.1:8081)"},
		{"host only", EngineConfig{BaseURL: "localhost"}, `scheme ""`},
		{"ftp", EngineConfig{BaseURL: "ftp://h"}, `scheme "ftp"`},
		{"no host", EngineConfig{BaseURL: "http://"}, "no host"},
		{"query", EngineConfig{BaseURL: "http://h/?a=1"}, "query or fragment"},
		{"credentials in URL", EngineConfig{BaseURL: "http://u:secretpw@h"}, "must not contain credentials"},
		{"basic without user", EngineConfig{BaseURL: "http://h", Auth: model.Auth{Kind: model.AuthBasic}}, "needs a username"},
		{"basic with a password but no user", EngineConfig{BaseURL: "http://h", Auth: model.Auth{Kind: model.AuthBasic, Password: "p"}}, "needs a username"},
		{"bearer without token", EngineConfig{BaseURL: "http://h", Auth: model.Auth{Kind: model.AuthBearer}}, "needs a token"},
		{"unknown auth", EngineConfig{BaseURL: "http://h", Auth: model.Auth{Kind: "kerberos"}}, `unknown auth kind "kerberos"`},
		{"missing CA file", EngineConfig{BaseURL: "https://h", CAFile: filepath.Join(dir, "none.pem")}, "read CA file"},
		{"CA file without certs", EngineConfig{BaseURL: "https://h", CAFile: notPEM}, "no PEM certificates"},
		{"negative limit", EngineConfig{BaseURL: "http://h", MaxBodyBytes: -1}, "negative"},
		{"negative timeout", EngineConfig{BaseURL: "http://h", Timeout: -1}, "negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := OpenEngine(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "secretpw") {
				t.Fatalf("error leaks the password: %v", err)
			}
		})
	}
}
