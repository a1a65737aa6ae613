package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"checkpoint-explorer/app"
)

type collectFlags struct {
	metricsAddr string
	clusters    []string
}

func collectCmd(g *globals) *cobra.Command {
	f := collectFlags{metricsAddr: "127.0.0.1:9464"}
	cmd := &cobra.Command{
		Use:     "collect [flags]",
		GroupID: groupMove,
		Short:   "run the collector without a window: poll the configured clusters into the cache until stopped",
		Long: "Polls the configured clusters (all, or those --cluster names) into the cache, with the same request\n" +
			"budgets, retention and reconciliation as the app, until SIGTERM or Ctrl-C stops it (exit status 0,\n" +
			"each job's last checkpoints stored first). Its health is on /metrics at --metrics-addr (docs/collector.md).\n" +
			"The window, `serve` and `status` can read the same cache meanwhile. Several collectors can share\n" +
			"the clusters: give each its own --cluster names.",
		Example: `  checkpoint-explorer collect
  checkpoint-explorer collect --cluster prod-eu --cluster prod-us --metrics-addr 0.0.0.0:9464
  checkpoint-explorer collect --metrics-addr ""        # no /metrics`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runCollect(cmd.Context(), g, f) },
	}
	fs := cmd.Flags()
	fs.StringSliceVar(&f.clusters, "cluster", nil, "collect only this configured cluster (repeat for several; default: all)")
	fs.StringVar(&f.metricsAddr, "metrics-addr", f.metricsAddr, `serve /metrics here ("": not at all)`)
	return cmd
}

func runCollect(ctx context.Context, g *globals, f collectFlags) error {
	svc, err := openApp(ctx, g, app.Options{NoSample: true, Clusters: f.clusters})
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
