package capture

import (
	"bytes"
	"context"
	"reflect"
	"strings"
	"testing"

	"checkpoint-explorer/backend/model"
)

const (
	secretUser     = "alice-the-operator"
	secretPassword = "hunter2-s3cr3t-password"
	secretToken    = "eyJhbGciOiJIUzI1NiJ9.bearer-token-value"
	urlPassword    = "url-embedded-pass"
)

func TestNoSecretsWritten(t *testing.T) {
	clusters := []model.Cluster{
		{Name: "basic", Engine: model.EngineFlink, BaseURL: "https://jm:8081",
			Auth: model.Auth{Kind: model.AuthBasic, Username: secretUser, Password: secretPassword}},
		{Name: "bearer", Engine: model.EngineSeaTunnel, BaseURL: "https://st:8080",
			Auth: model.Auth{Kind: model.AuthBearer, Token: secretToken}},
		{Name: "url", Engine: model.EngineFlink, BaseURL: "https://" + secretUser + ":" + urlPassword + "@jm:8081/base?x=1",
			PrometheusURL: "http://" + secretUser + ":" + urlPassword + "@prom:9090"},
	}
	w, buf := newTestWriter(t, testHeader())
	for _, c := range clusters {
		if err := w.Cluster(c); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	plain := gunzip(t, buf.Bytes())
	for _, s := range []string{secretUser, secretPassword, secretToken, urlPassword, "password", "token", "username"} {
		if bytes.Contains(plain, []byte(s)) {
			t.Errorf("the capture contains %q:\n%s", s, plain)
		}
	}

	var got []model.Cluster
	if _, err := Read(context.Background(), buf, Limits{}, Visitor{Cluster: func(c model.Cluster) error {
		got = append(got, c)
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	want := []model.Cluster{
		{Name: "basic", Engine: model.EngineFlink, BaseURL: "https://jm:8081", Auth: model.Auth{Kind: model.AuthBasic}, ReadOnly: true},
		{Name: "bearer", Engine: model.EngineSeaTunnel, BaseURL: "https://st:8080", Auth: model.Auth{Kind: model.AuthBearer}, ReadOnly: true},
		{Name: "url", Engine: model.EngineFlink, BaseURL: "https://jm:8081/base?x=1", PrometheusURL: "http://prom:9090",
			Auth: model.Auth{Kind: model.AuthNone}, ReadOnly: true},
	}
	for i := range want {
		if i >= len(got) || !reflect.DeepEqual(got[i], want[i]) {
			t.Errorf("cluster %d = %+v, want %+v", i, got, want[i])
		}
	}
}

// A capture written by something else may carry secrets; the reader must not
// pass them on, and must not let the cluster be polled.
func TestReaderDropsSecrets(t *testing.T) {
	data := lines(headerLine,
		`{"type":"cluster","name":"x","engine":"flink","base_url":"https://u:`+urlPassword+`@jm","auth":{"kind":"basic","username":"`+secretUser+`","password":"`+secretPassword+`","token":"`+secretToken+`"},"read_only":false}`,
		`{"type":"cluster","name":"y","engine":"flink","base_url":"://not a url `+urlPassword+`"}`,
		`{"type":"end","records":2}`)
	var got []model.Cluster
	if _, err := Read(context.Background(), bytes.NewReader(data), Limits{}, Visitor{Cluster: func(c model.Cluster) error {
		got = append(got, c)
		return nil
	}}); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("got %d clusters", len(got))
	}
	for _, c := range got {
		s := strings.Join([]string{c.BaseURL, c.Auth.Username, c.Auth.Password, c.Auth.Token}, " ")
		for _, secret := range []string{secretUser, secretPassword, secretToken, urlPassword} {
			if strings.Contains(s, secret) {
				t.Errorf("cluster %s still carries %q", c.Name, secret)
			}
		}
		if !c.ReadOnly {
			t.Errorf("cluster %s read from a capture is not read-only", c.Name)
		}
	}
	if got[0].Auth.Kind != model.AuthBasic || got[0].BaseURL != "https://jm" {
		t.Errorf("cluster x = %+v", got[0])
	}
	if got[1].BaseURL != "" {
		t.Errorf("an unparsable URL was kept: %q", got[1].BaseURL)
	}
}
