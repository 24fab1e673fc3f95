// Command dbarena benchmarks databases. See the README or `dbarena --help`.
package main

import (
	"context"
	"os"

	"github.com/dbarena/dbarena/cmd/dbarena/cli"
)

func main() {
	st := cli.NewState()
	sigs := cli.WatchSignals(context.Background(), st.Stderr, func() { os.Exit(cli.ExitInterrupted) })
	st.Abort = sigs.Abort
	code := cli.Main(sigs.Ctx, st, os.Args[1:])
	sigs.Stop()
	os.Exit(code)
}
