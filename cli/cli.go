// Package cli is feedbridge's command line: the daemon, migrations and the admin commands,
// each working straight on the configured store. Errors exit 1, usage errors 2.
package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/feedbridge/feedbridge/api"
	"github.com/feedbridge/feedbridge/config"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

// Version is set at build time with -ldflags "-X github.com/feedbridge/feedbridge/cli.Version=…".
var Version = "dev"

// usageError marks a wrong invocation (exit 2) as opposed to a failure (exit 1).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// app carries what every command shares.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	configPath     string
	json           bool
	root           *cobra.Command
}

// Main runs the CLI with args and returns the process exit code.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr}
	root := a.rootCommand()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return 0
	}
	code := 1
	var ue usageError
	// cobra reports unknown commands and subcommands as plain errors; they are usage errors all the same.
	if errors.As(err, &ue) || strings.HasPrefix(err.Error(), "unknown command") {
		code = 2
	}
	if a.json || slices.Contains(args, "--json") || slices.Contains(args, "--json=true") {
		// A script that asked for JSON reads errors as JSON too; the exit code says the same as ever.
		enc := json.NewEncoder(stderr)
		enc.SetEscapeHTML(false)
		_ = enc.Encode(map[string]any{"success": false, "error": personal(err), "exit_code": code})
		return code
	}
	fmt.Fprintln(stderr, "error:", personal(err))
	return code
}

func (a *app) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:           "feedbridge",
		Short:         "Customer feedback from Slack, email and CSV into one workspace API",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	a.root = root
	root.PersistentFlags().StringVar(&a.configPath, "config", os.Getenv("FEEDBRIDGE_CONFIG"), "config file (env FEEDBRIDGE_CONFIG)")
	root.PersistentFlags().BoolVar(&a.json, "json", false, "print one JSON document on stdout")
	config.AddFlags(root.PersistentFlags())
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(a.serveCommand(), a.migrateCommand(), a.workspaceCommand(), a.keyCommand(),
		a.lookupCommand(core.LookupTag), a.lookupCommand(core.LookupProduct), a.userCommand(), a.companyCommand(),
		a.importCommand(), a.recordCommand(), a.insightsCommand(), a.eventsCommand(), a.backupCommand(), a.configCommand(), a.versionCommand(),
		a.reloadCommand(), a.contactCommand(), a.memberCommand())
	markUsage(root)
	return root
}

// markUsage makes argument-count errors of every command usage errors (exit 2).
func markUsage(c *cobra.Command) {
	if c.Args != nil {
		check := c.Args
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := check(cmd, args); err != nil {
				return usageError{err}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		markUsage(sub)
	}
}

// loadConfig reads the layered configuration for this invocation.
func (a *app) loadConfig() (*config.Config, error) {
	cfg, err := config.Load(a.configPath, a.root.PersistentFlags())
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	return cfg, nil
}

// open loads the configuration and opens the store for mode: a command that only reads opens it
// read-only, one that writes migrates only when a migration is pending; either shares the store with a
// running daemon (see sqlite.Mode).
func (a *app) open(ctx context.Context, mode sqlite.Mode) (*core.Service, *config.Config, func(), error) {
	cfg, err := a.loadConfig()
	if err != nil {
		return nil, nil, nil, err
	}
	st, err := store.OpenFor(ctx, cfg.Store.URL, mode)
	if err != nil {
		return nil, nil, nil, err
	}
	svc := core.NewService(st, core.Options{
		Companies: core.NewCompanyResolver(cfg.Companies.PersonalDomains.Add, cfg.Companies.PersonalDomains.Remove),
		Sources:   cfg.SourceSet(),
		// Event bodies show a record exactly as the API does.
		RecordView: api.NewRecordView,
	})
	return svc, cfg, func() { st.Close() }, nil
}

// withService runs fn, which writes, with an open service and closes it afterwards.
func (a *app) withService(cmd *cobra.Command, fn func(ctx context.Context, svc *core.Service) error) error {
	return a.withMode(cmd, sqlite.ModeCommand, fn)
}

// withReader runs fn, which only reads, with a service over a read-only store.
func (a *app) withReader(cmd *cobra.Command, fn func(ctx context.Context, svc *core.Service) error) error {
	return a.withMode(cmd, sqlite.ModeReadOnly, fn)
}

func (a *app) withMode(cmd *cobra.Command, mode sqlite.Mode, fn func(ctx context.Context, svc *core.Service) error) error {
	svc, _, closeFn, err := a.open(cmd.Context(), mode)
	if err != nil {
		return err
	}
	defer closeFn()
	if err := workspaceExists(cmd, svc); err != nil {
		return err
	}
	// Every change made from the command line is credited to it in the records' history.
	return fn(core.WithActor(cmd.Context(), core.Actor{Kind: core.ActorCLI}), svc)
}

// workspaceExists refuses a --workspace that names no workspace, for every command that takes one: a
// listing of a workspace that does not exist would otherwise print an empty table and succeed, as if it
// were an empty workspace.
func workspaceExists(cmd *cobra.Command, svc *core.Service) error {
	f := cmd.Flags().Lookup("workspace")
	if f == nil || !f.Changed {
		return nil
	}
	id, err := core.ParseID(f.Value.String())
	if err != nil {
		return usagef("--workspace: %v", err)
	}
	if _, err := svc.Workspace(cmd.Context(), id); errors.Is(err, core.ErrNotFound) {
		return fmt.Errorf("workspace %s does not exist (see feedbridge workspace list)", id)
	} else if err != nil {
		return fmt.Errorf("workspace %s: %w", id, err)
	}
	return nil
}

// internalPrefix matches the store packages' context in an error ("sqlite: revoke key: …"), which tells a
// person nothing; the rest of the message stays.
var internalPrefix = regexp.MustCompile(`(^|: )(sqlite|postgres): `)

// personal is err's message as the command line prints it.
func personal(err error) string {
	return internalPrefix.ReplaceAllString(err.Error(), "$1")
}

// print writes v as JSON with --json, or calls text otherwise.
func (a *app) print(v any, text func(w io.Writer)) error {
	if a.json {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	text(a.stdout)
	return nil
}

// required returns a usage error when a required flag is missing.
func required(cmd *cobra.Command, names ...string) error {
	var missing []string
	for _, n := range names {
		if f := cmd.Flags().Lookup(n); f == nil || !f.Changed {
			missing = append(missing, "--"+n)
		}
	}
	if len(missing) > 0 {
		return usagef("missing required flag(s): %s", strings.Join(missing, ", "))
	}
	return nil
}

// workspaceFlag reads and validates --workspace.
func workspaceFlag(cmd *cobra.Command) (core.ID, error) {
	if err := required(cmd, "workspace"); err != nil {
		return "", err
	}
	v, _ := cmd.Flags().GetString("workspace")
	id, err := core.ParseID(v)
	if err != nil {
		return "", usagef("--workspace: %v", err)
	}
	return id, nil
}

// optionalWorkspace is --workspace when given, "" (every workspace) otherwise.
func optionalWorkspace(cmd *cobra.Command) (core.ID, error) {
	if !cmd.Flags().Changed("workspace") {
		return "", nil
	}
	return workspaceFlag(cmd)
}

// problemsError lists every problem in one error.
func problemsError(what string, problems []error) error {
	msgs := make([]string, len(problems))
	for i, p := range problems {
		msgs[i] = p.Error()
	}
	return fmt.Errorf("%s: %s", what, strings.Join(msgs, "; "))
}
