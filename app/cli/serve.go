package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/pkg/browser"
	"github.com/spf13/cobra"

	"checkpoint-explorer/app"
	"checkpoint-explorer/app/serve"
)

type serveFlags struct {
	addr, token     string
	open, noCollect bool
}

func serveCmd(g *globals) *cobra.Command {
	var f serveFlags
	cmd := &cobra.Command{
		Use:   "serve [flags]",
		Short: "serve the UI and the local JSON API to a browser on loopback",
		Long: `Serves the UI and the facade's methods as a local JSON API (docs/api.md). Every request needs the
per-run token in the printed URL; requests with a foreign Host or Origin are refused. Ctrl-C stops
it (exit status 0).`,
		Example: `  checkpoint-explorer serve --open
  checkpoint-explorer serve --addr 127.0.0.1:8099 --no-collect`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runServe(cmd.Context(), g, f) },
	}
	fs := cmd.Flags()
	fs.StringVar(&f.addr, "addr", "127.0.0.1:0", "listen address (loopback only; port 0 picks a free one)")
	fs.BoolVar(&f.open, "open", false, "open the URL in the default browser")
	fs.StringVar(&f.token, "token", "", "use this token instead of a random one (for scripts; keep it secret)")
	fs.BoolVar(&f.noCollect, "no-collect", false, "do not poll clusters; only show what is cached")
	return cmd
}

func runServe(ctx context.Context, g *globals, f serveFlags) error {
	svc, err := openApp(ctx, g, app.Options{NoCollect: f.noCollect})
	if err != nil {
		return err
	}
	defer svc.Close()
	srv, err := serve.New(svc, serve.Options{
		Addr: f.addr, Assets: g.opts.Assets, Token: f.token, Metrics: svc.Metrics(),
		Ready: func(u string) {
			fmt.Fprintf(g.stdout, "Checkpoint Explorer is serving at\n  %s\n(only this machine can reach it; the token in the URL is required; Ctrl-C stops)\n", u)
			if file, ok := g.stdout.(*os.File); ok {
				file.Sync()
			}
			if f.open {
				if err := browser.OpenURL(u); err != nil {
					fmt.Fprintf(g.stderr, "could not open a browser: %v\n", err)
				}
			}
		},
	})
	if err != nil {
		return err
	}
	return srv.ListenAndServe(ctx)
}
