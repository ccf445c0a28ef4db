package sandbox

import "github.com/salve-dev/salve/internal/secret"

// Masker replaces known secret values in a command's output before it is
// captured or passed on ([Cmd.Mask], [Job.Mask]). It is the one masker of
// package internal/secret, where the rule for which variables hold a
// secret lives; the zero value and nil mask nothing.
type Masker = secret.Masker

// MaskerFromEnv returns a Masker for the values of the secret variables in
// each KEY=VALUE list given (see secret.IsSecretName), plus extra values.
// It is secret.FromEnv, kept here for the callers that build a [Job].
func MaskerFromEnv(envs [][]string, extra ...string) *Masker { return secret.FromEnv(envs, extra...) }
