package main

import "github.com/spf13/cobra"

// newParseCmd builds "salve parse". It is a placeholder until its package lands.
func newParseCmd(s *streams) *cobra.Command { return notYet("parse") }
