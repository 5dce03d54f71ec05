package cli

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// Version is the version main was built as (main.version, set with
// -ldflags "-X main.version=v1.2.3"), "" when none was set.
var Version = ""

func newVersionCommand(opts *GlobalOptions) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the ralph-ci version",
		Example: "  ralph-ci version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(opts.Stdout, versionLine())
			return nil
		},
	}
}

// versionLine is what version and --version print.
func versionLine() string {
	return fmt.Sprintf("ralph-ci %s %s/%s %s", versionString(), runtime.GOOS, runtime.GOARCH, runtime.Version())
}

// versionString is the -ldflags version, else the module version of the
// build, else "devel".
func versionString() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}
