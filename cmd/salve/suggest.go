package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/salve-dev/salve/internal/textdist"
)

// suggestFlag adds "did you mean --x?" to cobra's unknown-flag error,
// naming the command's closest flag.
func suggestFlag(c *cobra.Command, err error) error {
	msg := err.Error()
	const unknown = "unknown flag: --"
	i := strings.Index(msg, unknown)
	if i < 0 {
		return err
	}
	given := strings.Fields(msg[i+len(unknown):])
	if len(given) == 0 {
		return err
	}
	var names []string
	collect := func(f *pflag.Flag) { names = append(names, f.Name) }
	c.Flags().VisitAll(collect)
	c.InheritedFlags().VisitAll(collect)
	if best := textdist.Closest(given[0], names); best != "" {
		return fmt.Errorf("%w; did you mean --%s? (see salve %s --help)", err, best, c.Name())
	}
	return fmt.Errorf("%w (see salve %s --help)", err, c.Name())
}
