package main

import "github.com/spf13/cobra"

// newToolCmd builds "salve tool". It is a placeholder until its package lands.
func newToolCmd(s *streams) *cobra.Command { return notYet("tool") }
