package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/feedbridge/feedbridge/api"
	"github.com/feedbridge/feedbridge/core"
)

// recordCommand creates records of any of the four types by hand: the one way, besides CSV, to make a
// Feature with its release or an Objective with its timeframe.
func (a *app) recordCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "record", Short: "Create, list, show, change, link, merge and delete records"}
	create := &cobra.Command{Use: "create", Short: "Create a record and print its id", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ws, err := workspaceFlag(cmd)
			if err != nil {
				return err
			}
			if err := required(cmd, "type", "title"); err != nil {
				return err
			}
			str := func(name string) string { v, _ := cmd.Flags().GetString(name); return v }
			rt, ok := core.ParseRecordType(str("type"))
			if !ok {
				return usagef("--type must be Idea, Feedback, Feature or Objective")
			}
			if str("release") != "" && rt != core.RecordFeature {
				return usagef("--release is only for --type Feature")
			}
			if str("timeframe") != "" && rt != core.RecordObjective {
				return usagef("--timeframe is only for --type Objective")
			}
			sub := core.Submission{Type: rt, Title: str("title"), Description: str("description"),
				Release: str("release"), Timeframe: str("timeframe"), Source: str("source")}
			for _, f := range []struct {
				flag string
				dst  *core.ID
			}{{"product", &sub.ProductID}, {"user", &sub.AssigneeID}} {
				if v := str(f.flag); v != "" {
					if *f.dst, err = core.ParseID(v); err != nil {
						return usagef("--%s: %v", f.flag, err)
					}
				}
			}
			tags, _ := cmd.Flags().GetStringArray("tag")
			for _, v := range tags {
				id, err := core.ParseID(v)
				if err != nil {
					return usagef("--tag: %v", err)
				}
				sub.TagIDs = append(sub.TagIDs, id)
			}
			return a.withService(cmd, func(ctx context.Context, svc *core.Service) error {
				res, err := svc.Submit(ctx, ws, sub)
				if err != nil {
					return err
				}
				return a.print(api.NewRecordView(res.Record), func(w io.Writer) { fmt.Fprintln(w, res.Record.ID) })
			})
		}}
	f := create.Flags()
	f.String("workspace", "", "workspace id (required)")
	f.String("type", "", "Idea, Feedback, Feature or Objective (required)")
	f.String("title", "", "title (required)")
	f.String("description", "", "description, text or HTML (sanitized)")
	f.String("release", "", "the release a Feature ships in")
	f.String("timeframe", "", "the period an Objective is set for (Q3 2027, H1, …)")
	f.String("product", "", "product id")
	f.String("user", "", "assignee's user id")
	f.StringArray("tag", nil, "tag id, repeatable")
	f.String("source", "", "source label (default Manual)")
	cmd.AddCommand(create)
	cmd.AddCommand(a.recordMoveCommands()...)
	return cmd
}
