package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/feedbridge/feedbridge/core"
)

type lookupJSON struct {
	ID    core.ID `json:"id"`
	Label string  `json:"label"`
}

func printLookups(a *app, items []core.Lookup) error {
	out := make([]lookupJSON, len(items))
	for i, l := range items {
		out[i] = lookupJSON{l.ID, l.Label}
	}
	return a.print(out, func(w io.Writer) {
		table(w, "ID\tLABEL", func(tw io.Writer) {
			for _, l := range out {
				fmt.Fprintf(tw, "%s\t%s\n", l.ID, l.Label)
			}
		})
	})
}

// lookupCommand is `tag` or `product`: add labels, list them.
func (a *app) lookupCommand(kind core.LookupKind) *cobra.Command {
	cmd := &cobra.Command{Use: string(kind), Short: fmt.Sprintf("Add and list %ss", kind)}
	add := &cobra.Command{Use: "add LABEL...", Short: fmt.Sprintf("Add %ss (existing labels are kept)", kind), Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ws, err := workspaceFlag(cmd)
			if err != nil {
				return err
			}
			return a.withService(cmd, func(ctx context.Context, svc *core.Service) error {
				items, err := svc.AddLookups(ctx, ws, kind, args)
				if err != nil {
					return err
				}
				return printLookups(a, items)
			})
		}}
	list := &cobra.Command{Use: "list", Short: fmt.Sprintf("List %ss", kind), Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ws, err := workspaceFlag(cmd)
			if err != nil {
				return err
			}
			return a.withReader(cmd, func(ctx context.Context, svc *core.Service) error {
				var items []core.Lookup
				if kind == core.LookupTag {
					items, err = svc.Tags(ctx, ws)
				} else {
					items, err = svc.Products(ctx, ws)
				}
				if err != nil {
					return err
				}
				return printLookups(a, items)
			})
		}}
	for _, c := range []*cobra.Command{add, list} {
		c.Flags().String("workspace", "", "workspace id (required)")
	}
	cmd.AddCommand(add, list)
	return cmd
}

func (a *app) userCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "user", Short: "Add and list users (assignees)"}
	add := &cobra.Command{Use: "add", Short: "Add a user", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ws, err := workspaceFlag(cmd)
			if err != nil {
				return err
			}
			if err := required(cmd, "name"); err != nil {
				return err
			}
			name, _ := cmd.Flags().GetString("name")
			email, _ := cmd.Flags().GetString("email")
			return a.withService(cmd, func(ctx context.Context, svc *core.Service) error {
				u, err := svc.AddUser(ctx, ws, name, email)
				if err != nil {
					return err
				}
				return printLookups(a, []core.Lookup{{ID: u.ID, Label: u.Name}})
			})
		}}
	add.Flags().String("name", "", "display name (required)")
	add.Flags().String("email", "", "email address")
	list := &cobra.Command{Use: "list", Short: "List users", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ws, err := workspaceFlag(cmd)
			if err != nil {
				return err
			}
			return a.withReader(cmd, func(ctx context.Context, svc *core.Service) error {
				us, err := svc.Users(ctx, ws)
				if err != nil {
					return err
				}
				return printLookups(a, us)
			})
		}}
	for _, c := range []*cobra.Command{add, list} {
		c.Flags().String("workspace", "", "workspace id (required)")
	}
	cmd.AddCommand(add, list)
	return cmd
}

func (a *app) companyCommand() *cobra.Command {
	type companyJSON struct {
		ID     core.ID `json:"id"`
		Name   string  `json:"name"`
		Domain string  `json:"domain"`
	}
	printCompanies := func(cs []core.Company) error {
		out := make([]companyJSON, len(cs))
		for i, c := range cs {
			out[i] = companyJSON{c.ID, c.Name, c.Domain}
		}
		return a.print(out, func(w io.Writer) {
			table(w, "ID\tNAME\tDOMAIN", func(tw io.Writer) {
				for _, c := range out {
					fmt.Fprintf(tw, "%s\t%s\t%s\n", c.ID, c.Name, c.Domain)
				}
			})
		})
	}
	cmd := &cobra.Command{Use: "company", Short: "Add and list companies"}
	add := &cobra.Command{Use: "add", Short: "Add a company for an email domain (--rename: rename the one it has)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ws, err := workspaceFlag(cmd)
			if err != nil {
				return err
			}
			if err := required(cmd, "domain", "name"); err != nil {
				return err
			}
			domain, _ := cmd.Flags().GetString("domain")
			name, _ := cmd.Flags().GetString("name")
			rename, _ := cmd.Flags().GetBool("rename")
			return a.withService(cmd, func(ctx context.Context, svc *core.Service) error {
				put := svc.AddCompany
				if rename {
					put = svc.RenameCompany
				}
				c, err := put(ctx, ws, domain, name)
				if err != nil {
					return err
				}
				return printCompanies([]core.Company{c})
			})
		}}
	add.Flags().String("domain", "", "email domain, e.g. acme.com (required)")
	add.Flags().String("name", "", "company name (required)")
	add.Flags().Bool("rename", false, "the domain has a company already: give it this name (without it, adding refuses)")
	list := &cobra.Command{Use: "list", Short: "List companies", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ws, err := workspaceFlag(cmd)
			if err != nil {
				return err
			}
			return a.withReader(cmd, func(ctx context.Context, svc *core.Service) error {
				cs, err := svc.Companies(ctx, ws)
				if err != nil {
					return err
				}
				return printCompanies(cs)
			})
		}}
	for _, c := range []*cobra.Command{add, list} {
		c.Flags().String("workspace", "", "workspace id (required)")
	}
	cmd.AddCommand(add, list)
	return cmd
}
