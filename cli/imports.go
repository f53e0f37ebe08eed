package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mattn/go-isatty"
	"github.com/spf13/cobra"

	"github.com/feedbridge/feedbridge/api"
	"github.com/feedbridge/feedbridge/connectors/csvimport"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/sqlite"
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
			orderName, _ := cmd.Flags().GetString("date-order")
			order, err := csvimport.ParseDateOrder(orderName)
			if err != nil {
				return usagef("--date-order %v", err)
			}
			enc, _ := cmd.Flags().GetString("encoding")
			if err := csvimport.CheckEncoding(enc); err != nil {
				return usagef("--%v", err)
			}
			delimName, _ := cmd.Flags().GetString("delimiter")
			delim, err := csvimport.ParseDelimiter(delimName)
			if err != nil {
				return usagef("--delimiter %v", err)
			}
			// An import is long and writes much: like the daemon, it indexes its rows in the background.
			return a.withMode(cmd, sqlite.ModeDaemon, func(ctx context.Context, svc *core.Service) error {
				return a.importCSV(ctx, svc, ws, args[0], csvimport.Options{Connector: csvimport.ConnectorCLI, RecordType: rt, Mapping: mapping, DryRun: dry,
					DateOrder: order, Encoding: enc, Delimiter: delim})
			})
		}}
	csvCmd.Flags().String("workspace", "", "workspace id (required)")
	csvCmd.Flags().StringArray("map", nil, "field=Header mapping, repeatable (title=Subject)")
	csvCmd.Flags().String("record-type", "Feedback", "record type of the imported rows")
	csvCmd.Flags().Bool("dry-run", false, "read and check every row, write nothing")
	csvCmd.Flags().String("date-order", "", "how created_at dates of digits only are read: dmy (03.11.2026 is 3 November), mdy or ymd")
	csvCmd.Flags().String("encoding", "", "read the file as utf-8, utf-16le, utf-16be or windows-1252 instead of detecting it")
	csvCmd.Flags().String("delimiter", "", "read the file split by comma, semicolon, tab or bar instead of detecting it")

	runs := &cobra.Command{Use: "runs", Short: "List a workspace's import runs", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ws, err := workspaceFlag(cmd)
			if err != nil {
				return err
			}
			return a.withReader(cmd, func(ctx context.Context, svc *core.Service) error {
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
	cmd.AddCommand(csvCmd, runs, a.undoCommand())
	return cmd
}

// progressEvery is how often a progress line is printed when stderr is not a terminal (a log, a CI job):
// often enough to show it moves, rarely enough that a million rows do not bury the summary.
const progressEvery = 5 * time.Second

// importCSV runs one import with progress on stderr: a live line on a terminal, a line every few seconds
// otherwise; both carry the share of the file read and the time left when its size is known.
func (a *app) importCSV(ctx context.Context, svc *core.Service, ws core.ID, path string, opts csvimport.Options) error {
	start := time.Now()
	tty := false
	if f, ok := a.stderr.(*os.File); ok {
		tty = isatty.IsTerminal(f.Fd())
	}
	var size int64
	if fi, err := os.Stat(path); err == nil && fi.Mode().IsRegular() {
		size = fi.Size()
	}
	opts.ReadBytes = new(atomic.Int64)
	var printed time.Time
	opts.Progress = func(r core.ImportRun) {
		if r.Status != core.ImportRunning || (!tty && time.Since(printed) < progressEvery) {
			return
		}
		printed = time.Now()
		line := progressLine(r, time.Since(start), opts.ReadBytes.Load(), size)
		if tty {
			fmt.Fprintf(a.stderr, "\r\033[K%s", line)
		} else {
			fmt.Fprintln(a.stderr, line)
		}
	}
	var unknownTags []string
	opts.UnknownTags = func(labels []string) { unknownTags = labels }
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
		if len(unknownTags) > 0 {
			fmt.Fprintf(w, "tag labels that match no workspace tag, left off the records: %s (add them with feedbridge tag add)\n", strings.Join(unknownTags, ", "))
		}
		if run.Failed > 0 && !opts.DryRun {
			fmt.Fprintf(w, "bad rows and their reasons: %s\n", filepath.Join(filepath.Dir(path), csvimport.ErrorsFileName(path)))
		}
	}); perr != nil {
		return perr
	}
	if a.json && len(unknownTags) > 0 {
		fmt.Fprintf(a.stderr, "tag labels that match no workspace tag, left off the records: %s\n", strings.Join(unknownTags, ", "))
	}
	if err != nil || run.Status == core.ImportFailed {
		return errors.Join(fmt.Errorf("import %s failed", path), err)
	}
	return nil
}

// progressLine is one progress report: the counters and the rate, and with the file's size known, the
// share read and an estimate of the time left at the rate so far.
func progressLine(r core.ImportRun, elapsed time.Duration, read, size int64) string {
	secs := max(elapsed.Seconds(), 1e-3)
	line := fmt.Sprintf("rows %d  created %d  duplicates %d  failed %d  (%.0f rows/s)", r.Rows, r.Created, r.Duplicates, r.Failed, float64(r.Rows)/secs)
	if size <= 0 || read <= 0 {
		return line
	}
	read = min(read, size)
	left := time.Duration(float64(size-read) / float64(read) * float64(elapsed)).Round(time.Second)
	return fmt.Sprintf("%s  %.0f%%  about %s left", line, 100*float64(read)/float64(size), left)
}
