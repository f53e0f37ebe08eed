package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/feedbridge/feedbridge/core"
)

// eventsCommand lists and requeues the events subscribers were given up on.
func (a *app) eventsCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "events", Short: "Inspect and retry events that could not be delivered"}
	failed := &cobra.Command{Use: "failed", Short: "List events given up on after their retry_for", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ws, err := optionalWorkspace(cmd)
			if err != nil {
				return err
			}
			return a.withReader(cmd, func(ctx context.Context, svc *core.Service) error {
				evs, err := svc.FailedEvents(ctx, ws)
				if err != nil {
					return err
				}
				type eventJSON struct {
					ID         core.ID `json:"id"`
					Subscriber string  `json:"subscriber"`
					Workspace  core.ID `json:"workspace"`
					Type       string  `json:"type"`
					Record     core.ID `json:"record"`
					Attempts   int     `json:"attempts"`
					LastError  string  `json:"last_error"`
					FailedAt   string  `json:"failed_at"`
				}
				out := make([]eventJSON, len(evs))
				for i, e := range evs {
					out[i] = eventJSON{e.ID, e.Subscriber, e.Workspace, e.Type, e.Record, e.Attempts, e.LastError, stamp(e.FailedAt)}
				}
				return a.print(out, func(w io.Writer) {
					table(w, "EVENT\tSUBSCRIBER\tWORKSPACE\tTYPE\tRECORD\tATTEMPTS\tLAST ERROR", func(tw io.Writer) {
						for _, e := range out {
							fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\n", e.ID, e.Subscriber, e.Workspace, e.Type, e.Record,
								e.Attempts, e.LastError)
						}
					})
				})
			})
		}}
	failed.Flags().String("workspace", "", "only this workspace")
	retry := a.retryCommand("EVENT_ID", "event", func(ctx context.Context, svc *core.Service, id core.ID) (int, error) {
		return svc.RetryEvents(ctx, "", id)
	})
	cmd.AddCommand(failed, retry)
	return cmd
}

// retryCommand is the retry subcommand of a durable queue's failed items: one ID, or --all. noun names an
// item in the messages ("event", "job"); retry requeues id (every failed item when id is empty).
func (a *app) retryCommand(idName, noun string, retry func(context.Context, *core.Service, core.ID) (int, error)) *cobra.Command {
	cmd := &cobra.Command{Use: "retry " + idName + "|--all", Short: "Queue failed " + noun + "s again", Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			all, _ := cmd.Flags().GetBool("all")
			if all == (len(args) == 1) {
				return usagef("give either %s %s or --all", article(idName), idName)
			}
			var id core.ID
			if len(args) == 1 {
				var err error
				if id, err = core.ParseID(args[0]); err != nil {
					return usagef("%v", err)
				}
			}
			return a.withService(cmd, func(ctx context.Context, svc *core.Service) error {
				n, err := retry(ctx, svc, id)
				if errors.Is(err, core.ErrNotFound) || (err == nil && n == 0 && id != "") {
					return fmt.Errorf("%s retry: no failed %s %s", cmd.Parent().Name(), noun, id)
				}
				if err != nil {
					return err
				}
				return a.print(map[string]int{"requeued": n}, func(w io.Writer) { fmt.Fprintf(w, "requeued %d %s(s)\n", n, noun) })
			})
		}}
	cmd.Flags().Bool("all", false, "retry every failed "+noun)
	return cmd
}

// article is the indefinite article before name.
func article(name string) string {
	if strings.ContainsRune("AEIOU", rune(name[0])) {
		return "an"
	}
	return "a"
}
