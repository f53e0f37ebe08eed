package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/feedbridge/feedbridge/core"
)

type workspaceJSON struct {
	ID        core.ID `json:"id"`
	Name      string  `json:"name"`
	Plan      string  `json:"plan"`
	IdeaLimit int     `json:"idea_limit"`
	IdeasUsed int     `json:"ideas_used"`
	Suspended bool    `json:"suspended"`
}

func toWorkspaceJSON(w core.Workspace) workspaceJSON {
	return workspaceJSON{ID: w.ID, Name: w.Name, Plan: string(w.Plan), IdeaLimit: w.IdeaLimit, IdeasUsed: w.IdeasUsed, Suspended: w.Suspended}
}

func table(w io.Writer, header string, rows func(tw io.Writer)) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	rows(tw)
	tw.Flush()
}

func (a *app) workspaceCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "workspace", Short: "Create, list and change workspaces"}
	create := &cobra.Command{Use: "create", Short: "Create a workspace and print its id", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := required(cmd, "name"); err != nil {
				return err
			}
			name, _ := cmd.Flags().GetString("name")
			planName, _ := cmd.Flags().GetString("plan")
			limit, _ := cmd.Flags().GetInt("idea-limit")
			plan, ok := core.ParsePlan(planName)
			if !ok {
				return usagef("--plan must be one of free, starter, pro, business")
			}
			if !cmd.Flags().Changed("idea-limit") {
				limit = -1
			}
			return a.withService(cmd, func(ctx context.Context, svc *core.Service) error {
				w, err := svc.CreateWorkspace(ctx, name, plan, limit)
				if err != nil {
					return err
				}
				j := toWorkspaceJSON(w)
				return a.print(struct {
					ID        core.ID `json:"id"`
					Name      string  `json:"name"`
					Plan      string  `json:"plan"`
					IdeaLimit int     `json:"idea_limit"`
				}{j.ID, j.Name, j.Plan, j.IdeaLimit}, func(out io.Writer) { fmt.Fprintln(out, w.ID) })
			})
		}}
	create.Flags().String("name", "", "workspace name (required)")
	create.Flags().String("plan", "pro", "plan: free, starter, pro or business")
	create.Flags().Int("idea-limit", 0, "idea limit, 0 for unlimited (default: the plan's)")

	list := &cobra.Command{Use: "list", Short: "List workspaces", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.withReader(cmd, func(ctx context.Context, svc *core.Service) error {
				ws, err := svc.Workspaces(ctx)
				if err != nil {
					return err
				}
				out := make([]workspaceJSON, len(ws))
				for i, w := range ws {
					out[i] = toWorkspaceJSON(w)
				}
				return a.print(out, func(w io.Writer) {
					table(w, "ID\tNAME\tPLAN\tIDEAS\tSTATE", func(tw io.Writer) {
						for _, x := range out {
							state := "active"
							if x.Suspended {
								state = "suspended"
							}
							limit := "unlimited"
							if x.IdeaLimit > 0 {
								limit = fmt.Sprint(x.IdeaLimit)
							}
							fmt.Fprintf(tw, "%s\t%s\t%s\t%d/%s\t%s\n", x.ID, x.Name, x.Plan, x.IdeasUsed, limit, state)
						}
					})
				})
			})
		}}

	update := &cobra.Command{Use: "update ID", Short: "Change a workspace's name, plan, idea limit or suspension", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := core.ParseID(args[0])
			if err != nil {
				return usagef("%v", err)
			}
			var u core.WorkspaceUpdate
			if cmd.Flags().Changed("name") {
				v, _ := cmd.Flags().GetString("name")
				u.Name = &v
			}
			if cmd.Flags().Changed("plan") {
				v, _ := cmd.Flags().GetString("plan")
				p, ok := core.ParsePlan(v)
				if !ok {
					return usagef("--plan must be one of free, starter, pro, business")
				}
				u.Plan = &p
			}
			if cmd.Flags().Changed("idea-limit") {
				v, _ := cmd.Flags().GetInt("idea-limit")
				u.IdeaLimit = &v
			}
			suspend, _ := cmd.Flags().GetBool("suspend")
			resume, _ := cmd.Flags().GetBool("resume")
			if suspend && resume {
				return usagef("--suspend and --resume exclude each other")
			}
			if suspend || resume {
				u.Suspended = &suspend
			}
			return a.withService(cmd, func(ctx context.Context, svc *core.Service) error {
				w, err := svc.UpdateWorkspace(ctx, id, u)
				if err != nil {
					return err
				}
				return a.print(toWorkspaceJSON(w), func(out io.Writer) { fmt.Fprintf(out, "updated %s\n", w.ID) })
			})
		}}
	update.Flags().String("name", "", "new name")
	update.Flags().String("plan", "", "new plan")
	update.Flags().Int("idea-limit", 0, "new idea limit (0 = unlimited)")
	update.Flags().Bool("suspend", false, "suspend the workspace (its keys answer 403)")
	update.Flags().Bool("resume", false, "resume a suspended workspace")
	cmd.AddCommand(create, list, update)
	return cmd
}

func (a *app) keyCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "key", Short: "Issue, list and revoke API keys"}
	create := &cobra.Command{Use: "create", Short: "Issue a key; it is printed once", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ws, err := workspaceFlag(cmd)
			if err != nil {
				return err
			}
			name, _ := cmd.Flags().GetString("name")
			return a.withService(cmd, func(ctx context.Context, svc *core.Service) error {
				k, secret, err := svc.CreateKey(ctx, ws, name)
				if err != nil {
					return err
				}
				return a.print(map[string]any{"id": k.ID, "key": secret, "workspace": ws}, func(out io.Writer) {
					fmt.Fprintln(out, secret)
					fmt.Fprintf(a.stderr, "key id %s; the key is shown only now, store it safely\n", k.ID)
				})
			})
		}}
	create.Flags().String("workspace", "", "workspace id (required)")
	create.Flags().String("name", "", "a label for the key")

	list := &cobra.Command{Use: "list", Short: "List a workspace's keys (never the secrets)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ws, err := workspaceFlag(cmd)
			if err != nil {
				return err
			}
			return a.withReader(cmd, func(ctx context.Context, svc *core.Service) error {
				keys, err := svc.Keys(ctx, ws)
				if err != nil {
					return err
				}
				type keyJSON struct {
					ID        core.ID `json:"id"`
					Name      string  `json:"name"`
					Prefix    string  `json:"prefix"`
					CreatedAt string  `json:"created_at"`
					RevokedAt string  `json:"revoked_at"`
				}
				out := make([]keyJSON, len(keys))
				for i, k := range keys {
					out[i] = keyJSON{k.ID, k.Name, k.Prefix, stamp(k.CreatedAt), stamp(k.RevokedAt)}
				}
				return a.print(out, func(w io.Writer) {
					table(w, "ID\tNAME\tPREFIX\tCREATED\tREVOKED", func(tw io.Writer) {
						for _, k := range out {
							fmt.Fprintf(tw, "%s\t%s\t%s…\t%s\t%s\n", k.ID, k.Name, k.Prefix, k.CreatedAt, k.RevokedAt)
						}
					})
				})
			})
		}}
	list.Flags().String("workspace", "", "workspace id (required)")

	revoke := &cobra.Command{Use: "revoke KEY_ID", Short: "Revoke a key", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := core.ParseID(args[0])
			if err != nil {
				return usagef("%v", err)
			}
			return a.withService(cmd, func(ctx context.Context, svc *core.Service) error {
				if err := svc.RevokeKey(ctx, id); errors.Is(err, core.ErrNotFound) {
					return fmt.Errorf("key revoke: no API key %s (see feedbridge key list)", id)
				} else if err != nil {
					return err
				}
				return a.print(map[string]any{"id": id, "revoked": true}, func(w io.Writer) { fmt.Fprintf(w, "revoked %s\n", id) })
			})
		}}
	cmd.AddCommand(create, list, revoke)
	return cmd
}

// stamp formats a time like the API does, "" for zero.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05.000Z")
}
