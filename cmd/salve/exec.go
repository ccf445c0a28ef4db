package main

import "github.com/spf13/cobra"

// newExecCmd builds "salve exec". It is a placeholder until its package lands.
func newExecCmd(s *streams) *cobra.Command { return notYet("exec") }
