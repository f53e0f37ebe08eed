package cli

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/feedbridge/feedbridge/config"
	"github.com/feedbridge/feedbridge/console"
	"github.com/feedbridge/feedbridge/core"
	"github.com/feedbridge/feedbridge/store/sqlite"
)

type memberJSON struct {
	ID          core.ID `json:"id"`
	Workspace   core.ID `json:"workspace"`
	Email       string  `json:"email"`
	Role        string  `json:"role"`
	PasswordSet bool    `json:"password_set"`
	CreatedAt   string  `json:"created_at"`
}

func toMemberJSON(m core.Member) memberJSON {
	return memberJSON{m.ID, m.Workspace, m.Email, string(m.Role), m.PasswordHash != "", stamp(m.CreatedAt)}
}

// withConfigService is withService for commands that also need the configuration (the console's address).
func (a *app) withConfigService(cmd *cobra.Command, fn func(ctx context.Context, svc *core.Service, cfg *config.Config) error) error {
	svc, cfg, closeFn, err := a.open(cmd.Context(), sqlite.ModeCommand)
	if err != nil {
		return err
	}
	defer closeFn()
	return fn(cmd.Context(), svc, cfg)
}

// printLink prints a member's new sign-in link: the link alone on stdout, what it is for on stderr.
func (a *app) printLink(m core.Member, link string) error {
	return a.print(map[string]any{"member": toMemberJSON(m), "link": link, "expires_in_hours": int(core.SignInLinkTTL.Hours())},
		func(out io.Writer) {
			fmt.Fprintln(out, link)
			fmt.Fprintf(a.stderr, "sign-in link for %s (member %s, %s); valid for 24 hours, once\n", m.Email, m.ID, m.Role)
		})
}

func (a *app) memberCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "member", Short: "Add, list and remove the people who sign in to the console"}
	add := &cobra.Command{Use: "add", Short: "Add a member and print a one-time sign-in link", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ws, err := workspaceFlag(cmd)
			if err != nil {
				return err
			}
			if err := required(cmd, "email"); err != nil {
				return err
			}
			email, _ := cmd.Flags().GetString("email")
			roleName, _ := cmd.Flags().GetString("role")
			role, ok := core.ParseRole(roleName)
			if !ok {
				return usagef("--role must be one of admin, editor, viewer")
			}
			return a.withConfigService(cmd, func(ctx context.Context, svc *core.Service, cfg *config.Config) error {
				m, token, err := svc.AddMember(ctx, ws, email, role)
				if err != nil {
					return memberError("member add", err)
				}
				return a.printLink(m, console.SignInLink(cfg.Console.PublicURL, cfg.HTTP.Listen, token))
			})
		}}
	add.Flags().String("workspace", "", "workspace id (required)")
	add.Flags().String("email", "", "the member's email address (required)")
	add.Flags().String("role", "viewer", "admin, editor or viewer")

	list := &cobra.Command{Use: "list", Short: "List a workspace's members", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ws, err := workspaceFlag(cmd)
			if err != nil {
				return err
			}
			return a.withReader(cmd, func(ctx context.Context, svc *core.Service) error {
				ms, err := svc.Members(ctx, ws)
				if err != nil {
					return err
				}
				out := make([]memberJSON, len(ms))
				for i, m := range ms {
					out[i] = toMemberJSON(m)
				}
				return a.print(out, func(w io.Writer) {
					table(w, "ID\tEMAIL\tROLE\tPASSWORD\tCREATED", func(tw io.Writer) {
						for _, m := range out {
							pw := "not set"
							if m.PasswordSet {
								pw = "set"
							}
							fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", m.ID, m.Email, m.Role, pw, m.CreatedAt)
						}
					})
				})
			})
		}}
	list.Flags().String("workspace", "", "workspace id (required)")

	remove := &cobra.Command{Use: "remove MEMBER_ID", Short: "Remove a member; their sessions end at once", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := core.ParseID(args[0])
			if err != nil {
				return usagef("%v", err)
			}
			return a.withService(cmd, func(ctx context.Context, svc *core.Service) error {
				if err := svc.RemoveMember(ctx, id); err != nil {
					return memberError("member remove", err)
				}
				return a.print(map[string]any{"id": id, "removed": true}, func(w io.Writer) { fmt.Fprintf(w, "removed %s\n", id) })
			})
		}}

	link := &cobra.Command{Use: "link MEMBER_ID", Short: "Print a new one-time sign-in link (the earlier one stops working)", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := core.ParseID(args[0])
			if err != nil {
				return usagef("%v", err)
			}
			return a.withConfigService(cmd, func(ctx context.Context, svc *core.Service, cfg *config.Config) error {
				m, token, err := svc.NewSignInLink(ctx, id)
				if err != nil {
					return memberError("member link", err)
				}
				return a.printLink(m, console.SignInLink(cfg.Console.PublicURL, cfg.HTTP.Listen, token))
			})
		}}
	cmd.AddCommand(add, list, remove, link)
	return cmd
}

// memberError says what went wrong in a person's words.
func memberError(what string, err error) error {
	var ve *core.ValidationError
	switch {
	case errors.As(err, &ve):
		return fmt.Errorf("%s: %s", what, ve.Message)
	case errors.Is(err, core.ErrNotFound):
		return fmt.Errorf("%s: no such member or workspace (see feedbridge member list, feedbridge workspace list)", what)
	}
	return err
}
