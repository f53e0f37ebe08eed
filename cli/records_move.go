package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/feedbridge/feedbridge/api"
	"github.com/feedbridge/feedbridge/core"
)

// recordMoveCommands are the record commands after creation: list, show, update, link, unlink, merge and
// delete. Record ids are unique across workspaces, so the commands that take one find its workspace.
func (a *app) recordMoveCommands() []*cobra.Command {
	list := &cobra.Command{Use: "list", Short: "List records (a table, or --json)", Args: cobra.NoArgs, RunE: a.recordList}
	f := list.Flags()
	f.String("workspace", "", "workspace id (required)")
	f.String("type", "", "Idea (default), Feedback, Feature or Objective")
	f.StringArray("status", nil, "status, repeatable: any of them (Merged records only when asked)")
	f.String("search", "", "substring of title or description")
	f.String("limit", "", "at most this many records (1-1000, default 100)")

	show := &cobra.Command{Use: "show ID", Short: "Show a record with its insights, links and history", Args: cobra.ExactArgs(1),
		RunE: a.recordShow}

	update := &cobra.Command{Use: "update ID", Short: "Change fields of a record", Args: cobra.ExactArgs(1), RunE: a.recordUpdate}
	f = update.Flags()
	for _, name := range []string{"title", "description", "status", "product", "user", "release", "timeframe", "customer-email", "customer-name"} {
		f.String(name, "", name+` ("" clears product, user and customer-email)`)
	}
	f.StringArray("tag", nil, "tag id, repeatable: replaces the record's tags")
	f.Bool("no-tags", false, "remove every tag")
	f.Int("importance", 0, "Feedback only: 1-3, or 0 to clear")

	link := &cobra.Command{Use: "link FEEDBACK_ID IDEA_ID", Short: "Link a Feedback to an Idea or Feature", Args: cobra.ExactArgs(2),
		RunE: a.recordLink}
	link.Flags().Int("importance", 0, "1 nice to have, 2 important, 3 critical")
	unlink := &cobra.Command{Use: "unlink FEEDBACK_ID IDEA_ID", Short: "Remove a link", Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.onRecord(cmd, args[0], func(ctx context.Context, svc *core.Service, ws core.ID, fb core.ID) error {
				target, err := core.ParseID(args[1])
				if err != nil {
					return usagef("IDEA_ID: %v", err)
				}
				return svc.Unlink(ctx, ws, fb, target)
			})
		}}
	merge := &cobra.Command{Use: "merge ID --into ID", Short: "Merge a record into another of its type", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := required(cmd, "into"); err != nil {
				return err
			}
			into, _ := cmd.Flags().GetString("into")
			return a.onRecord(cmd, args[0], func(ctx context.Context, svc *core.Service, ws core.ID, id core.ID) error {
				rec, err := svc.Merge(ctx, ws, id, core.ID(into))
				if err != nil {
					return err
				}
				return a.print(api.NewRecordView(rec), func(w io.Writer) { fmt.Fprintln(w, rec.ID) })
			})
		}}
	merge.Flags().String("into", "", "the record to merge into (required)")
	del := &cobra.Command{Use: "delete ID", Short: "Delete a record with its insights, links and history", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.onRecord(cmd, args[0], func(ctx context.Context, svc *core.Service, ws core.ID, id core.ID) error {
				return svc.Delete(ctx, ws, id)
			})
		}}
	return []*cobra.Command{list, show, update, link, unlink, merge, del}
}

// onRecord runs fn on the record id in its workspace.
func (a *app) onRecord(cmd *cobra.Command, arg string, fn func(ctx context.Context, svc *core.Service, ws, id core.ID) error) error {
	id, err := core.ParseID(arg)
	if err != nil {
		return usagef("ID: %v", err)
	}
	return a.withService(cmd, func(ctx context.Context, svc *core.Service) error {
		ws, err := recordWorkspace(ctx, svc, id)
		if err != nil {
			return err
		}
		return fn(ctx, svc, ws, id)
	})
}

// recordWorkspace finds the workspace that holds record id.
func recordWorkspace(ctx context.Context, svc *core.Service, id core.ID) (core.ID, error) {
	wss, err := svc.Workspaces(ctx)
	if err != nil {
		return "", err
	}
	for _, w := range wss {
		_, err := svc.Record(ctx, w.ID, id)
		if err == nil {
			return w.ID, nil
		}
		if !errors.Is(err, core.ErrNotFound) {
			return "", err
		}
	}
	return "", fmt.Errorf("record %s: %w", id, core.ErrNotFound)
}

func (a *app) recordList(cmd *cobra.Command, _ []string) error {
	ws, err := workspaceFlag(cmd)
	if err != nil {
		return err
	}
	str := func(name string) string { v, _ := cmd.Flags().GetString(name); return v }
	statuses, _ := cmd.Flags().GetStringArray("status")
	req := core.ListRequest{RecordType: str("type"), Statuses: statuses, Search: str("search"), Limit: str("limit")}
	return a.withReader(cmd, func(ctx context.Context, svc *core.Service) error {
		page, err := svc.List(ctx, ws, req)
		if err != nil {
			return err
		}
		views := make([]any, len(page.Records))
		for i, r := range page.Records {
			views[i] = api.NewRecordView(r)
		}
		return a.print(views, func(w io.Writer) {
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tTYPE\tSTATUS\tCUSTOMER\tTITLE")
			for _, r := range page.Records {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", r.ID, r.Type, r.Status, r.Customer, oneLine(r.Title))
			}
			tw.Flush()
		})
	})
}

// oneLine keeps a table row on one line whatever a title holds.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

func (a *app) recordShow(cmd *cobra.Command, args []string) error {
	return a.onRecord(cmd, args[0], func(ctx context.Context, svc *core.Service, ws, id core.ID) error {
		rec, err := svc.Record(ctx, ws, id)
		if err != nil {
			return err
		}
		ins, err := svc.Insights(ctx, ws, id)
		if err != nil {
			return err
		}
		hist, err := svc.History(ctx, ws, id)
		if err != nil {
			return err
		}
		links := append([]core.ID{}, rec.Links...)
		if rec.Type == core.RecordIdea || rec.Type == core.RecordFeature {
			page, err := svc.LinkedFeedback(ctx, ws, id, core.ListRequest{Limit: strconv.Itoa(core.MaxPageSize)})
			if err != nil {
				return err
			}
			for _, r := range page.Records {
				links = append(links, r.ID)
			}
		}
		doc := map[string]any{"record": api.NewRecordView(rec), "insights": api.NewInsightViews(ins), "links": links,
			"history": api.NewHistoryViews(hist)}
		return a.print(doc, func(w io.Writer) {
			fmt.Fprintf(w, "%s  %s  %s\n%s\n", rec.ID, rec.Type, rec.Status, rec.Title)
			if rec.Description != "" {
				fmt.Fprintf(w, "\n%s\n", rec.Description)
			}
			fmt.Fprintf(w, "\ncustomer: %s %s (%s)\nsource: %s  created: %s  updated: %s\n", rec.CustomerName, rec.CustomerEmail,
				rec.Customer, rec.Source, rec.CreatedAt.Format(timeLayout), rec.UpdatedAt.Format(timeLayout))
			fmt.Fprintf(w, "\ninsights (%d):\n", len(ins))
			for _, in := range ins {
				fmt.Fprintf(w, "  %s  %s  %s\n", in.Kind, in.Sentiment, in.Summary)
			}
			fmt.Fprintf(w, "links (%d):\n", len(links))
			for _, l := range links {
				fmt.Fprintf(w, "  %s\n", l)
			}
			fmt.Fprintln(w, "history:")
			for _, h := range hist {
				fmt.Fprintf(w, "  %s  %s  %s %s\n", h.At.Format(timeLayout), h.Action, h.Actor.Kind, h.Actor.Name)
			}
		})
	})
}

const timeLayout = "2006-01-02T15:04:05.000Z"

func (a *app) recordUpdate(cmd *cobra.Command, args []string) error {
	var p core.Patch
	fl := cmd.Flags()
	for name, dst := range map[string]**string{
		"title": &p.Title, "description": &p.Description, "status": &p.Status, "product": &p.Product, "user": &p.User,
		"release": &p.Release, "timeframe": &p.Timeframe, "customer-email": &p.CustomerEmail, "customer-name": &p.CustomerName,
	} {
		if fl.Changed(name) {
			v, _ := fl.GetString(name)
			*dst = &v
		}
	}
	if fl.Changed("tag") || fl.Changed("no-tags") {
		tags, _ := fl.GetStringArray("tag")
		p.Tags = &tags
	}
	if fl.Changed("importance") {
		n, _ := fl.GetInt("importance")
		if n == 0 {
			p.ClearImportance = true
		} else {
			p.Importance = &n
		}
	}
	if p == (core.Patch{}) {
		return usagef("name at least one field to change")
	}
	return a.onRecord(cmd, args[0], func(ctx context.Context, svc *core.Service, ws, id core.ID) error {
		rec, err := svc.Update(ctx, ws, id, p, "")
		if err != nil {
			return err
		}
		return a.print(api.NewRecordView(rec), func(w io.Writer) { fmt.Fprintln(w, rec.ID) })
	})
}

func (a *app) recordLink(cmd *cobra.Command, args []string) error {
	target, err := core.ParseID(args[1])
	if err != nil {
		return usagef("IDEA_ID: %v", err)
	}
	var imp *int
	if cmd.Flags().Changed("importance") {
		n, _ := cmd.Flags().GetInt("importance")
		imp = &n
	}
	return a.onRecord(cmd, args[0], func(ctx context.Context, svc *core.Service, ws, fb core.ID) error {
		rec, err := svc.Link(ctx, ws, fb, target, imp)
		if err != nil {
			return err
		}
		return a.print(api.NewRecordView(rec), func(w io.Writer) { fmt.Fprintln(w, rec.ID) })
	})
}
