package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/feedbridge/feedbridge/connectors"
	_ "github.com/feedbridge/feedbridge/connectors/all" // every connector kind
	"github.com/feedbridge/feedbridge/core"
)

func (a *app) migrateCommand() *cobra.Command {
	return &cobra.Command{Use: "migrate", Short: "Apply the store's migrations (serve also does)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withService(cmd, func(ctx context.Context, svc *core.Service) error {
				if err := svc.Store().Ping(ctx); err != nil {
					return err
				}
				return a.print(map[string]any{"migrated": true}, func(w io.Writer) { fmt.Fprintln(w, "migrations are current") })
			})
		}}
}

// backuper is the optional ability of a store to copy itself online (SQLite).
type backuper interface {
	Backup(ctx context.Context, path string) error
}

func (a *app) backupCommand() *cobra.Command {
	return &cobra.Command{Use: "backup FILE", Short: "Write an online, consistent copy of a SQLite store", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withService(cmd, func(ctx context.Context, svc *core.Service) error {
				b, ok := svc.Store().(backuper)
				if !ok {
					return errors.New("backup: this store does not support online backup; use pg_dump for PostgreSQL")
				}
				if err := b.Backup(ctx, args[0]); err != nil {
					return fmt.Errorf("backup: %w", err)
				}
				return a.print(map[string]any{"file": args[0]}, func(w io.Writer) { fmt.Fprintf(w, "backup written to %s\n", args[0]) })
			})
		}}
}

func (a *app) configCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "config", Short: "Show or check the effective configuration"}
	show := &cobra.Command{Use: "show", Short: "Print the effective configuration with secrets masked", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.loadConfig()
			if err != nil {
				return err
			}
			red := cfg.Redacted()
			return a.print(red, func(w io.Writer) {
				enc := yaml.NewEncoder(w)
				enc.SetIndent(2)
				_ = enc.Encode(red)
			})
		}}
	check := &cobra.Command{Use: "check", Short: "Validate the configuration, listing every problem", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := a.loadConfig()
			if err != nil {
				return err
			}
			problems := cfg.Validate()
			problems = append(problems, connectors.ValidateAll(cfg.Connectors)...)
			msgs := make([]string, len(problems))
			for i, p := range problems {
				msgs[i] = p.Error()
			}
			if err := a.print(map[string]any{"valid": len(problems) == 0, "problems": msgs}, func(w io.Writer) {
				for _, m := range msgs {
					fmt.Fprintln(w, "problem:", m)
				}
				if len(msgs) == 0 {
					fmt.Fprintln(w, "configuration is valid")
				}
			}); err != nil {
				return err
			}
			if len(problems) > 0 {
				return fmt.Errorf("config check: %d problem(s)", len(problems))
			}
			return nil
		}}
	cmd.AddCommand(show, check)
	return cmd
}

func (a *app) versionCommand() *cobra.Command {
	return &cobra.Command{Use: "version", Short: "Print the version", Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			return a.print(map[string]string{"version": Version, "go": runtime.Version()}, func(w io.Writer) {
				fmt.Fprintf(w, "feedbridge %s (%s)\n", Version, runtime.Version())
			})
		}}
}

func (a *app) insightsCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "insights", Short: "Inspect and retry failed insight jobs"}
	failed := &cobra.Command{Use: "failed", Short: "List insight jobs that failed their last attempt", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var ws core.ID
			if cmd.Flags().Changed("workspace") {
				id, err := workspaceFlag(cmd)
				if err != nil {
					return err
				}
				ws = id
			}
			return a.withService(cmd, func(ctx context.Context, svc *core.Service) error {
				jobs, err := svc.Store().FailedInsightJobs(ctx, ws)
				if err != nil {
					return err
				}
				type jobJSON struct {
					ID        core.ID `json:"id"`
					Workspace core.ID `json:"workspace"`
					Record    core.ID `json:"record"`
					Attempts  int     `json:"attempts"`
					LastError string  `json:"last_error"`
					UpdatedAt string  `json:"updated_at"`
				}
				out := make([]jobJSON, len(jobs))
				for i, j := range jobs {
					out[i] = jobJSON{j.ID, j.Workspace, j.RecordID, j.Attempts, j.LastError, stamp(j.UpdatedAt)}
				}
				return a.print(out, func(w io.Writer) {
					table(w, "JOB\tWORKSPACE\tRECORD\tATTEMPTS\tLAST ERROR", func(tw io.Writer) {
						for _, j := range out {
							fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", j.ID, j.Workspace, j.Record, j.Attempts, j.LastError)
						}
					})
				})
			})
		}}
	failed.Flags().String("workspace", "", "only this workspace")
	retry := &cobra.Command{Use: "retry JOB_ID|--all", Short: "Queue failed jobs again", Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			allJobs, _ := cmd.Flags().GetBool("all")
			if allJobs == (len(args) == 1) {
				return usagef("give either a JOB_ID or --all")
			}
			var id core.ID
			if len(args) == 1 {
				var err error
				if id, err = core.ParseID(args[0]); err != nil {
					return usagef("%v", err)
				}
			}
			return a.withService(cmd, func(ctx context.Context, svc *core.Service) error {
				n, err := svc.Store().RetryInsightJobs(ctx, "", id)
				if err != nil {
					return err
				}
				if n == 0 && id != "" {
					return fmt.Errorf("insights retry: no failed job %s", id)
				}
				return a.print(map[string]int{"requeued": n}, func(w io.Writer) { fmt.Fprintf(w, "requeued %d job(s)\n", n) })
			})
		}}
	retry.Flags().Bool("all", false, "retry every failed job")
	cmd.AddCommand(failed, retry)
	return cmd
}
