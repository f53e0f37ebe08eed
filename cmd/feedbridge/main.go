// Command feedbridge is the feedbridge daemon and its admin CLI.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/feedbridge/feedbridge/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
