package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/feedbridge/feedbridge/core"
)

// undoCommand is "import undo RUN_ID": the run's records that nobody changed since are deleted, the
// others named with the reason they stay.
func (a *app) undoCommand() *cobra.Command {
	return &cobra.Command{Use: "undo RUN_ID", Short: "Delete the records an import run created that nobody changed since",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			run, err := core.ParseID(args[0])
			if err != nil {
				return usagef("RUN_ID: %v", err)
			}
			return a.withService(cmd, func(ctx context.Context, svc *core.Service) error {
				out, err := svc.UndoImport(ctx, run)
				if err != nil {
					return err
				}
				return a.print(out, func(w io.Writer) {
					fmt.Fprintf(w, "import run %s: %d records deleted, %d kept\n", out.Run, out.Deleted, len(out.Kept))
					for _, k := range out.Kept {
						fmt.Fprintf(w, "kept %s: %s\n", k.ID, k.Reason)
					}
				})
			})
		}}
}
