package cli

import (
	"fmt"
	"os"
	"runtime/debug"

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
			pidPath, err := pidFile(cmd, cfg)
			if err != nil {
				// Only `feedbridge reload` is lost without the file; SIGHUP still works.
				fmt.Fprintf(a.stderr, "warning: %v; reload with SIGHUP\n", err)
			}
			setGCPercent()
			demo, _ := cmd.Flags().GetBool("demo")
			return daemon.Run(cmd.Context(), cfg, daemon.Options{Demo: demo, Out: a.stdout, Version: Version,
				Reload: a.loadConfig, PIDFile: pidPath})
		}}
	cmd.Flags().Bool("demo", false, "seed a demo workspace when the store is empty and print its key")
	cmd.Flags().String("pid-file", "", "where to write the process id for `feedbridge reload` (default: serve.pid in a private folder beside a SQLite store, PATH.run; for PostgreSQL in the runtime folder)")
	return cmd
}

// daemonGCPercent is the garbage collector's target for the daemon when GOGC is not set. Its live heap is
// small, so letting the heap grow to three times it rather than twice costs little memory and saves
// collector CPU that the connectors and the store can use. BenchmarkIngest in connectors/email runs with the
// same value, so its collector CPU and peak heap per message are the daemon's (figures in bench/RESULTS.md),
// and so does the benchmark's fairness part, whose API runs inside the benchmark's process.
const daemonGCPercent = 200

// setGCPercent applies daemonGCPercent unless the operator chose with GOGC.
func setGCPercent() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(daemonGCPercent)
	}
}
