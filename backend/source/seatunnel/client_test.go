package seatunnel

import (
	"context"
	"encoding/pem"
	"errors"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"checkpoint-explorer/backend/source/restclient/restclienttest"
)

// TestNewNamesItself: the checks of Config are restclient's (TestOpenEngineRejectsBadConfig);
// New's errors say they are SeaTunnel's.
func TestNewNamesItself(t *testing.T) {
	if _, err := New(Config{}); err == nil || err.Error() != "seatunnel: empty base URL" {
		t.Errorf("err = %v, want %q", err, "seatunnel: empty base URL")
	}
}

func TestAuthAndSecretsNeverInErrors(t *testing.T) {
	for _, cred := range restclienttest.Credentials() {
		t.Run(cred.Name, func(t *testing.T) {
			f, srv := newFakeZeta(t)
			f.wantAuth = cred.Header
			c := newClient(t, srv.URL, func(c *Config) { c.Auth = cred.Auth })
			if _, err := c.Overview(context.Background()); err != nil {
				t.Fatalf("authorized request failed: %v", err)
			}
			// A server that echoes the request headers into its error body.
			echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(500)
				_, _ = w.Write([]byte(`{"status":"fail","message":"bad header ` + r.Header.Get("Authorization") + `"}`))
			}))
			defer echo.Close()
			c2 := newClient(t, echo.URL, func(c *Config) { c.Auth = cred.Auth })
			_, err := c2.Overview(context.Background())
			if err == nil || restclienttest.Leak(err) != "" {
				t.Fatalf("err = %v, want an error without the secret", err)
			}
			if !strings.Contains(err.Error(), "500 Internal Server Error: bad header") {
				t.Errorf("err = %v, want the engine's message", err)
			}
		})
	}
}

func TestCustomCA(t *testing.T) {
	_, fake := newFakeZeta(t)
	srv := httptest.NewUnstartedServer(fake.Config.Handler)
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is expected
	srv.StartTLS()
	defer srv.Close()
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := newClient(t, srv.URL).Overview(context.Background()); err == nil {
		t.Fatal("a self-signed server was trusted without the CA file")
	}
	if _, err := newClient(t, srv.URL, func(c *Config) { c.CAFile = ca }).Overview(context.Background()); err != nil {
		t.Fatalf("with the CA file: %v", err)
	}
}

func TestBodyLimitAndCancel(t *testing.T) {
	big := `{"projectVersion":"` + strings.Repeat("x", 4096) + `"}`
	srv := serveFiles(t, map[string]string{"/overview": big})
	_, err := newClient(t, srv.URL, func(c *Config) { c.MaxBodyBytes = 1024 }).Overview(context.Background())
	if err == nil || !strings.Contains(err.Error(), "exceeds the 1024 byte limit") {
		t.Fatalf("err = %v, want the size limit named", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = newClient(t, srv.URL).Overview(ctx)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled in the chain", err)
	}
}

func TestOnRequestCountsEndpoints(t *testing.T) {
	f, srv := newFakeZeta(t)
	f.trigger(1, TypeCheckpoint, 2)
	var mu sync.Mutex
	seen := map[string]int{}
	c := newClient(t, srv.URL, func(c *Config) {
		c.OnRequest = func(ri RequestInfo) {
			mu.Lock()
			defer mu.Unlock()
			seen[ri.Endpoint]++
			if ri.Status != 200 || ri.Bytes == 0 || ri.Err != nil {
				t.Errorf("request info %+v", ri)
			}
		}
	})
	ctx := context.Background()
	if _, err := c.Jobs(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Checkpoints(ctx, fakeJobID); err != nil {
		t.Fatal(err)
	}
	want := map[string]int{"/running-jobs": 1, "/finished-jobs": 1, "/jobs/checkpoints/:jobId": 1}
	mu.Lock()
	defer mu.Unlock()
	for k, v := range want {
		if seen[k] != v {
			t.Errorf("endpoint %s: %d requests, want %d (all: %v)", k, seen[k], v, seen)
		}
	}
}
