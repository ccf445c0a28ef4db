package main

import "github.com/spf13/cobra"

// newFixCmd builds "salve fix". It is a placeholder until its package lands.
func newFixCmd(s *streams) *cobra.Command { return notYet("fix") }
