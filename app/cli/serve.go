package cli

import (
	"context"
	"fmt"
	"os"

	"github.com/pkg/browser"

	"checkpoint-explorer/app"
	"checkpoint-explorer/app/serve"
)

func runServe(ctx context.Context, g *globals, args []string) error {
	fs := newFlagSet(g, "serve", "[--addr 127.0.0.1:PORT] [--open]",
		"Serves the UI and the facade's methods as a local JSON API (docs/api.md). Every request needs the\n"+
			"per-run token in the printed URL; requests with a foreign Host or Origin are refused.")
	addr := fs.String("addr", "127.0.0.1:0", "listen address (loopback only; port 0 picks a free one)")
	open := fs.Bool("open", false, "open the URL in the default browser")
	token := fs.String("token", "", "use this token instead of a random one (for scripts; keep it secret)")
	noCollect := fs.Bool("no-collect", false, "do not poll clusters; only show what is cached")
	if err := fs.Parse(args); err != nil {
		return err
	}
	svc, err := openApp(ctx, g, app.Options{NoCollect: *noCollect})
	if err != nil {
		return err
	}
	defer svc.Close()
	srv, err := serve.New(svc, serve.Options{
		Addr: *addr, Assets: g.opts.Assets, Token: *token, Metrics: svc.Metrics(),
		Ready: func(u string) {
			fmt.Fprintf(g.stdout, "Checkpoint Explorer is serving at\n  %s\n(only this machine can reach it; the token in the URL is required; Ctrl-C stops)\n", u)
			if f, ok := g.stdout.(*os.File); ok {
				f.Sync()
			}
			if *open {
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
