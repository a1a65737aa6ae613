package otlpexport

import (
	"context"
	"encoding/pem"
	"errors"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// httpsReceiver is an OTLP/HTTP receiver over TLS, and a CA file trusting it.
func httpsReceiver(t *testing.T) (r *receiver, caFile string) {
	r, srv := startHTTP(t, &receiver{}, httptest.NewTLSServer)
	caFile = filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(caFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return r, caFile
}

// OTLP/HTTP over TLS trusts the CA file given, or skips verification when asked, and not the
// receiver's certificate otherwise: the exporter's own HTTP client keeps the TLS settings.
func TestHTTPSTrustsWhatOptionsSay(t *testing.T) {
	job, cps := knobJob(t)
	rcv, caFile := httpsReceiver(t)
	for _, c := range []struct {
		name  string
		o     Options
		trust bool
	}{
		{"CA file", Options{CAFile: caFile}, true},
		{"no verification", Options{InsecureSkipVerify: true}, true},
		{"system roots", Options{}, false},
	} {
		c.o.Endpoint, c.o.Timeout = rcv.endpoint, 2*time.Second
		res, err := newExporter(t, c.o).Export(context.Background(), job, cps[:2], nil)
		var e *Error
		switch {
		case c.trust && (err != nil || len(res.Sent) != 2):
			t.Errorf("%s: %v, sent %d of 2", c.name, err, len(res.Sent))
		case !c.trust && (!errors.As(err, &e) || e.Refusal != Transient || e.Answer != ""):
			t.Errorf("%s: %v; want an *Error without an answer (the certificate is not trusted)", c.name, err)
		}
	}
}
