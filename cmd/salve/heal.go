package main

import "github.com/spf13/cobra"

// newHealCmd builds "salve heal". It is a placeholder until its package lands.
func newHealCmd(s *streams) *cobra.Command { return notYet("heal") }
