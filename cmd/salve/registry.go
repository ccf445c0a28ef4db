package main

import "github.com/spf13/cobra"

// newRegistryCmd builds "salve registry". It is a placeholder until its package lands.
func newRegistryCmd(s *streams) *cobra.Command { return notYet("registry") }
