// Command dbarena benchmarks databases. See the README or `dbarena --help`.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/dbarena/dbarena/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, cli.NewState(), os.Args[1:])
	stop()
	os.Exit(code)
}
