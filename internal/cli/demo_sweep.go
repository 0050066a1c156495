package cli

import (
	"context"
	"errors"

	"github.com/spf13/cobra"

	"github.com/zkx-dev/zkx/demo"
	"github.com/zkx-dev/zkx/internal/cliout"
)

func runSweep(ctx context.Context, cmd *cobra.Command, g *globalOptions, f demoFlags, kinds []demo.Kind, format cliout.Format) error {
	return errors.New("TODO")
}
