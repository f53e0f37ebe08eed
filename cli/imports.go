package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/feedbridge/feedbridge/api"
	"github.com/feedbridge/feedbridge/connectors/csvimport"
	"github.com/feedbridge/feedbridge/core"
)

func (a *app) importCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "import", Short: "Import CSV files and list import runs"}
	csvCmd := &cobra.Command{Use: "csv FILE", Short: "Import one CSV file now", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ws, err := workspaceFlag(cmd)
			if err != nil {
				return err
			}
			pairs, _ := cmd.Flags().GetStringArray("map")
			mapping, err := csvimport.ParseMapping(pairs)
			if err != nil {
				return usagef("--map: %v", err)
			}
			typeName, _ := cmd.Flags().GetString("record-type")
			rt, ok := core.ParseRecordType(typeName)
			if !ok {
				return usagef("--record-type must be Idea, Feedback, Feature or Objective")
			}
			dry, _ := cmd.Flags().GetBool("dry-run")
			return a.withService(cmd, func(ctx context.Context, svc *core.Service) error {
				return a.importCSV(ctx, svc, ws, args[0], csvimport.Options{Connector: csvimport.ConnectorCLI, RecordType: rt, Mapping: mapping, DryRun: dry})
			})
		}}
	csvCmd.Flags().String("workspace", "", "workspace id (required)")
	csvCmd.Flags().StringArray("map", nil, "field=Header mapping, repeatable (title=Subject)")
	csvCmd.Flags().String("record-type", "Feedback", "record type of the imported rows")
	csvCmd.Flags().Bool("dry-run", false, "read and check every row, write nothing")

	runs := &cobra.Command{Use: "runs", Short: "List a workspace's import runs", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ws, err := workspaceFlag(cmd)
			if err != nil {
				return err
			}
			return a.withService(cmd, func(ctx context.Context, svc *core.Service) error {
				rs, err := svc.ImportRuns(ctx, ws)
				if err != nil {
					return err
				}
				out := make([]api.ImportRunView, len(rs))
				for i, r := range rs {
					out[i] = api.NewImportRunView(r)
				}
				return a.print(out, func(w io.Writer) {
					table(w, "ID\tCONNECTOR\tSTATUS\tROWS\tCREATED\tDUPLICATES\tFAILED\tSTARTED\tFILE", func(tw io.Writer) {
						for _, r := range out {
							fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%s\t%s\n", r.ID, r.Connector, r.Status, r.Rows, r.Created, r.Duplicates, r.Failed, r.StartedAt, r.File)
						}
					})
				})
			})
		}}
	runs.Flags().String("workspace", "", "workspace id (required)")
	cmd.AddCommand(csvCmd, runs)
	return cmd
}

// importCSV runs one import with progress on stderr: a live line on a terminal, plain lines otherwise.
func (a *app) importCSV(ctx context.Context, svc *core.Service, ws core.ID, path string, opts csvimport.Options) error {
	start := time.Now()
	tty := false
	if f, ok := a.stderr.(*os.File); ok {
		tty = isatty.IsTerminal(f.Fd())
	}
	opts.Progress = func(r core.ImportRun) {
		rate := float64(r.Rows) / max(time.Since(start).Seconds(), 1e-3)
		line := fmt.Sprintf("rows %d  created %d  duplicates %d  failed %d  (%.0f rows/s)", r.Rows, r.Created, r.Duplicates, r.Failed, rate)
		if tty {
			fmt.Fprintf(a.stderr, "\r\033[K%s", line)
		} else if r.Status == core.ImportRunning {
			fmt.Fprintln(a.stderr, line)
		}
	}
	opts.BadRow = func(line int, reason string) {
		if !tty {
			fmt.Fprintf(a.stderr, "line %d skipped: %s\n", line, reason)
		}
	}
	run, err := csvimport.ImportFile(ctx, svc, ws, path, opts)
	if tty {
		fmt.Fprintln(a.stderr)
	}
	if err != nil && run.ID == "" {
		return fmt.Errorf("import %s: %w", path, err)
	}
	if perr := a.print(api.NewImportRunView(run), func(w io.Writer) {
		verb := "imported"
		if opts.DryRun {
			verb = "checked (dry run, nothing written)"
		}
		fmt.Fprintf(w, "%s %s: %s — %d rows, %d created, %d duplicates, %d failed\n", verb, path, run.Status, run.Rows, run.Created, run.Duplicates, run.Failed)
		if run.Failed > 0 && !opts.DryRun {
			fmt.Fprintf(w, "bad rows and their reasons: %s\n", filepath.Join(filepath.Dir(path), csvimport.ErrorsFileName(path)))
		}
	}); perr != nil {
		return perr
	}
	if err != nil || run.Status == core.ImportFailed {
		return errors.Join(fmt.Errorf("import %s failed", path), err)
	}
	return nil
}
