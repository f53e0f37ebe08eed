package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/feedbridge/feedbridge/core"
)

// contactCommand is "contact forget": a customer's erasure, the same as POST /api/contacts/forget.
func (a *app) contactCommand() *cobra.Command {
	cmd := &cobra.Command{Use: "contact", Short: "Manage a workspace's customers"}
	forget := &cobra.Command{Use: "forget", Short: "Erase a customer: their contact, address and name from every record (records stay)",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ws, err := workspaceFlag(cmd)
			if err != nil {
				return err
			}
			if err := required(cmd, "email"); err != nil {
				return err
			}
			email, _ := cmd.Flags().GetString("email")
			return a.withService(cmd, func(ctx context.Context, svc *core.Service) error {
				out, err := svc.ForgetContact(ctx, ws, email)
				if err != nil {
					return err
				}
				return a.print(out, func(w io.Writer) {
					fmt.Fprintf(w, "erased: %d records changed, %d contacts removed\n", out.Records, out.Contacts)
				})
			})
		}}
	forget.Flags().String("workspace", "", "workspace id (required)")
	forget.Flags().String("email", "", "the customer's address, any case (required)")
	cmd.AddCommand(forget)
	return cmd
}
