package cli

import (
	"fmt"
	"io"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/feedbridge/feedbridge/config"
	"github.com/feedbridge/feedbridge/connectors"
	"github.com/feedbridge/feedbridge/daemon"
)

// pidFile is --pid-file, or the default place for the configured store.
func pidFile(cmd *cobra.Command, cfg *config.Config) (string, error) {
	if p, _ := cmd.Flags().GetString("pid-file"); p != "" {
		return p, nil
	}
	return daemon.DefaultPIDFile(cfg.Store.URL)
}

// reloadCommand signals the running daemon, found through its pid file, to re-read its configuration. The
// file is checked here first: a configuration with problems is reported and not sent (the daemon would
// refuse it anyway, but only its log would say why).
func (a *app) reloadCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "reload", Short: "Ask the running daemon to re-read its configuration (as SIGHUP)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.loadConfig()
			if err != nil {
				return err
			}
			problems := append(cfg.Validate(), connectors.ValidateAll(cfg.Connectors)...)
			problems = append(problems, cfg.SubscriberSecretProblems()...)
			if len(problems) > 0 {
				return problemsError("reload: not sent, the configuration has problems", problems)
			}
			path, err := pidFile(cmd, cfg)
			if err != nil {
				return fmt.Errorf("reload: %w", err)
			}
			pid, err := daemon.ReadPIDFile(path)
			if err != nil {
				return fmt.Errorf("reload: %w", err)
			}
			if err := syscall.Kill(pid, syscall.SIGHUP); err != nil {
				return fmt.Errorf("reload: signal process %d: %w", pid, err)
			}
			return a.print(map[string]any{"pid": pid, "signal": "SIGHUP"}, func(w io.Writer) {
				fmt.Fprintf(w, "asked feedbridge (pid %d) to reload; its log and /readyz tell whether the new configuration was applied\n", pid)
			})
		}}
	cmd.Flags().String("pid-file", "", "the daemon's pid file (default: the one serve writes for this store)")
	return cmd
}
