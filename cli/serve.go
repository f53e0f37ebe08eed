package cli

import (
	"github.com/spf13/cobra"

	"github.com/feedbridge/feedbridge/daemon"
)

func (a *app) serveCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "serve", Short: "Run the daemon: HTTP API, connectors and insight workers", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.loadConfig()
			if err != nil {
				return err
			}
			if problems := cfg.Validate(); len(problems) > 0 {
				return problemsError("config", problems)
			}
			demo, _ := cmd.Flags().GetBool("demo")
			return daemon.Run(cmd.Context(), cfg, daemon.Options{Demo: demo, Out: a.stdout, Version: Version})
		}}
	cmd.Flags().Bool("demo", false, "seed a demo workspace when the store is empty and print its key")
	return cmd
}
