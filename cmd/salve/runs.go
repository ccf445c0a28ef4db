package main

import "github.com/spf13/cobra"

// newRunsCmd builds "salve runs". It is a placeholder until its package lands.
func newRunsCmd(s *streams) *cobra.Command { return notYet("runs") }
