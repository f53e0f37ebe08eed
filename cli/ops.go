package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"go.yaml.in/yaml/v3"

	"github.com/feedbridge/feedbridge/config"
	"github.com/feedbridge/feedbridge/connectors"
	_ "github.com/feedbridge/feedbridge/connectors/all" // every connector kind
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store"
)

func (a *app) migrateCommand() *cobra.Command {
	return &cobra.Command{Use: "migrate", Short: "Apply the store's migrations (serve also does)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withService(cmd, func(ctx context.Context, svc *core.Service) error {
				if err := svc.Ping(ctx); err != nil {
					return err
				}
				return a.print(map[string]any{"migrated": true}, func(w io.Writer) { fmt.Fprintln(w, "migrations are current") })
			})
		}}
}

// backuper is the optional ability of a store to copy itself online (SQLite).
func (a *app) backupCommand() *cobra.Command {
	return &cobra.Command{Use: "backup FILE", Short: "Write an online, consistent copy of a SQLite store", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.withReader(cmd, func(ctx context.Context, svc *core.Service) error {
				if err := svc.Backup(ctx, args[0]); errors.Is(err, core.ErrNoBackup) {
					return fmt.Errorf("backup: %w; use pg_dump for PostgreSQL", err)
				} else if err != nil {
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
			cfg, err := config.Load(a.configPath, a.root.PersistentFlags())
			if cfg == nil {
				return fmt.Errorf("config: %w", err)
			}
			// Every problem is listed, whichever layer found it: loading (unknown keys, types, secrets),
			// the values, the connector entries, then the store and the workspaces the entries name.
			problems := splitJoined(err)
			problems = append(problems, cfg.Validate()...)
			for _, p := range connectors.ValidateAll(cfg.Connectors) {
				problems = append(problems, splitJoined(p)...)
			}
			problems = append(problems, cfg.SubscriberSecretProblems()...)
			var notes []string
			if !slices.ContainsFunc(problems, func(p error) bool { return strings.HasPrefix(p.Error(), "store.url") }) {
				var storeProblems []error
				storeProblems, notes = store.Check(cmd.Context(), cfg.Store.URL, workspaceUses(cfg))
				problems = append(problems, storeProblems...)
			}
			msgs := make([]string, len(problems))
			for i, p := range problems {
				msgs[i] = personal(p)
			}
			warnings := append(notes, connectors.WarnAll(cfg.Connectors)...)
			if warnings == nil {
				warnings = []string{}
			}
			if err := a.print(map[string]any{"valid": len(problems) == 0, "problems": msgs, "warnings": warnings}, func(w io.Writer) {
				for _, m := range msgs {
					fmt.Fprintln(w, "problem:", m)
				}
				for _, m := range warnings {
					fmt.Fprintln(w, "warning:", m)
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
			ws, err := optionalWorkspace(cmd)
			if err != nil {
				return err
			}
			return a.withReader(cmd, func(ctx context.Context, svc *core.Service) error {
				jobs, err := svc.FailedInsightJobs(ctx, ws)
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
	retry := a.retryCommand("JOB_ID", "job", func(ctx context.Context, svc *core.Service, id core.ID) (int, error) {
		return svc.RetryInsightJobs(ctx, "", id)
	})
	cmd.AddCommand(failed, retry)
	return cmd
}

// splitJoined lists each problem of err on its own: the members of an errors.Join, also of one wrapped
// with context ("connectors.slack: " + a join), which each keep that context.
func splitJoined(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		var out []error
		for _, e := range j.Unwrap() {
			out = append(out, splitJoined(e)...)
		}
		return out
	}
	if inner := errors.Unwrap(err); inner != nil {
		if _, joined := inner.(interface{ Unwrap() []error }); joined {
			if prefix, ok := strings.CutSuffix(err.Error(), inner.Error()); ok {
				var out []error
				for _, e := range splitJoined(inner) {
					out = append(out, fmt.Errorf("%s%w", prefix, e))
				}
				return out
			}
		}
	}
	return []error{err}
}

// workspaceUses maps each connector entry ("connectors.<kind> \"<name>\"") to the workspace it names, for
// the entries whose workspace is a well-formed id (the connector's own check reports the others).
func workspaceUses(cfg *config.Config) map[string]core.ID {
	uses := map[string]core.ID{}
	for kind, entries := range cfg.Connectors {
		for i, e := range entries {
			ws, _ := e["workspace"].(string)
			id, err := core.ParseID(ws)
			if err != nil {
				continue
			}
			name, _ := e["name"].(string)
			if name == "" {
				name = fmt.Sprint(i)
			}
			uses[fmt.Sprintf("connectors.%s %q", kind, name)] = id
		}
	}
	return uses
}
