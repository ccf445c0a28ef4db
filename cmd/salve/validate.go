package main

import "github.com/spf13/cobra"

// newValidateCmd builds "salve validate". It is a placeholder until its package lands.
func newValidateCmd(s *streams) *cobra.Command { return notYet("validate") }
