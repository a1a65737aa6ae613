package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"checkpoint-explorer/app"
)

type collectFlags struct {
	metricsAddr string
	clusters    []string
	// The export (--export-otlp and its credentials).
	exportOTLP, exportTokenEnv, exportTokenKeychain, exportCA string
	exportHeaders, exportHeaderEnvs, exportHeaderKeychains    []string
}

func init() {
	valueNames["export-otlp"], valueNames["export-header"], valueNames["export-header-env"] = "URL", "KEY=VALUE", "KEY=VAR"
	valueNames["export-token-env"], valueNames["export-ca"] = "VAR", "FILE"
	valueNames["export-token-keychain"], valueNames["export-header-keychain"] = "NAME", "KEY=NAME"
}

func collectCmd(g *globals) *cobra.Command {
	f := collectFlags{metricsAddr: "127.0.0.1:9464"}
	cmd := &cobra.Command{
		Use:   "collect [flags]",
		Short: "run the collector without a window: poll the configured clusters into the cache until stopped",
		Long: `Polls the configured clusters (all, or those --cluster names) into the cache, with the same request
budgets, retention and reconciliation as the app, until SIGTERM or Ctrl-C stops it (exit status 0,
each job's last checkpoints stored first). Its health is on /metrics at --metrics-addr (docs/collector.md).
The window, 'serve' and 'status' can read the same cache meanwhile. Several collectors can share
the clusters: give each its own --cluster names.

With --export-otlp it also sends every final checkpoint it stores to an OTLP endpoint (Jaeger, an
OpenTelemetry Collector) as Flink's checkpoint spans, which the app's traces source reads back. The
cache is the spool: what the endpoint has not taken waits there (within retention) and is sent
once it is back, also after a restart; each checkpoint's spans have ids of their own, so one sent
twice is read once. Secrets come from the OS keychain (--export-token-keychain,
--export-header-keychain; stored with 'checkpoint-explorer keychain set') or the environment
(--export-token-env, --export-header-env), and are never printed.`,
		Example: `  checkpoint-explorer collect
  checkpoint-explorer collect --cluster prod-eu --cluster prod-us --metrics-addr 0.0.0.0:9464
  checkpoint-explorer collect --metrics-addr ""        # no /metrics
  checkpoint-explorer collect --export-otlp http://jaeger:4318
  OTLP_TOKEN=… checkpoint-explorer collect --export-otlp grpcs://otel.example.com:4317 \
      --export-token-env OTLP_TOKEN --export-header X-Scope-OrgID=team-a --export-ca /etc/ssl/otel-ca.pem
  checkpoint-explorer collect --export-otlp https://otel.example.com:4318 --export-token-keychain team-otlp`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCollect(cmd.Context(), g, f) },
	}
	fs := cmd.Flags()
	fs.StringSliceVar(&f.clusters, "cluster", nil, "collect only this configured cluster (repeat for several; default: all)")
	fs.StringVar(&f.metricsAddr, "metrics-addr", f.metricsAddr, `serve /metrics here ("": not at all)`)
	fs.StringVar(&f.exportOTLP, "export-otlp", "", "send the final checkpoints to this OTLP endpoint: http(s)://host:4318 (OTLP/HTTP) or grpc(s)://host:4317 (OTLP/gRPC)")
	fs.StringArrayVar(&f.exportHeaders, "export-header", nil, "a header sent with every export request (repeat); it shows in the process list: secrets go in --export-header-env")
	fs.StringArrayVar(&f.exportHeaderEnvs, "export-header-env", nil, "a header whose value is in the environment variable VAR (repeat)")
	fs.StringVar(&f.exportTokenEnv, "export-token-env", "", "the environment variable holding a bearer token for the endpoint (Authorization: Bearer …)")
	fs.StringArrayVar(&f.exportHeaderKeychains, "export-header-keychain", nil, "a header whose value is the OS keychain entry NAME (repeat; 'keychain set NAME' stores it)")
	fs.StringVar(&f.exportTokenKeychain, "export-token-keychain", "", "the OS keychain entry holding a bearer token for the endpoint ('keychain set NAME' stores it)")
	fs.StringVar(&f.exportCA, "export-ca", "", "a PEM bundle of the CAs trusted for an https:// or grpcs:// endpoint, instead of the system's")
	flagGroup(fs, "Export", "export-otlp", "export-header", "export-header-env", "export-header-keychain", "export-token-env",
		"export-token-keychain", "export-ca")
	return cmd
}

// exportOptions are the --export-* flags as the app takes them; the secrets are read from the
// environment and the OS keychain here, and no error quotes one.
func (f collectFlags) exportOptions() (app.ExportOptions, error) {
	var o app.ExportOptions
	if f.exportOTLP == "" {
		if len(f.exportHeaders)+len(f.exportHeaderEnvs)+len(f.exportHeaderKeychains) > 0 || f.exportTokenEnv != "" ||
			f.exportTokenKeychain != "" || f.exportCA != "" {
			return o, errors.New("collect: the --export-* flags need --export-otlp URL")
		}
		return o, nil
	}
	env := func(flag, name string) (string, error) {
		v := os.Getenv(name)
		if name == "" || v == "" {
			return "", fmt.Errorf("collect: %s: the environment variable %q is not set or empty", flag, name)
		}
		return v, nil
	}
	o.OTLP.Endpoint, o.OTLP.CAFile, o.OTLP.Headers = f.exportOTLP, f.exportCA, map[string]string{}
	for _, kv := range f.exportHeaders {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return o, errors.New("collect: --export-header takes KEY=VALUE (one has no key or no '='; its text is not shown: it may be a secret)")
		}
		o.OTLP.Headers[strings.TrimSpace(k)] = v
	}
	for _, kv := range f.exportHeaderEnvs {
		k, name, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return o, fmt.Errorf("collect: --export-header-env %q: want KEY=VAR", kv)
		}
		v, err := env("--export-header-env "+k, name)
		if err != nil {
			return o, err
		}
		o.OTLP.Headers[strings.TrimSpace(k)] = v
	}
	for _, kv := range f.exportHeaderKeychains {
		k, name, ok := strings.Cut(kv, "=")
		if !ok || strings.TrimSpace(k) == "" {
			return o, fmt.Errorf("collect: --export-header-keychain %q: want KEY=NAME", kv)
		}
		v, err := exportSecret(name)
		if err != nil {
			return o, fmt.Errorf("collect: --export-header-keychain %s: %w", k, err)
		}
		o.OTLP.Headers[strings.TrimSpace(k)] = v
	}
	if f.exportTokenEnv != "" && f.exportTokenKeychain != "" {
		return o, errors.New("collect: give the token once: --export-token-env or --export-token-keychain")
	}
	if f.exportTokenEnv != "" {
		v, err := env("--export-token-env", f.exportTokenEnv)
		if err != nil {
			return o, err
		}
		o.OTLP.BearerToken = v
	}
	if f.exportTokenKeychain != "" {
		v, err := exportSecret(f.exportTokenKeychain)
		if err != nil {
			return o, fmt.Errorf("collect: --export-token-keychain: %w", err)
		}
		o.OTLP.BearerToken = v
	}
	return o, nil
}

func runCollect(ctx context.Context, g *globals, f collectFlags) error {
	export, err := f.exportOptions()
	if err != nil {
		return err
	}
	svc, err := openApp(ctx, g, app.Options{NoSample: true, Clusters: f.clusters, Export: export})
	if err != nil {
		return err
	}
	defer svc.Close()
	list, err := svc.App().ListClusters()
	if err != nil {
		return err
	}
	var configured, taken []string
	for _, s := range list {
		if s.Kind == app.SourceCluster {
			configured = append(configured, s.Name)
		}
	}
	for _, name := range f.clusters {
		if !slices.Contains(configured, name) {
			return fmt.Errorf("collect: no cluster is configured as %q (configured: %s; see 'checkpoint-explorer clusters add')",
				name, orNone(configured))
		}
	}
	taken = configured
	if len(f.clusters) > 0 {
		taken = f.clusters
	}
	if len(taken) == 0 {
		return errors.New("collect: no cluster is configured: add one with 'checkpoint-explorer clusters add'")
	}
	exporting, err := svc.StartExport()
	if err != nil {
		return fmt.Errorf("collect: --export-otlp: %w", err)
	}
	where := "no /metrics"
	if f.metricsAddr != "" {
		ln, err := net.Listen("tcp", f.metricsAddr)
		if err != nil {
			return fmt.Errorf("collect: --metrics-addr %s: %w", f.metricsAddr, err)
		}
		mux := http.NewServeMux()
		mux.Handle("GET /metrics", svc.Metrics())
		srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
		go srv.Serve(ln)
		defer srv.Close()
		where = "metrics at http://" + ln.Addr().String() + "/metrics"
	}
	fmt.Fprintf(g.stdout, "collecting %d clusters (%s) into %s; %s; SIGTERM or Ctrl-C stops\n",
		len(taken), strings.Join(taken, ", "), svc.Paths().Cache, where)
	if exporting != "" {
		fmt.Fprintf(g.stdout, "exporting the final checkpoints to %s; what it has not taken waits in the cache\n", exporting)
	}
	<-ctx.Done()
	fmt.Fprintln(g.stdout, "stopping: storing each job's last checkpoints")
	return nil
}

func orNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
